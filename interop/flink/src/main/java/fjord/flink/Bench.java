package fjord.flink;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * {@code bench}: the Flink side of bench/runtime_bench.py, the benchmark of `fjord run` against
 * Flink with Paimon's Flink connector (bench/README.md). One streaming job, as a Flink user would
 * write it in SQL: a source table over JSON-lines files or a Kafka topic, then {@code INSERT INTO}
 * an existing Paimon table, checkpoints every {@code --checkpoint-ms}.
 *
 * <pre>
 *   bench --table TABLE_DIR --columns "id BIGINT, ..." --parallelism P --checkpoint-ms N
 *         (--files DIR [--monitor-ms M] | --kafka BOOTSTRAP --topic T) [--follow]
 *         [--format json|debezium-json] [--select "EXPR, ..."]
 * </pre>
 *
 * {@code --format debezium-json} (bench/cdc_bench.py) reads Debezium change messages with their
 * schema envelope ({@code 'debezium-json.schema-include' = 'true'}) as a changelog; then
 * {@code --columns} may declare {@code PRIMARY KEY (...) NOT ENFORCED}, and {@code --select}
 * (default {@code *}) converts the columns, with the functions of {@link ConnectTypes}. The
 * optimized plan goes to stderr (whether the planner put a ChangelogNormalize or a
 * SinkUpsertMaterializer in it).
 *
 * Without {@code --follow} the source is bounded (the files present at the start; the Kafka
 * topic up to its latest offsets), and the job ends with a final checkpoint when it is consumed,
 * as {@code fjord run --bounded}. With {@code --follow} the files source watches the directory
 * every {@code --monitor-ms} and the Kafka source never ends: the harness stops the JVM once the
 * table holds every row. The answer is {@code job_ms=N}: submission to the end of the job.
 */
final class Bench {
    private Bench() {}

    static String run(String[] args) throws Exception {
        Path table = null;
        String columns = null;
        String files = null;
        String kafka = null;
        String topic = null;
        int parallelism = 1;
        long checkpointMillis = 1000;
        long monitorMillis = 200;
        boolean follow = false;
        String format = "json";
        String select = "*";
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--follow")) {
                follow = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new FjordFlink.UsageException("bench: " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--table":
                    table = Path.of(v);
                    break;
                case "--columns":
                    columns = v;
                    break;
                case "--files":
                    files = v;
                    break;
                case "--kafka":
                    kafka = v;
                    break;
                case "--topic":
                    topic = v;
                    break;
                case "--parallelism":
                    parallelism = Integer.parseInt(v);
                    break;
                case "--checkpoint-ms":
                    checkpointMillis = Long.parseLong(v);
                    break;
                case "--format":
                    format = v;
                    break;
                case "--select":
                    select = v;
                    break;
                case "--monitor-ms":
                    monitorMillis = Long.parseLong(v);
                    break;
                default:
                    throw new FjordFlink.UsageException("bench: unknown argument " + a);
            }
        }
        if (!format.equals("json") && !format.equals("debezium-json")) {
            throw new FjordFlink.UsageException("bench: --format json or debezium-json, not " + format);
        }
        if (table == null || columns == null || (files == null) == (kafka == null)
                || (kafka != null && topic == null)) {
            throw new FjordFlink.UsageException(
                    "bench needs --table, --columns and either --files DIR or --kafka BOOTSTRAP --topic T");
        }

        // as FjordFlink.streamEnv, but with the REST endpoint on a known port: a followed run
        // reports its first completed checkpoint (every task running) through it
        int restPort;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            restPort = probe.getLocalPort();
        }
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("32m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("32m"));
        conf.setString("rest.bind-address", "127.0.0.1");
        conf.setString("rest.address", "127.0.0.1");
        conf.setString("rest.bind-port", String.valueOf(restPort));
        conf.setString("rest.port", String.valueOf(restPort));
        conf.setString("security.delegation.tokens.enabled", "false");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        env.enableCheckpointing(checkpointMillis);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        Catalogs catalogs = new Catalogs(tEnv);
        String sink = catalogs.qualified(table);
        ConnectTypes.register(tEnv);
        String formatOptions = format.equals("json") ? "'format' = 'json'"
                : "'format' = 'debezium-json', 'debezium-json.schema-include' = 'true'";

        StringBuilder ddl = new StringBuilder("CREATE TEMPORARY TABLE bench_source (").append(columns)
                .append(") WITH (");
        if (files != null) {
            ddl.append("'connector' = 'filesystem', ").append(formatOptions).append(", 'path' = ")
                    .append(Tables.quote("file://" + Path.of(files).toAbsolutePath().normalize()));
            if (follow) {
                ddl.append(", 'source.monitor-interval' = '").append(monitorMillis).append(" ms'");
            }
        } else {
            ddl.append("'connector' = 'kafka', ").append(formatOptions)
                    .append(", 'topic' = ").append(Tables.quote(topic))
                    .append(", 'properties.bootstrap.servers' = ").append(Tables.quote(kafka))
                    .append(", 'properties.group.id' = 'fjord-bench'")
                    .append(", 'scan.startup.mode' = 'earliest-offset'");
            if (!follow) {
                ddl.append(", 'scan.bounded.mode' = 'latest-offset'");
            }
        }
        ddl.append(")");
        tEnv.executeSql(ddl.toString());

        String insert = "INSERT INTO " + sink + " SELECT " + select + " FROM bench_source";
        if (!format.equals("json")) {
            System.err.println("fjord-bench: plan:\n" + tEnv.explainSql(insert));
        }
        long start = System.nanoTime();
        TableResult result = tEnv.executeSql(insert);
        if (follow) {
            // the harness starts feeding once the first checkpoint completed (stderr: stdout is
            // for JSON answers)
            JobClient job = result.getJobClient().orElseThrow();
            URI uri = URI.create("http://127.0.0.1:" + restPort + "/jobs/" + job.getJobID() + "/checkpoints");
            Pattern completed = Pattern.compile("\"completed\"\\s*:\\s*(\\d+)");
            while (!job.getJobStatus().get().isTerminalState()) {
                try {
                    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
                    String body = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    Matcher m = completed.matcher(body);
                    if (m.find() && Long.parseLong(m.group(1)) > 0) {
                        System.err.println("fjord-bench: checkpointed");
                        break;
                    }
                } catch (java.io.IOException e) {
                    // the job's REST handlers may not answer yet
                }
                Thread.sleep(50);
            }
        }
        result.await();
        return "job_ms=" + (System.nanoTime() - start) / 1_000_000;
    }
}
