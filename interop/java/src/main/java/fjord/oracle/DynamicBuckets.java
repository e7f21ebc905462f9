package fjord.oracle;

import java.io.IOException;
import java.io.Writer;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;

/**
 * Dynamic-bucket (bucket = -1) primary-key tables: the bucket assigner a one-task Flink job uses
 * (so that `write` can write them), and `buckets`, which lists every live row with the bucket it
 * lives in and whether its key hash is in that bucket's HASH index file.
 */
final class DynamicBuckets {
    private DynamicBuckets() {}

    static boolean isDynamic(FileStoreTable table) {
        return table.bucketMode() == BucketMode.HASH_DYNAMIC;
    }

    /**
     * The assigner of Flink's DynamicBucketSink with one assigner task: HashBucketAssigner over
     * the table's hash index, or SimpleHashBucketAssigner (a fresh index) for an overwrite.
     */
    static BucketAssigner assigner(FileStoreTable table, String commitUser, boolean overwrite) {
        long target = table.coreOptions().dynamicBucketTargetRowNum();
        Integer max = table.coreOptions().dynamicBucketMaxBuckets();
        int maxBuckets = max == null ? -1 : max;
        if (overwrite) {
            return new SimpleHashBucketAssigner(1, 0, target, maxBuckets);
        }
        return new HashBucketAssigner(
                table.snapshotManager(),
                commitUser,
                table.store().newIndexFileHandler(),
                1,
                1,
                0,
                target,
                maxBuckets);
    }

    /**
     * One JSON line per live row of the latest snapshot, reading each (partition, bucket) on its
     * own: {"partition": base64, "bucket": N, "indexed": true|false, "row": {...}}. "indexed"
     * tells whether the hash of the row's trimmed primary key is in the bucket's HASH index file.
     */
    static int buckets(FileStoreTable table, Writer out) throws IOException {
        IndexFileHandler handler = table.store().newIndexFileHandler();
        Map<String, Set<Integer>> index = new HashMap<>();
        for (IndexManifestEntry e : handler.scan("HASH")) {
            List<Integer> hashes =
                    handler.hashIndex(e.partition(), e.bucket()).readList(e.indexFile());
            Set<Integer> set =
                    index.computeIfAbsent(key(e.partition(), e.bucket()), k -> new HashSet<>());
            set.addAll(hashes);
        }
        RowKeyExtractor extractor = table.createRowKeyExtractor();
        ReadBuilder rb = table.newReadBuilder();
        List<DataField> fields = rb.readType().getFields();
        return eachLiveRow(
                rb,
                out,
                (ds, row, line) -> {
                    Set<Integer> hashes =
                            index.getOrDefault(key(ds.partition(), ds.bucket()), Set.of());
                    extractor.setRecord(row);
                    boolean indexed = hashes.contains(extractor.trimmedPrimaryKey().hashCode());
                    line.append("{\"partition\":");
                    RowJson.appendString(
                            line, Base64.getEncoder().encodeToString(ds.partition().toBytes()));
                    line.append(",\"bucket\":").append(ds.bucket());
                    line.append(",\"indexed\":").append(indexed);
                    line.append(",\"row\":");
                    RowJson.appendRow(line, row, fields);
                    line.append('}');
                });
    }

    /** What one live row of a split prints (one JSON line, without the newline). */
    interface RowLine {
        void append(DataSplit split, InternalRow row, StringBuilder line);
    }

    /**
     * Reads each split of the latest snapshot on its own and writes one line per live row (+I,
     * +U) as `line` builds it. Returns the number of rows.
     */
    static int eachLiveRow(ReadBuilder rb, Writer out, RowLine line) throws IOException {
        StringBuilder sb = new StringBuilder(256);
        int[] rows = new int[1];
        for (Split split : rb.newScan().plan().splits()) {
            DataSplit ds = (DataSplit) split;
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(ds)) {
                reader.forEachRemaining(
                        row -> {
                            RowKind kind = row.getRowKind();
                            if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
                                return;
                            }
                            sb.setLength(0);
                            line.append(ds, row, sb);
                            sb.append('\n');
                            rows[0]++;
                            try {
                                out.append(sb);
                            } catch (IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
            }
        }
        return rows[0];
    }

    private static String key(BinaryRow partition, int bucket) {
        return Base64.getEncoder().encodeToString(partition.toBytes()) + "/" + bucket;
    }
}
