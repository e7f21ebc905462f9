package fjord.flink;

import fjord.oracle.Shared;
import java.io.IOException;
import java.io.Writer;
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
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
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
    private TableEnvironment batch;
    private Catalogs batchCatalogs;

    Read() {
        streaming = StreamTableEnvironment.create(FjordFlink.streamEnv(2));
        streamingCatalogs = new Catalogs(streaming);
    }

    /** Options of a tail: the table hints, and when to stop. */
    static final class TailOptions {
        final Map<String, String> hints = new LinkedHashMap<>();
        long idleMillis = 1500;
        long firstRowMillis = 60_000;
    }

    /**
     * {@code tail TABLE}: {@code SELECT * FROM t /*+ OPTIONS(hints) *\/} in streaming mode, every
     * change collected until none came for {@code idleMillis} (after the first one). One JSON line
     * per change, {@code "_row_kind"} first. Returns a summary: the count of changes and whether
     * the plan normalises the changelog (ChangelogNormalize).
     */
    String tail(Path tableDir, TailOptions options, Writer out) throws Exception {
        String table = streamingCatalogs.qualified(tableDir);
        Map<String, String> hints = new LinkedHashMap<>();
        // find new snapshots quickly (Paimon's default is 10 s)
        hints.put("continuous.discovery-interval", "100 ms");
        hints.putAll(options.hints);
        StringBuilder q = new StringBuilder("SELECT * FROM ").append(table).append(" /*+ OPTIONS(");
        boolean first = true;
        for (Map.Entry<String, String> e : hints.entrySet()) {
            q.append(first ? "" : ", ").append(Tables.quote(e.getKey())).append(" = ").append(Tables.quote(e.getValue()));
            first = false;
        }
        q.append(") */");
        String plan = streaming.explainSql(q.toString());
        boolean normalize = plan.contains("ChangelogNormalize");
        List<DataField> fields = paimonFields(tableDir);

        TableResult result = streaming.executeSql(q.toString());
        LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        Object end = new Object();
        CloseableIterator<Row> it = result.collect();
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
        List<Row> rows = new ArrayList<>();
        Throwable failure = null;
        long wait = options.firstRowMillis;
        while (true) {
            Object o = queue.poll(wait, TimeUnit.MILLISECONDS);
            if (o == null || o == end) {
                break;
            }
            if (o instanceof Throwable) {
                failure = (Throwable) o;
                break;
            }
            rows.add((Row) o);
            wait = options.idleMillis;
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
        StringBuilder sb = new StringBuilder(256);
        for (Row row : rows) {
            sb.setLength(0);
            sb.append("{\"_row_kind\":\"").append(row.getKind().shortString()).append('"');
            StringBuilder body = new StringBuilder(256);
            Shared.appendRow(body, toPaimon(row, fields), fields);
            if (body.length() > 2) {
                sb.append(',').append(body, 1, body.length());
            } else {
                sb.append('}');
            }
            out.append(sb).append('\n');
        }
        return rows.size() + " changes" + (normalize ? "; plan has ChangelogNormalize" : "");
    }

    /**
     * {@code read TABLE}: {@code SELECT *} in batch mode, one canonical JSON line per row (no row
     * kind: Flink returns +I, or +U where the key's latest record was an update).
     */
    String read(Path tableDir, Writer out) throws Exception {
        if (batch == null) {
            StreamExecutionEnvironment env = FjordFlink.streamEnv(2);
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
            batch = StreamTableEnvironment.create(env);
            batchCatalogs = new Catalogs(batch);
        }
        List<DataField> fields = paimonFields(tableDir);
        int n = 0;
        int updateAfter = 0;
        StringBuilder sb = new StringBuilder(256);
        try (CloseableIterator<Row> it = batch.executeSql("SELECT * FROM " + batchCatalogs.qualified(tableDir)).collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                // the latest record of a key keeps its kind: +I or +U (never a retraction)
                if (row.getKind() == org.apache.flink.types.RowKind.UPDATE_AFTER) {
                    updateAfter++;
                } else if (row.getKind() != org.apache.flink.types.RowKind.INSERT) {
                    throw new IllegalStateException("batch read returned a " + row.getKind() + " row");
                }
                sb.setLength(0);
                Shared.appendRow(sb, toPaimon(row, fields), fields);
                out.append(sb).append('\n');
                n++;
            }
        }
        return n + " rows (" + updateAfter + " of them +U)";
    }

    private static List<DataField> paimonFields(Path tableDir) {
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

    static Writer open(Path output) throws IOException {
        return Files.newBufferedWriter(output, StandardCharsets.UTF_8);
    }
}
