package fjord.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.tag.TagBatchCreation;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.Pair;

/** The oracle's write side: `write` (Java's batch writer) and `files` (live data file metadata). */
final class Writes {
    private Writes() {}

    /**
     * Parses every row of a canonical JSON-lines file into the table's row type, then writes and
     * commits them all with Java Paimon's batch writer in one commit. Returns a one-line summary.
     * Nothing is committed when any line fails to parse (the error names the line). With
     * fullCompact, every bucket written is fully compacted before the commit (TableWrite#compact,
     * which Java's API leaves to its user: Flink's sink does it for the full-compaction changelog
     * producer), so the commit adds an APPEND and a COMPACT snapshot.
     */
    static String write(
            FileStoreTable table,
            Path input,
            String commitUser,
            String overwrite,
            boolean fullCompact)
            throws Exception {
        RowType type = table.rowType();
        List<GenericRow> rows = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
            String line;
            int lineNo = 0;
            while ((line = r.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    rows.add(JsonRows.parseRow(line, type));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(input + ":" + lineNo + ": " + e.getMessage());
                }
            }
        }
        Map<String, String> dynamic = new HashMap<>();
        if (commitUser != null) {
            // BatchWriteBuilder names its commit user "<commit.user-prefix>_<uuid>".
            dynamic.put(CoreOptions.COMMIT_USER_PREFIX.key(), commitUser);
        }
        Map<String, String> staticPartition = null;
        if (overwrite != null) {
            staticPartition = new LinkedHashMap<>();
            if (overwrite.equals("table")) {
                dynamic.put(CoreOptions.DYNAMIC_PARTITION_OVERWRITE.key(), "false");
            } else if (!overwrite.equals("dynamic")) {
                dynamic.put(CoreOptions.DYNAMIC_PARTITION_OVERWRITE.key(), "false");
                for (String kv : overwrite.split(",")) {
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException(
                                "--overwrite takes dynamic, table or k=v[,k=v...], got " + overwrite);
                    }
                    staticPartition.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        FileStoreTable t = dynamic.isEmpty() ? table : table.copy(dynamic);
        BatchWriteBuilder builder = t.newBatchWriteBuilder();
        if (staticPartition != null) {
            builder = builder.withOverwrite(staticPartition);
        }
        Set<Pair<BinaryRow, Integer>> written = new LinkedHashSet<>();
        // Lookup compaction (deletion vectors, changelog-producer = lookup, first-row) needs a
        // local directory for its lookup files, as a Flink task manager gives it. Only those
        // tables get one: with it, Java's append writer numbers its files differently.
        Path spill = Files.createTempDirectory("fjord-oracle-io");
        try (IOManager io = IOManager.create(spill.toString());
                BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            if (t.coreOptions().needLookup()) {
                write.withIOManager(io);
            }
            if (DynamicBuckets.isDynamic(t)) {
                // Java's table writer cannot pick a dynamic bucket itself: assign as a one-task
                // Flink job does, by the hash of the trimmed primary key.
                BucketAssigner assigner =
                        DynamicBuckets.assigner(t, "fjord-oracle", staticPartition != null);
                RowKeyExtractor extractor = t.createRowKeyExtractor();
                for (GenericRow row : rows) {
                    extractor.setRecord(row);
                    int bucket =
                            assigner.assign(
                                    extractor.partition(),
                                    extractor.trimmedPrimaryKey().hashCode());
                    write.write(row, bucket);
                    written.add(Pair.of(extractor.partition().copy(), bucket));
                }
            } else {
                RowKeyExtractor extractor = t.createRowKeyExtractor();
                for (GenericRow row : rows) {
                    write.write(row);
                    if (fullCompact) {
                        extractor.setRecord(row);
                        written.add(Pair.of(extractor.partition().copy(), extractor.bucket()));
                    }
                }
            }
            if (fullCompact) {
                for (Pair<BinaryRow, Integer> b : written) {
                    write.compact(b.getLeft(), b.getRight(), true);
                }
            }
            List<CommitMessage> messages = write.prepareCommit();
            commit.commit(messages);
        } finally {
            try (var files = Files.walk(spill)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        // The end of a batch job: with tag.automatic-creation = batch, Java's TagBatchCreation
        // tags the latest snapshot, as Flink's batch sink does when the job finishes and Spark
        // after a write (compat.java_tags).
        if (table.coreOptions().tagCreationMode() == CoreOptions.TagCreationMode.BATCH) {
            new TagBatchCreation(table).createTag();
        }
        Long snapshot = table.snapshotManager().latestSnapshotIdFromFileSystem();
        return (overwrite == null ? "committed " : "overwrote with ") + rows.size()
                + " rows as snapshot " + snapshot;
    }

    /**
     * One JSON line per live data file at the given time-travel point (options as for dump):
     * partition (base64 of its BinaryRow bytes, to group by), bucket, level, file name, row count
     * and sequence number range; sorted by partition, bucket, min sequence number, file name.
     */
    static int files(FileStoreTable table, Map<String, String> options, Writer out)
            throws IOException {
        FileStoreTable t = options.isEmpty() ? table : table.copy(options);
        List<Object[]> entries = new ArrayList<>();
        for (Split split : t.newReadBuilder().newScan().plan().splits()) {
            if (!(split instanceof DataSplit)) {
                throw new IllegalStateException("unexpected split type " + split.getClass());
            }
            DataSplit ds = (DataSplit) split;
            String partition = Base64.getEncoder().encodeToString(ds.partition().toBytes());
            for (DataFileMeta f : ds.dataFiles()) {
                entries.add(new Object[] {partition, ds.bucket(), f});
            }
        }
        entries.sort(Comparator.<Object[], String>comparing(e -> (String) e[0])
                .thenComparing(e -> (Integer) e[1])
                .thenComparing(e -> ((DataFileMeta) e[2]).minSequenceNumber())
                .thenComparing(e -> ((DataFileMeta) e[2]).fileName()));
        StringBuilder sb = new StringBuilder();
        for (Object[] e : entries) {
            DataFileMeta f = (DataFileMeta) e[2];
            sb.setLength(0);
            sb.append("{\"partition\":");
            RowJson.appendString(sb, (String) e[0]);
            sb.append(",\"bucket\":").append(e[1]);
            sb.append(",\"level\":").append(f.level());
            sb.append(",\"file\":");
            RowJson.appendString(sb, f.fileName());
            sb.append(",\"rows\":").append(f.rowCount());
            sb.append(",\"min_seq\":").append(f.minSequenceNumber());
            sb.append(",\"max_seq\":").append(f.maxSequenceNumber());
            sb.append("}\n");
            out.append(sb);
        }
        return entries.size();
    }
}
