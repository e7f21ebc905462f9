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
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * {@code ingest WAREHOUSE [--rounds N] [--checkpoint-ms N] [--create-only]}: a streaming job that
 * writes primary-key tables with {@code write-only = true}, as a team would that leaves the
 * compaction to a dedicated service (`fjord compact --follow`, tests/compat/flink_compact_follow.py).
 * Its writers never compact: every checkpoint adds level-0 files and nothing else.
 *
 * <p>Tables of database {@code db} (created unless they exist, so the service may be started on
 * them before the job), each with {@code snapshot.num-retained.min} 5 and {@code .max} 10, which
 * only a dedicated compaction job applies (write-only writers do not expire):
 *
 * <ul>
 *   <li>{@code agg}: aggregation, partitioned by {@code p}, 2 buckets. Round r, row i (0..59):
 *       p = "a" for even i else "b", id = (7 i + 11 r) mod 40, cnt = 1 (sum), total = 100 r + i
 *       (sum), last_round = r and note = "r{r}i{i}" when (r + i) mod 3 == 0, else NULL (both
 *       last_non_null_value).
 *   <li>{@code dedup}: deduplicate, 4 buckets. Round r, row i (0..49): id = (13 i + 7 r) mod 64;
 *       a -D of the key when (r + i) mod 6 == 0, else v = 1000 r + i, s = "r{r}-i{i}" as +U when
 *       i mod 4 == 1, else +I.
 *   <li>{@code dedup_alone}: the rows of {@code dedup}; the test leaves it without compaction, to
 *       show what the service prevents.
 * </ul>
 *
 * One {@link RoundSource} per table: each round is committed by exactly one checkpoint. The job
 * ends after the last round's checkpoint. Keys repeat within and across rounds, so the result
 * depends on merging every file in sequence order; the test computes it from the same formulas.
 */
final class Ingest {
    private Ingest() {}

