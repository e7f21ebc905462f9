package fjord.flink;

import fjord.oracle.Shared;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;

/**
 * Flink's reads of a Paimon table through SQL: {@code tail} (the streaming source, every change
 * with its row kind) and {@code read} (the batch source, the rows of the latest snapshot). Rows are
 * turned back into Paimon rows of the table's own row type and printed in the canonical form.
 */
final class Read {
    private final StreamTableEnvironment streaming;
    private final Catalogs streamingCatalogs;
    private StreamTableEnvironment batch;
    private Catalogs batchCatalogs;

    Read() {
        streaming = StreamTableEnvironment.create(FjordFlink.streamEnv(2));
        streamingCatalogs = new Catalogs(streaming);
    }

    /** One streaming read: the table, its hints (Paimon scan options), the output file. */
    static final class TailSpec {
        final Path table;
        final Map<String, String> hints = new LinkedHashMap<>();
        Path output;

        TailSpec(Path table) {
            this.table = table;
        }
    }

    /** One batch read: the table, its hints (e.g. scan.snapshot-id), the output file. */
    static final class ReadSpec {
        final Path table;
        final Map<String, String> hints = new LinkedHashMap<>();
        Path output;

        ReadSpec(Path table) {
            this.table = table;
        }
    }

    /** When a streaming read stops: no change for idleMillis after the first one. */
    static final class Quiet {
        long idleMillis = 2000;
        long firstRowMillis = 60_000;
    }

    /** A Flink row as "TAG<tab>canonical JSON" (with "_row_kind" first when withKind). */
    private static final class ToJson implements MapFunction<Row, String> {
        private static final long serialVersionUID = 1L;
        private final int tag;
        private final boolean withKind;
        private final List<DataField> fields;

        ToJson(int tag, boolean withKind, List<DataField> fields) {
            this.tag = tag;
            this.withKind = withKind;
            this.fields = fields;
        }

        @Override
        public String map(Row row) {
            StringBuilder body = new StringBuilder(256);
            Shared.appendRow(body, toPaimon(row, fields), fields);
            StringBuilder sb = new StringBuilder(body.length() + 32).append(tag).append('\t');
            if (!withKind) {
                if (row.getKind() != RowKind.INSERT && row.getKind() != RowKind.UPDATE_AFTER) {
                    throw new IllegalStateException("batch read returned a " + row.getKind() + " row");
                }
                return sb.append(body).toString();
            }
            sb.append("{\"_row_kind\":\"").append(row.getKind().shortString()).append('"');
            return body.length() > 2 ? sb.append(',').append(body, 1, body.length()).toString()
                    : sb.append('}').toString();
        }
    }

    private String tailQuery(TailSpec spec) {
        Map<String, String> hints = new LinkedHashMap<>();
        // find new snapshots quickly (Paimon's default is 10 s)
        hints.put("continuous.discovery-interval", "100 ms");
        hints.putAll(spec.hints);
        return query(streamingCatalogs.qualified(spec.table), hints);
    }

    private static String query(String table, Map<String, String> hints) {
        StringBuilder q = new StringBuilder("SELECT * FROM ").append(table);
        if (hints.isEmpty()) {
            return q.toString();
        }
        q.append(" /*+ OPTIONS(");
        boolean first = true;
        for (Map.Entry<String, String> e : hints.entrySet()) {
            q.append(first ? "" : ", ").append(Tables.quote(e.getKey())).append(" = ")
                    .append(Tables.quote(e.getValue()));
            first = false;
        }
        return q.append(") */").toString();
    }

