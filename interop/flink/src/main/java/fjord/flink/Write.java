package fjord.flink;

import fjord.oracle.Shared;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.paimon.types.DataField;

/**
 * {@code write WAREHOUSE}: creates database {@code db} and the tables of {@link Tables#specs()}
 * through Paimon's Flink catalog, then one streaming job (checkpoints every {@code interval} ms)
 * INSERTs into all of them at once, each from a {@link RoundSource}: one round per checkpoint.
 * Tables split in phases ({@link Tables.Spec#phases}) get the rounds of their first phase here;
 * {@code write WAREHOUSE --phase K} writes phase K of them into the existing tables, a new job
 * whose writers restore the table's state, deletion vectors included, from its latest snapshot.
 * A write-only phase writes with write-only = true. {@code --expected DIR}: afterwards the model's
 * rows ({@link Tables#expected}) of each table with phases go to DIR/NAME.jsonl, canonical JSON
 * lines.
 */
final class Write {
    private Write() {}

    static String write(Path warehouse, long checkpointMillis, int phase, Path expectedDir)
            throws Exception {
        StreamExecutionEnvironment env = FjordFlink.streamEnv(2);
        env.enableCheckpointing(checkpointMillis);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // the rows carry their own changes; no materialisation in front of the sink
        tEnv.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        Catalogs catalogs = new Catalogs(tEnv);
        String catalog = catalogs.catalog(warehouse);
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS " + catalog + ".db").await();
        StatementSet inserts = tEnv.createStatementSet();
        List<String> done = new ArrayList<>();
        for (Tables.Spec spec : Tables.specs()) {
            if (phase >= spec.phaseCount()) {
                continue;
            }
            String table = catalog + ".db.`" + spec.name + "`";
            if (phase == 0) {
                tEnv.executeSql(spec.createTableSql(table)).await();
            }
            List<List<Row>> rounds = Tables.rounds(spec).subList(
                    phase == 0 ? 0 : spec.roundsThrough(phase - 1), spec.roundsThrough(phase));
            List<String[]> columns = spec.columns();
            String[] names = new String[columns.size()];
            TypeInformation<?>[] types = new TypeInformation<?>[columns.size()];
            Schema.Builder schema = Schema.newBuilder();
            for (int i = 0; i < names.length; i++) {
                names[i] = columns.get(i)[0];
                DataType type = dataType(columns.get(i)[1]);
                types[i] = typeInfo(columns.get(i)[1]);
                schema.column(names[i], type);
            }
            schema.primaryKey(spec.primaryKey());
            DataStream<Row> rows = env.addSource(new RoundSource(new ArrayList<>(rounds)), "rounds-" + spec.name)
                    .returns(Types.ROW_NAMED(names, types))
                    .setParallelism(1);
            Table source = tEnv.fromChangelogStream(rows, schema.build(), ChangelogMode.all());
            tEnv.createTemporaryView("src_" + spec.name, source);
            // small write buffers: the writers share a small JVM
            String writeOnly = spec.phaseWriteOnly[phase] ? ", 'write-only' = 'true'" : "";
            inserts.addInsertSql("INSERT INTO " + table + " /*+ OPTIONS('write-buffer-size' = '4 mb', "
                    + "'page-size' = '64 kb'" + writeOnly + ") */ SELECT * FROM src_" + spec.name);
            done.add(spec.name);
        }
        inserts.execute().await();
        if (done.isEmpty()) {
            throw new IllegalArgumentException("write: no table has a phase " + phase);
        }
        if (expectedDir != null) {
            Files.createDirectories(expectedDir);
            for (Tables.Spec spec : Tables.specs()) {
                if (spec.phaseCount() > 1 && phase < spec.phaseCount()) {
                    writeExpected(warehouse.resolve("db.db").resolve(spec.name),
                            Tables.expected(spec, spec.roundsThrough(phase)),
                            expectedDir.resolve(spec.name + ".jsonl"));
                }
            }
        }
        return "wrote " + String.join(", ", done);
    }

    private static void writeExpected(Path tableDir, List<Row> rows, Path output) throws Exception {
        List<DataField> fields = Read.paimonFields(tableDir);
        StringBuilder sb = new StringBuilder();
        for (Row row : rows) {
            Shared.appendRow(sb, Read.toPaimon(row, fields), fields);
            sb.append('\n');
        }
        Files.writeString(output, sb, StandardCharsets.UTF_8);
    }

    private static DataType dataType(String sql) {
        boolean notNull = sql.endsWith(" NOT NULL");
        String base = notNull ? sql.substring(0, sql.length() - " NOT NULL".length()) : sql;
        DataType t;
        switch (base) {
            case "STRING":
                t = DataTypes.STRING();
                break;
            case "INT":
                t = DataTypes.INT();
                break;
            case "BIGINT":
                t = DataTypes.BIGINT();
                break;
            case "DOUBLE":
                t = DataTypes.DOUBLE();
                break;
            case "DECIMAL(12, 3)":
                t = DataTypes.DECIMAL(12, 3);
                break;
            case "TIMESTAMP(3)":
                t = DataTypes.TIMESTAMP(3);
                break;
            case "TIMESTAMP(6)":
                t = DataTypes.TIMESTAMP(6);
                break;
            case "DATE":
                t = DataTypes.DATE();
                break;
            default:
                throw new IllegalArgumentException("type not used by the tables: " + sql);
        }
        return notNull ? t.notNull() : t;
    }

    private static TypeInformation<?> typeInfo(String sql) {
        String base = sql.replace(" NOT NULL", "");
        switch (base) {
            case "STRING":
                return Types.STRING;
            case "INT":
                return Types.INT;
            case "BIGINT":
                return Types.LONG;
            case "DOUBLE":
                return Types.DOUBLE;
            case "DECIMAL(12, 3)":
                return Types.BIG_DEC;
            case "TIMESTAMP(3)":
            case "TIMESTAMP(6)":
                return Types.LOCAL_DATE_TIME;
            case "DATE":
                return Types.LOCAL_DATE;
            default:
                throw new IllegalArgumentException("type not used by the tables: " + sql);
        }
    }
}
