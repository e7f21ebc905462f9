package fjord.oracle;

import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;

/**
 * Java Paimon's side of `make bench` (bench/README.md): the workloads of bench/engine_fjord.cc,
 * same rows (BenchRows), same table options, one writer thread, printing the same JSON line. The
 * orchestrator measures the process (JVM start and JIT warm-up included).
 *
 * <pre>bench WORKLOAD --dir DIR [--rows N] [--keys K] [--commits C] [--block B]
 *     [--threads T] [--partitions P]</pre>
 */
final class Bench {
    private Bench() {}

    private long rows = 10_000_000L;
    private long keys = 1_000_000L;
    private long commits = 10_000L;
    private long block = 1000L;
    private int runs = 5;
    private int threads = 0;
    private long partitions = 10_000L;
    private String dir;

    static int run(String[] args, PrintStream out) throws Exception {
        if (args.length < 2) {
            throw new Oracle.UsageException("bench needs a WORKLOAD");
        }
        Bench b = new Bench();
        for (int i = 2; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--dir": b.dir = v; break;
                case "--rows": b.rows = Long.parseLong(v); break;
                case "--keys": b.keys = Long.parseLong(v); break;
                case "--commits": b.commits = Long.parseLong(v); break;
                case "--block": b.block = Long.parseLong(v); break;
                case "--runs": b.runs = Integer.parseInt(v); break;
                case "--threads": b.threads = Integer.parseInt(v); break;
                case "--partitions": b.partitions = Long.parseLong(v); break;
                default: throw new Oracle.UsageException("unknown bench option " + args[i]);
            }
        }
        if (b.dir == null) {
            throw new Oracle.UsageException("bench needs --dir DIR");
        }
        String json;
        switch (args[1]) {
            case "append-write": json = b.appendWrite(); break;
            case "read-filtered": json = b.readFiltered(); break;
            case "pk-write": json = b.pkWrite(); break;
            case "read-pk": json = b.readPk(); break;
            case "compact": json = b.compact(); break;
            case "commits": json = b.commits(); break;
            case "noop": json = b.noop(); break;
            case "plan": json = b.plan(false); break;
            case "plan-filtered": json = b.plan(true); break;
            default:
                json = b.variantWorkload(args[1]);
                if (json != null) {
                    break;
                }
                throw new Oracle.UsageException("unknown bench workload " + args[1]);
        }
        out.println(json);
        out.flush();
        return 0;
    }

    /** JVM start-up and Paimon's class loading alone: opens a catalog, writes nothing. */
    private String noop() throws Exception {
        try (Catalog c = catalog()) {
            c.listDatabases();
        }
        return "{\"rows\": 0, \"bytes\": 0}";
    }

    private Catalog catalog() {
        return CatalogFactory.createCatalog(CatalogContext.create(new Path(dir)));
    }

    /** The options engine_fjord sets too (Paimon's defaults, spelled out). */
    private static Schema.Builder columns(boolean withPartition) {
        Schema.Builder s = Schema.newBuilder();
        if (withPartition) {
            s.column("p", DataTypes.INT()).column("k", DataTypes.INT()).partitionKeys("p");
        } else {
            s.column("k", DataTypes.INT().notNull());
        }
        for (int j = 0; j < BenchRows.STRINGS; j++) {
            s.column("s" + j, DataTypes.STRING());
        }
        s.option("file.format", "parquet")
                .option("file.compression", "zstd")
                .option("file.compression.zstd-level", "1")
                .option("target-file-size", "128 mb");
        return s;
    }

    private FileStoreTable create(String name, Schema schema) throws Exception {
        try (Catalog c = catalog()) {
            c.createDatabase("bench", true);
            Identifier id = Identifier.create("bench", name);
            c.createTable(id, schema, false);
            return (FileStoreTable) c.getTable(id);
        }
    }

    private FileStoreTable open(String name) throws Exception {
        try (Catalog c = catalog()) {
            return (FileStoreTable) c.getTable(Identifier.create("bench", name));
        }
    }

    private String appendWrite() throws Exception {
        FileStoreTable table = create("append", columns(true).build());
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        List<CommitMessage> messages;
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (long i = 0; i < rows; i++) {
                write.write(BenchRows.row(i, keys, true));
            }
            messages = write.prepareCommit();
            commit.commit(messages);
        }
        return String.format("{\"rows\": %d, \"bytes\": %d}", rows, rows * BenchRows.rowBytes(true));
    }

    /** `runs` commits of rows/runs upserts through one writer, write-only (no compaction). */
    private String pkWrite() throws Exception {
        Schema.Builder s = columns(false).primaryKey("k");
        s.option("bucket", "1").option("write-buffer-spillable", "true");
        FileStoreTable table = create("pk", s.build());
        long[] counts = writeRuns(table.copy(Map.of("write-only", "true")));
        return String.format("{\"rows\": %d, \"bytes\": %d, \"files\": %d}", rows,
                rows * BenchRows.rowBytes(false), counts[0]);
    }

    /**
     * `runs` commits of rows/runs upserts through one stream writer; each prepareCommit waits for
     * the compaction it triggers (none when write-only). Returns {new files, commits that
     * compacted}.
     */
    private long[] writeRuns(FileStoreTable table) throws Exception {
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("bench");
        java.nio.file.Path spill = Files.createTempDirectory("bench-spill");
        long files = 0;
        long compactedCommits = 0;
        try (IOManager io = IOManager.create(spill.toString());
                StreamTableWrite write = builder.newWrite();
                StreamTableCommit commit = builder.newCommit()) {
            write.withIOManager(io);
            long written = 0;
            for (int c = 0; c < runs; c++) {
                long end = rows * (c + 1) / runs;
                for (; written < end; written++) {
                    write.write(BenchRows.row(written, keys, false));
                }
                List<CommitMessage> messages = write.prepareCommit(true, c);
                boolean compacted = false;
                for (CommitMessage m : messages) {
                    org.apache.paimon.table.sink.CommitMessageImpl impl =
                            (org.apache.paimon.table.sink.CommitMessageImpl) m;
                    files += impl.newFilesIncrement().newFiles().size();
                    compacted |= !impl.compactIncrement().compactBefore().isEmpty();
                }
                if (compacted) {
                    compactedCommits++;
                }
                commit.commit(c, messages);
            }
        }
        return new long[] {files, compactedCommits};
    }

    /**
     * The upsert tables whose writer compacts (not write-only), as engine_fjord's PkVariant:
     * table name and the options that set it apart from the plain primary-key table; null for
     * an unknown variant.
     */
    private static String[] variant(String name) {
        switch (name) {
            case "compacting": return new String[] {"pk_compacting"};
            case "dv": return new String[] {"pk_dv", "deletion-vectors.enabled", "true"};
            case "lookup": return new String[] {"pk_lookup", "changelog-producer", "lookup"};
            default: return null;
        }
    }

    /** pk-write-VARIANT and read-VARIANT, or null when `workload` is neither. */
    private String variantWorkload(String workload) throws Exception {
        if (workload.startsWith("pk-write-") && variant(workload.substring(9)) != null) {
            return pkWriteCompacting(variant(workload.substring(9)));
        }
        if (workload.startsWith("read-") && variant(workload.substring(5)) != null) {
            return read(open(variant(workload.substring(5))[0]), null, 0, Integer.MAX_VALUE,
                    false);
        }
        return null;
    }

    /**
     * As pkWrite, into the variant's table, with the writer's compaction: each prepareCommit
     * waits for the compaction it triggers (what `lookup-wait` makes a streaming writer of a
     * lookup table do; asked for explicitly so the plain table does the same).
     */
    private String pkWriteCompacting(String[] variant) throws Exception {
        Schema.Builder s = columns(false).primaryKey("k");
        s.option("bucket", "1").option("write-buffer-spillable", "true");
        for (int i = 1; i + 1 < variant.length; i += 2) {
            s.option(variant[i], variant[i + 1]);
        }
        long[] counts = writeRuns(create(variant[0], s.build()));
        return String.format("{\"rows\": %d, \"bytes\": %d, \"files\": %d, "
                        + "\"compacted_commits\": %d}", rows, rows * BenchRows.rowBytes(false),
                counts[0], counts[1]);
    }

    private String read(FileStoreTable table, Predicate filter, int keyPos, int keyBelow,
            boolean withPartition) throws Exception {
        ReadBuilder rb = table.newReadBuilder();
        if (filter != null) {
            rb = rb.withFilter(filter);
        }
        List<Split> splits = rb.newScan().plan().splits();
        long files = 0;
        for (Split s : splits) {
            files += ((DataSplit) s).dataFiles().size();
        }
        BenchRows.Checksum sum = new BenchRows.Checksum();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            // The filter prunes files and row groups; rows outside it may remain, so it is applied
            // to each row too (as Fjord's read does).
            reader.forEachRemaining(row -> {
                if (withPartition && (row.getInt(0) != 3 || row.getInt(keyPos) >= keyBelow)) {
                    return;
                }
                sum.add(row, keyPos);
            });
        }
        return String.format("{\"rows\": %d, \"bytes\": %d, \"checksum\": \"%s\", \"files\": %d}",
                sum.rows, sum.rows * BenchRows.rowBytes(withPartition), sum.hex(), files);
    }

    private String readFiltered() throws Exception {
        FileStoreTable table = open("append");
        PredicateBuilder pb = new PredicateBuilder(table.rowType());
        int keyBelow = (int) (keys / 10);
        Predicate filter = PredicateBuilder.and(pb.equal(0, 3), pb.lessThan(1, keyBelow));
        return read(table, filter, 1, keyBelow, true);
    }

    /**
     * Plans a read of engine_fjord's planning table (plan-setup): all of it, or the one partition
     * engine_fjord's plan-filtered picks. Reads nothing. --threads sets scan.manifest.parallelism.
     */
    private String plan(boolean onePartition) throws Exception {
        FileStoreTable table = open("plan");
        if (threads > 0) {
            table = table.copy(Map.of("scan.manifest.parallelism", String.valueOf(threads)));
        }
        ReadBuilder rb = table.newReadBuilder();
        if (onePartition) {
            rb = rb.withFilter(new PredicateBuilder(table.rowType())
                    .equal(0, (int) (partitions / 2 + 1)));
        }
        long files = 0;
        long planned = 0;
        long start = System.nanoTime();
        List<Split> splits = rb.newScan().plan().splits();
        double seconds = (System.nanoTime() - start) / 1e9;
        // Once more in the same JVM: the plan of a long-running engine (classes loaded, JIT warm).
        start = System.nanoTime();
        rb.newScan().plan();
        double again = (System.nanoTime() - start) / 1e9;
        for (Split s : splits) {
            for (org.apache.paimon.io.DataFileMeta f : ((DataSplit) s).dataFiles()) {
                files++;
                planned += f.rowCount();
            }
        }
        return String.format(java.util.Locale.ROOT,
                "{\"rows\": %d, \"bytes\": 0, \"files\": %d, \"splits\": %d, \"plan_s\": %.4f, "
                        + "\"plan_again_s\": %.4f}",
                planned, files, splits.size(), seconds, again);
    }

    private String readPk() throws Exception {
        return read(open("pk"), null, 0, Integer.MAX_VALUE, false);
    }

    /** Full compaction of the upsert table's one bucket, committed. */
    private String compact() throws Exception {
        FileStoreTable table = open("pk");
        long rowsIn = 0;
        long filesIn = 0;
        for (Split s : table.newReadBuilder().newScan().plan().splits()) {
            for (org.apache.paimon.io.DataFileMeta f : ((DataSplit) s).dataFiles()) {
                rowsIn += f.rowCount();
                filesIn++;
            }
        }
        table = table.copy(Map.of("write-only", "false"));
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        long filesOut = 0;
        java.nio.file.Path spill = Files.createTempDirectory("bench-spill");
        try (IOManager io = IOManager.create(spill.toString());
                BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(io);
            write.compact(BinaryRow.EMPTY_ROW, 0, true);
            List<CommitMessage> messages = write.prepareCommit();
            for (CommitMessage m : messages) {
                filesOut += ((org.apache.paimon.table.sink.CommitMessageImpl) m)
                        .compactIncrement().compactAfter().size();
            }
            commit.commit(messages);
        }
        return String.format(
                "{\"rows\": %d, \"bytes\": %d, \"files_in\": %d, \"files_out\": %d}", rowsIn,
                rowsIn * BenchRows.rowBytes(false), filesIn, filesOut);
    }

    private static double percentile(List<Double> v, double q) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        int i = (int) (q * (a.length - 1) + 0.5);
        return a[Math.min(i, a.length - 1)];
    }

    /**
     * `commits` commits of 3 rows (one data file) to an unpartitioned append table, write-only (no
     * snapshot expiration: Fjord runs none either); only the commit call is timed.
     */
    private String commits() throws Exception {
        FileStoreTable table = create("commits", columns(false).build());
        table = table.copy(Map.of("write-only", "true"));
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("bench");
        List<Double> blockMs = new ArrayList<>();
        StringBuilder blocks = new StringBuilder();
        double total = 0;
        try (StreamTableWrite write = builder.newWrite();
                StreamTableCommit commit = builder.newCommit()) {
            for (long c = 0; c < commits; c++) {
                for (long r = 0; r < 3; r++) {
                    write.write(BenchRows.row(3 * c + r, keys, false));
                }
                List<CommitMessage> messages = write.prepareCommit(false, c);
                long t0 = System.nanoTime();
                commit.commit(c, messages);
                double ms = (System.nanoTime() - t0) / 1e6;
                total += ms;
                blockMs.add(ms);
                if (blockMs.size() == block || c + 1 == commits) {
                    blocks.append(blocks.length() == 0 ? "" : ", ")
                            .append(String.format("[%d, %.3f, %.3f]", c + 1,
                                    percentile(blockMs, 0.5), percentile(blockMs, 0.99)));
                    blockMs.clear();
                }
            }
        }
        return String.format("{\"rows\": %d, \"bytes\": %d, \"commits\": %d, "
                        + "\"commit_ms_total\": %.3f, \"blocks\": [%s]}",
                3 * commits, 3 * commits * BenchRows.rowBytes(false), commits, total, blocks);
    }
}
