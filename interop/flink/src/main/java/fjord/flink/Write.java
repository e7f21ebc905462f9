package fjord.flink;

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

/**
 * {@code write WAREHOUSE}: creates database {@code db} and the tables of {@link Tables#specs()}
 * through Paimon's Flink catalog, then one streaming job (checkpoints every {@code interval} ms)
 * INSERTs into all of them at once, each from a {@link RoundSource}: one round per checkpoint.
 */
final class Write {
    private Write() {}

    static String write(Path warehouse, long checkpointMillis) throws Exception {
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
            String table = catalog + ".db.`" + spec.name + "`";
            tEnv.executeSql(spec.createTableSql(table)).await();
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
            DataStream<Row> rows = env.addSource(new RoundSource(Tables.rounds(spec)), "rounds-" + spec.name)
                    .returns(Types.ROW_NAMED(names, types))
                    .setParallelism(1);
            Table source = tEnv.fromChangelogStream(rows, schema.build(), ChangelogMode.all());
            tEnv.createTemporaryView("src_" + spec.name, source);
            // small write buffers: the writers share a small JVM
            inserts.addInsertSql("INSERT INTO " + table + " /*+ OPTIONS('write-buffer-size' = '4 mb', "
                    + "'page-size' = '64 kb') */ SELECT * FROM src_" + spec.name);
            done.add(spec.name);
        }
        inserts.execute().await();
        return "wrote " + String.join(", ", done);
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
