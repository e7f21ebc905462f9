package fjord.oracle;

import java.io.PrintStream;
import java.io.Writer;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.deletionvectors.Bitmap64DeletionVector;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.DeletionVectorsIndexFile;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.IndexPathFactory;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.utils.OptimizedRoaringBitmap64;

/**
 * dv-read INDEX_FILE BITMAP64 RANGES_JSON [--output FILE]: reads a DELETION_VECTORS index file
 * another writer made with Java Paimon's own DeletionVectorsIndexFile, both as a restore does
 * (readAllDeletionVectors: entries in the order of the ranges, back to back) and as a read split
 * does (readDeletionVector: each entry at its offset, its length checked), and writes one JSON
 * line per data file, {"file": NAME, "positions": [...]}, in the order of the ranges.
 *
 * <p>RANGES_JSON is a file holding the index file's dv_ranges as a JSON array of [data file
 * name, offset, length, cardinality]. BITMAP64 is the table's deletion-vectors.bitmap64: every
 * vector must be of that layout. Then Java writes the same vectors, built afresh from the
 * positions, as one index file in the same order (writeSingleFile); the message says whether
 * that file and its ranges are the same bytes and numbers: "vectors N same-bytes B same-ranges R".
 */
final class DeletionVectors {
    private DeletionVectors() {}

    static String read(String[] args, PrintStream realOut) throws Exception {
        if (args.length != 4 && !(args.length == 6 && args[4].equals("--output"))) {
            throw new Oracle.UsageException("dv-read takes INDEX_FILE BITMAP64 RANGES_JSON [--output FILE]");
        }
        if (!args[2].equals("true") && !args[2].equals("false")) {
            throw new Oracle.UsageException("dv-read: BITMAP64 must be true or false");
        }
        java.nio.file.Path indexFile = java.nio.file.Path.of(args[1]).toAbsolutePath();
        boolean bitmap64 = Boolean.parseBoolean(args[2]);
        LinkedHashMap<String, DeletionVectorMeta> ranges = parseRanges(args[3]);

        FileIO fileIO = LocalFileIO.create();
        java.nio.file.Path rewriteDir = Files.createTempDirectory(indexFile.getParent(), "java-rewrite");
        IndexPathFactory paths = new IndexPathFactory() {
            private int next = 0;

            // Java 1.4 asks by name; 1.3 (the Flink connector's, which compiles this file too)
            // by meta. No @Override: each version overrides only one of the two.
            public Path toPath(String fileName) {
                return new Path(indexFile.getParent().resolve(fileName).toUri());
            }

            public Path toPath(IndexFileMeta file) {
                return toPath(file.fileName());
            }

            @Override
            public Path newPath() {
                return new Path(rewriteDir.resolve("index-rewrite-" + next++).toUri());
            }

            @Override
            public boolean isExternalPath() {
                return false;
            }
        };
        DeletionVectorsIndexFile index =
                new DeletionVectorsIndexFile(fileIO, paths, MemorySize.ofMebiBytes(2), bitmap64);
        IndexFileMeta meta = new IndexFileMeta(DeletionVectorsIndexFile.DELETION_VECTORS_INDEX,
                indexFile.getFileName().toString(), Files.size(indexFile), ranges.size(), ranges,
                null);

        Map<String, DeletionVector> restored = index.readAllDeletionVectors(meta);
        Map<String, DeletionFile> files = new LinkedHashMap<>();
        for (DeletionVectorMeta r : ranges.values()) {
            files.put(r.dataFileName(), new DeletionFile(paths.toPath(meta).toString(), r.offset(),
                    r.length(), r.cardinality()));
        }
        Map<String, DeletionVector> bySplit = index.readDeletionVector(files);

        LinkedHashMap<String, DeletionVector> fresh = new LinkedHashMap<>();
        String output = args.length == 6 ? args[5] : null;
        try (Writer w = output == null
                ? Oracle.stdoutWriter(realOut)
                : Files.newBufferedWriter(java.nio.file.Path.of(output), StandardCharsets.UTF_8)) {
            StringBuilder sb = new StringBuilder();
            for (DeletionVectorMeta r : ranges.values()) {
                String name = r.dataFileName();
                DeletionVector dv = restored.get(name);
                if (!dv.equals(bySplit.get(name))) {
                    throw new IllegalStateException(name + ": read at its offset differs from the restore read");
                }
                Class<?> expected = bitmap64 ? Bitmap64DeletionVector.class : BitmapDeletionVector.class;
                if (dv.getClass() != expected) {
                    throw new IllegalStateException(name + ": a " + dv.getClass().getSimpleName()
                            + ", expected " + expected.getSimpleName());
                }
                if (r.cardinality() == null || r.cardinality() != dv.getCardinality()) {
                    throw new IllegalStateException(name + ": cardinality " + dv.getCardinality()
                            + ", the range says " + r.cardinality());
                }
                List<Long> positions = positions(dv);
                DeletionVector copy = bitmap64 ? new Bitmap64DeletionVector() : new BitmapDeletionVector();
                for (long p : positions) {
                    copy.delete(p);
                }
                fresh.put(name, copy);
                sb.setLength(0);
                sb.append("{\"file\":");
                RowJson.appendString(sb, name);
                sb.append(",\"positions\":[");
                for (int i = 0; i < positions.size(); i++) {
                    sb.append(i == 0 ? "" : ",").append(positions.get(i));
                }
                sb.append("]}\n");
                w.append(sb);
            }
            w.flush();
        }

        IndexFileMeta rewritten = index.writeSingleFile(fresh);
        byte[] ours = Files.readAllBytes(indexFile);
        java.nio.file.Path javaFile = rewriteDir.resolve(rewritten.fileName());
        byte[] javas = Files.readAllBytes(javaFile);
        Files.delete(javaFile);
        Files.delete(rewriteDir);
        boolean sameRanges = rewritten.fileSize() == meta.fileSize()
                && rewritten.rowCount() == meta.rowCount()
                && new ArrayList<>(rewritten.dvRanges().values()).equals(new ArrayList<>(ranges.values()));
        return "vectors " + ranges.size() + " same-bytes " + Arrays.equals(ours, javas)
                + " same-ranges " + sameRanges;
    }