    /** {@code ingest WAREHOUSE [--rounds N] [--checkpoint-ms N] [--create-only]}. */
    static String command(String[] args) throws Exception {
        if (args.length < 2 || args[1].startsWith("-")) {
            throw new FjordFlink.UsageException("ingest: needs WAREHOUSE");
        }
        int rounds = 40;
        long checkpoint = 500;
        boolean createOnly = false;
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--create-only")) {
                createOnly = true;
            } else if (args[i].equals("--rounds") && i + 1 < args.length) {
                rounds = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--checkpoint-ms") && i + 1 < args.length) {
                checkpoint = Long.parseLong(args[++i]);
            } else {
                throw new FjordFlink.UsageException("ingest: unknown argument " + args[i]);
            }
        }
        return ingest(Path.of(args[1]), rounds, checkpoint, createOnly);
    }

    static final String[] AGG_COLUMNS = {"p", "id", "cnt", "total", "last_round", "note"};
    static final String[] DEDUP_COLUMNS = {"id", "v", "s"};

    static String ingest(Path warehouse, int rounds, long checkpointMillis, boolean createOnly)
            throws Exception {
        StreamExecutionEnvironment env = FjordFlink.streamEnv(2);
        env.enableCheckpointing(checkpointMillis);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // the rows carry their own changes; no materialisation in front of the sink
        tEnv.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        String catalog = new Catalogs(tEnv).catalog(warehouse);
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS " + catalog + ".db").await();
        // write-only: Flink's writers neither compact nor expire snapshots; both are the service's
        // job, with this retention (at most 10 snapshots; the default time-retained keeps more)
        String writeOnly = "'write-only' = 'true', 'snapshot.num-retained.min' = '5', "
                + "'snapshot.num-retained.max' = '10'";
        tEnv.executeSql("CREATE TABLE IF NOT EXISTS " + catalog + ".db.agg (p STRING NOT NULL, "
                + "id INT NOT NULL, cnt BIGINT, total BIGINT, last_round INT, note STRING, "
                + "PRIMARY KEY (p, id) NOT ENFORCED) PARTITIONED BY (p) WITH ('bucket' = '2', "
                + "'merge-engine' = 'aggregation', 'fields.cnt.aggregate-function' = 'sum', "
                + "'fields.total.aggregate-function' = 'sum', " + writeOnly + ")").await();
        for (String name : new String[] {"dedup", "dedup_alone"}) {
            tEnv.executeSql("CREATE TABLE IF NOT EXISTS " + catalog + ".db." + name + " (id INT NOT NULL, "
                    + "v BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4', "
                    + writeOnly + ")").await();
        }
        if (createOnly) {
            return "created agg, dedup, dedup_alone";
        }
        List<List<Row>> agg = new ArrayList<>();
        List<List<Row>> dedup = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            agg.add(aggRound(r));
            dedup.add(dedupRound(r));
        }
        StatementSet inserts = tEnv.createStatementSet();
        TypeInformation<?>[] aggTypes = {Types.STRING, Types.INT, Types.LONG, Types.LONG, Types.INT, Types.STRING};
        Schema aggSchema = Schema.newBuilder()
                .column("p", DataTypes.STRING().notNull())
                .column("id", DataTypes.INT().notNull())
                .column("cnt", DataTypes.BIGINT())
                .column("total", DataTypes.BIGINT())
                .column("last_round", DataTypes.INT())
                .column("note", DataTypes.STRING())
                .primaryKey("p", "id")
                .build();
        insert(env, tEnv, inserts, catalog + ".db.agg", "agg", agg, AGG_COLUMNS, aggTypes, aggSchema);
        TypeInformation<?>[] dedupTypes = {Types.INT, Types.LONG, Types.STRING};
        Schema dedupSchema = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.BIGINT())
                .column("s", DataTypes.STRING())
                .primaryKey("id")
                .build();
        for (String name : new String[] {"dedup", "dedup_alone"}) {
            insert(env, tEnv, inserts, catalog + ".db." + name, name, dedup, DEDUP_COLUMNS, dedupTypes,
                    dedupSchema);
        }
        inserts.execute().await();
        return "ingested " + rounds + " rounds into agg, dedup, dedup_alone";
    }

    private static void insert(StreamExecutionEnvironment env, StreamTableEnvironment tEnv,
            StatementSet inserts, String table, String name, List<List<Row>> rounds, String[] names,
            TypeInformation<?>[] types, Schema schema) {
        DataStream<Row> rows = env.addSource(new RoundSource(rounds), "rounds-" + name)
                .returns(Types.ROW_NAMED(names, types))
                .setParallelism(1);
        Table source = tEnv.fromChangelogStream(rows, schema, ChangelogMode.all());
        tEnv.createTemporaryView("src_" + name, source);
        // small write buffers: the writers share a small JVM
        inserts.addInsertSql("INSERT INTO " + table + " /*+ OPTIONS('write-buffer-size' = '4 mb', "
                + "'page-size' = '64 kb') */ SELECT * FROM src_" + name);
    }

    static List<Row> aggRound(int r) {
        List<Row> round = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            boolean noted = (r + i) % 3 == 0;
            round.add(Row.ofKind(RowKind.INSERT, i % 2 == 0 ? "a" : "b", (7 * i + 11 * r) % 40, 1L,
                    100L * r + i, noted ? r : null, noted ? "r" + r + "i" + i : null));
        }
        return round;
    }

    static List<Row> dedupRound(int r) {
        List<Row> round = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            int id = (13 * i + 7 * r) % 64;
            if ((r + i) % 6 == 0) {
                round.add(Row.ofKind(RowKind.DELETE, id, null, null));
            } else {
                RowKind kind = i % 4 == 1 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
                round.add(Row.ofKind(kind, id, 1000L * r + i, "r" + r + "-i" + i));
            }
        }
        return round;
    }
}
