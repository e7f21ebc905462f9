package fjord.oracle;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;

/**
 * Bucket rescale the way Java Paimon documents it (maintenance/rescale-bucket), for the
 * compat.java_rescale test:
 *
 * <ul>
 *   <li>{@code rescale TABLE_DIR --buckets N [--partition k=v,...]}: ALTER TABLE SET ('bucket' =
 *       N) through SchemaManager, then INSERT OVERWRITE of the partition (or of every partition)
 *       with the rows Java reads from it, through Java's batch writer;
 *   <li>{@code write-bucket TABLE_DIR --input ROWS.jsonl --bucket N}: Java's batch writer with
 *       'bucket' = N as a dynamic option (a writer still using an old count); its error, if any,
 *       is the command's failure;
 *   <li>{@code bucket-check TABLE_DIR}: one JSON line per live row: partition, bucket, the
 *       split's total buckets, the bucket Java's writer computes for the row under that count, and
 *       the row.
 * </ul>
 */
final class Rescale {
    private Rescale() {}

    static String rescale(FileStoreTable table, int buckets, String partition) throws Exception {
        new SchemaManager(table.fileIO(), table.location())
                .commitChanges(SchemaChange.setOption(CoreOptions.BUCKET.key(), String.valueOf(buckets)));
        FileStoreTable altered = Oracle.openTable(table.location().toUri().getPath());
        Map<String, String> spec = new LinkedHashMap<>();
        if (partition != null && !partition.isEmpty()) {
            for (String kv : partition.split(",")) {
                int eq = kv.indexOf('=');
                spec.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        ReadBuilder rb = altered.newReadBuilder();
        if (!spec.isEmpty()) {
            rb = rb.withPartitionFilter(spec);
        }
        List<InternalRow> rows = new ArrayList<>();
        List<Split> splits = rb.newScan().plan().splits();
        org.apache.paimon.data.serializer.InternalRowSerializer ser =
                new org.apache.paimon.data.serializer.InternalRowSerializer(altered.rowType());
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            reader.forEachRemaining(
                    row -> {
                        if (row.getRowKind() == RowKind.INSERT
                                || row.getRowKind() == RowKind.UPDATE_AFTER) {
                            InternalRow copy = ser.copy(row);
                            copy.setRowKind(RowKind.INSERT);
                            rows.add(copy);
                        }
                    });
        }
        BatchWriteBuilder builder = altered.newBatchWriteBuilder().withOverwrite(spec);
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (InternalRow row : rows) {
                write.write(row);
            }
            List<CommitMessage> messages = write.prepareCommit();
            commit.commit(messages);
        }
        return "rescaled to " + buckets + " buckets: " + rows.size() + " rows, snapshot "
                + altered.snapshotManager().latestSnapshotIdFromFileSystem();
    }

    static String writeWithBucket(FileStoreTable table, Path input, int bucket) throws Exception {
        Map<String, String> dynamic = new HashMap<>();
        dynamic.put(CoreOptions.BUCKET.key(), String.valueOf(bucket));
        return Writes.write(table.copy(dynamic), input, null, null, false);
    }

    static int bucketCheck(FileStoreTable table, Writer out) throws IOException {
        ReadBuilder rb = table.newReadBuilder();
        List<DataField> fields = rb.readType().getFields();
        Map<Integer, RowKeyExtractor> extractors = new HashMap<>();
        return DynamicBuckets.eachLiveRow(
                rb,
                out,
                (ds, row, line) -> {
                    int total = ds.totalBuckets() == null ? -1 : ds.totalBuckets();
                    RowKeyExtractor extractor =
                            extractors.computeIfAbsent(
                                    total,
                                    t -> {
                                        Map<String, String> o = new HashMap<>();
                                        o.put(CoreOptions.BUCKET.key(), String.valueOf(t));
                                        return table.copy(o).createRowKeyExtractor();
                                    });
                    extractor.setRecord(row);
                    line.append("{\"partition\":");
                    RowJson.appendString(
                            line, Base64.getEncoder().encodeToString(ds.partition().toBytes()));
                    line.append(",\"bucket\":").append(ds.bucket());
                    line.append(",\"total\":").append(total);
                    line.append(",\"expected\":").append(extractor.bucket());
                    line.append(",\"row\":");
                    RowJson.appendRow(line, row, fields);
                    line.append('}');
                });
    }

    /** The three commands; flags as in the class comment, plus --output FILE. */
    static String command(String[] args) throws Exception {
        String cmd = args[0];
        if (args.length < 2 || args[1].startsWith("--")) {
            throw new Oracle.UsageException(cmd + " needs a TABLE_DIR");
        }
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new Oracle.UsageException("option " + args[i] + " needs a value");
            }
            flags.put(args[i], args[i + 1]);
        }
        List<String> allowed =
                cmd.equals("rescale") ? List.of("--buckets", "--partition", "--output")
                        : cmd.equals("write-bucket") ? List.of("--input", "--bucket", "--output")
                        : List.of("--output");
        for (String flag : flags.keySet()) {
            if (!allowed.contains(flag)) {
                throw new Oracle.UsageException("unknown option for " + cmd + ": " + flag);
            }
        }
        FileStoreTable table = Oracle.openTable(args[1]);
        String message;
        switch (cmd) {
            case "rescale":
                message = rescale(table, Integer.parseInt(flags.get("--buckets")), flags.get("--partition"));
                break;
            case "write-bucket":
                message = writeWithBucket(
                        table, Path.of(flags.get("--input")), Integer.parseInt(flags.get("--bucket")));
                break;
            default: {
                String output = flags.get("--output");
                if (output == null) {
                    throw new Oracle.UsageException("bucket-check needs --output FILE");
                }
                try (Writer w = Files.newBufferedWriter(Path.of(output), StandardCharsets.UTF_8)) {
                    message = bucketCheck(table, w) + " rows";
                }
                return message;
            }
        }
        String output = flags.get("--output");
        if (output != null) {
            Files.writeString(Path.of(output), message + "\n", StandardCharsets.UTF_8);
        }
        return message;
    }
}