    private static LinkedHashMap<String, DeletionVectorMeta> parseRanges(String file) throws Exception {
        Object parsed = Json.parse(Files.readString(java.nio.file.Path.of(file), StandardCharsets.UTF_8));
        if (!(parsed instanceof List)) {
            throw new Oracle.UsageException("dv-read: " + file + " must hold a JSON array");
        }
        LinkedHashMap<String, DeletionVectorMeta> out = new LinkedHashMap<>();
        for (Object o : (List<?>) parsed) {
            if (!(o instanceof List) || ((List<?>) o).size() != 4) {
                throw new Oracle.UsageException("dv-read: each range is [name, offset, length, cardinality]");
            }
            List<?> r = (List<?>) o;
            String name = (String) r.get(0);
            out.put(name, new DeletionVectorMeta(name, Integer.parseInt(r.get(1).toString()),
                    Integer.parseInt(r.get(2).toString()), Long.parseLong(r.get(3).toString())));
        }
        return out;
    }

    /** The deleted positions, ascending. */
    private static List<Long> positions(DeletionVector dv) throws Exception {
        List<Long> out = new ArrayList<>();
        if (dv instanceof BitmapDeletionVector) {
            ((BitmapDeletionVector) dv).get().iterator().forEachRemaining(v -> out.add((long) v));
        } else {
            // Bitmap64DeletionVector keeps its bitmap private and has no iterator of its own.
            Field f = Bitmap64DeletionVector.class.getDeclaredField("roaringBitmap");
            f.setAccessible(true);
            ((OptimizedRoaringBitmap64) f.get(dv)).forEach(out::add);
        }
        return out;
    }
}