    /**
     * {@code tail}: for each spec {@code SELECT * FROM t /*+ OPTIONS(hints) *\/} in streaming mode,
     * all of them in one Flink job, every change collected until none came for
     * {@code quiet.idleMillis} (after the first one); then the job is cancelled. One JSON line per
     * change, {@code "_row_kind"} first, in each spec's output. Returns a summary per spec: the
     * count of changes and whether its plan normalises the changelog (ChangelogNormalize).
     */
    String tail(List<TailSpec> specs, Quiet quiet) throws Exception {
        DataStream<String> all = null;
        List<String> notes = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            TailSpec spec = specs.get(i);
            String q = tailQuery(spec);
            notes.add(streaming.explainSql(q).contains("ChangelogNormalize") ? "; plan has ChangelogNormalize" : "");
            DataStream<String> lines = streaming.toChangelogStream(streaming.sqlQuery(q))
                    .map(new ToJson(i, true, paimonFields(spec.table))).returns(Types.STRING);
            all = all == null ? lines : all.union(lines);
        }
        LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        Object end = new Object();
        CloseableIterator<String> it = all.executeAndCollect("fjord-flink tail");
        Thread pump = new Thread(() -> {
            try {
                while (it.hasNext()) {
                    queue.put(it.next());
                }
            } catch (Throwable t) {
                queue.add(t);
            }
            queue.add(end);
        }, "tail-collect");
        pump.setDaemon(true);
        pump.start();
        List<String> lines = new ArrayList<>();
        Throwable failure = null;
        long wait = quiet.firstRowMillis;
        while (true) {
            Object o = queue.poll(wait, TimeUnit.MILLISECONDS);
            if (o == null || o == end) {
                break;
            }
            if (o instanceof Throwable) {
                failure = (Throwable) o;
                break;
            }
            lines.add((String) o);
            wait = quiet.idleMillis;
        }
        try {
            it.close(); // cancels the job
        } catch (Exception ignored) {
            // the job may already be gone
        }
        pump.join(30_000);
        if (failure != null) {
            throw new RuntimeException("streaming read failed", failure);
        }
        int[] counts = demux(lines, specs.size(), i -> specs.get(i).output);
        StringBuilder summary = new StringBuilder();
        for (int i = 0; i < specs.size(); i++) {
            summary.append(i == 0 ? "" : "\n").append(counts[i]).append(" changes").append(notes.get(i));
        }
        return summary.toString();
    }

    /**
     * {@code read}: for each spec {@code SELECT *} (with its hints) in batch mode, all in one Flink job; one
     * canonical JSON line per row (no row kind: Flink returns +I, or +U where the key's latest
     * record was an update; anything else is an error). Returns the row count per spec.
     */
    String read(List<ReadSpec> specs) throws Exception {
        if (batch == null) {
            StreamExecutionEnvironment env = FjordFlink.streamEnv(2);
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
            batch = StreamTableEnvironment.create(env);
            batchCatalogs = new Catalogs(batch);
        }
        DataStream<String> all = null;
        for (int i = 0; i < specs.size(); i++) {
            ReadSpec spec = specs.get(i);
            DataStream<String> lines = batch.toChangelogStream(
                            batch.sqlQuery(query(batchCatalogs.qualified(spec.table), spec.hints)))
                    .map(new ToJson(i, false, paimonFields(spec.table))).returns(Types.STRING);
            all = all == null ? lines : all.union(lines);
        }
        List<String> lines = new ArrayList<>();
        try (CloseableIterator<String> it = all.executeAndCollect("fjord-flink read")) {
            it.forEachRemaining(lines::add);
        }
        int[] counts = demux(lines, specs.size(), i -> specs.get(i).output);
        StringBuilder summary = new StringBuilder();
        for (int i = 0; i < specs.size(); i++) {
            summary.append(i == 0 ? "" : "\n").append(counts[i]).append(" rows");
        }
        return summary.toString();
    }

    /** Writes each "TAG<tab>line" to the output of its tag, in the order received. */
    private static int[] demux(List<String> lines, int n, java.util.function.IntFunction<Path> output)
            throws IOException {
        List<StringBuilder> outs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            outs.add(new StringBuilder());
        }
        int[] counts = new int[n];
        for (String line : lines) {
            int tab = line.indexOf('\t');
            int tag = Integer.parseInt(line.substring(0, tab));
            outs.get(tag).append(line, tab + 1, line.length()).append('\n');
            counts[tag]++;
        }
        for (int i = 0; i < n; i++) {
            Files.writeString(output.apply(i), outs.get(i), StandardCharsets.UTF_8);
        }
        return counts;
    }

    static List<DataField> paimonFields(Path tableDir) {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(),
                new org.apache.paimon.fs.Path(tableDir.toAbsolutePath().toString()));
        return t.rowType().getFields();
    }

    /** A Flink row (external Java objects) as a Paimon row of the given fields. */
    static GenericRow toPaimon(Row row, List<DataField> fields) {
        if (row.getArity() != fields.size()) {
            throw new IllegalStateException("row has " + row.getArity() + " fields, table " + fields.size());
        }
        GenericRow g = new GenericRow(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            g.setField(i, toPaimon(row.getField(i), fields.get(i).type()));
        }
        return g;
    }

    private static Object toPaimon(Object v, DataType type) {
        if (v == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case BINARY:
            case VARBINARY:
                return v;
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString((String) v);
            case DECIMAL: {
                DecimalType dt = (DecimalType) type;
                return Decimal.fromBigDecimal((BigDecimal) v, dt.getPrecision(), dt.getScale());
            }
            case DATE:
                return (int) ((LocalDate) v).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (((LocalTime) v).toNanoOfDay() / 1_000_000);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return Timestamp.fromLocalDateTime((LocalDateTime) v);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Timestamp.fromInstant((Instant) v);
            case ARRAY: {
                Object[] in = (Object[]) v;
                Object[] a = new Object[in.length];
                for (int i = 0; i < in.length; i++) {
                    a[i] = toPaimon(in[i], ((ArrayType) type).getElementType());
                }
                return new GenericArray(a);
            }
            case MAP:
            case MULTISET: {
                DataType kt = type instanceof MapType ? ((MapType) type).getKeyType() : ((MultisetType) type).getElementType();
                DataType vt = type instanceof MapType ? ((MapType) type).getValueType() : new org.apache.paimon.types.IntType();
                Map<Object, Object> m = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    m.put(toPaimon(e.getKey(), kt), toPaimon(e.getValue(), vt));
                }
                return new GenericMap(m);
            }
            case ROW:
                return toPaimon((Row) v, ((RowType) type).getFields());
            default:
                throw new UnsupportedOperationException("type not supported by fjord-flink: " + type);
        }
    }

}
