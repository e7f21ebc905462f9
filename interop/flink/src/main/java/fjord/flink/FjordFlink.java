package fjord.flink;

import fjord.oracle.Shared;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * fjord-flink: Apache Flink in local mode (a MiniCluster in this JVM) with Paimon's Flink
 * connector, as an oracle for Fjord's streaming reads. See interop/flink/README.md.
 *
 * <pre>
 *   fjord-flink write WAREHOUSE [--phase K] [--checkpoint-ms N] [--expected DIR]
 *   fjord-flink tail TABLE_DIR [-o key=value ...] --output FILE [TABLE_DIR ... --output FILE ...]
 *                    [--idle-ms N] [--first-row-ms N]
 *   fjord-flink read TABLE_DIR [-o key=value ...] --output FILE [TABLE_DIR ... --output FILE ...]
 *   fjord-flink ingest WAREHOUSE [--rounds N] [--checkpoint-ms N] [--create-only]
 *   fjord-flink batch COMMAND_FILE|-
 * </pre>
 */
public final class FjordFlink {
    private FjordFlink() {}

    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    private static Read reader;

    /** A local streaming environment: MiniCluster in this JVM, no restarts, small memory. */
    static StreamExecutionEnvironment streamEnv(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("32m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("32m"));
        conf.setString("rest.bind-port", "0");
        // Hadoop's classes are on the class path (Paimon's Parquet and ORC code needs them), but
        // there is no Hadoop security here: no delegation tokens
        conf.setString("security.delegation.tokens.enabled", "false");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        return env;
    }

    public static void main(String[] args) {
        // Only our JSON goes to stdout: whatever a library prints goes to stderr.
        PrintStream realOut = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        int code;
        try {
            if (args.length == 0) {
                throw new UsageException("usage: fjord-flink write|tail|read|ingest|batch ...");
            }
            if (args[0].equals("batch")) {
                code = batch(args.length > 1 ? args[1] : "-", realOut);
            } else {
                String message = command(args);
                System.err.println(message);
                code = 0;
            }
        } catch (UsageException e) {
            System.err.println("fjord-flink: " + e.getMessage());
            code = 2;
        } catch (Throwable t) {
            System.err.println("fjord-flink: error: " + describe(t));
            if (System.getenv("FJORD_FLINK_TRACE") != null) {
                t.printStackTrace(System.err);
            }
            code = 1;
        }
        realOut.flush();
        System.exit(code);
    }

    private static String command(String[] args) throws Exception {
        switch (args[0]) {
            case "write": {
                need(args, 2);
                long checkpoint = 300;
                int phase = 0;
                Path expected = null;
                for (int i = 2; i < args.length; i++) {
                    if (args[i].equals("--phase") && i + 1 < args.length) {
                        phase = Integer.parseInt(args[++i]);
                    } else if (args[i].equals("--checkpoint-ms") && i + 1 < args.length) {
                        checkpoint = Long.parseLong(args[++i]);
                    } else if (args[i].equals("--expected") && i + 1 < args.length) {
                        expected = Path.of(args[++i]);
                    } else {
                        throw new UsageException("write: unknown argument " + args[i]);
                    }
                }
                return Write.write(Path.of(args[1]), checkpoint, phase, expected);
            }
            case "tail": {
                // tail TABLE [-o k=v ...] --output FILE [TABLE ... --output FILE ...]
                List<Read.TailSpec> specs = new ArrayList<>();
                Read.Quiet quiet = new Read.Quiet();
                for (int i = 1; i < args.length; i++) {
                    String a = args[i];
                    if (!a.startsWith("-")) {
                        specs.add(new Read.TailSpec(Path.of(a)));
                        continue;
                    }
                    if (i + 1 >= args.length) {
                        throw new UsageException("tail: " + a + " needs a value");
                    }
                    String v = args[++i];
                    if (a.equals("--idle-ms")) {
                        quiet.idleMillis = Long.parseLong(v);
                    } else if (a.equals("--first-row-ms")) {
                        quiet.firstRowMillis = Long.parseLong(v);
                    } else if (specs.isEmpty()) {
                        throw new UsageException("tail: " + a + " before the first table");
                    } else if (a.equals("-o")) {
                        int eq = v.indexOf('=');
                        if (eq <= 0) {
                            throw new UsageException("tail: -o needs key=value, got " + v);
                        }
                        specs.get(specs.size() - 1).hints.put(v.substring(0, eq), v.substring(eq + 1));
                    } else if (a.equals("--output")) {
                        specs.get(specs.size() - 1).output = Path.of(v);
                    } else {
                        throw new UsageException("tail: unknown argument " + a);
                    }
                }
                if (specs.isEmpty()) {
                    throw new UsageException("tail needs a table");
                }
                for (Read.TailSpec spec : specs) {
                    if (spec.output == null) {
                        throw new UsageException("tail: " + spec.table + " needs --output FILE");
                    }
                }
                return reader().tail(specs, quiet);
            }
            case "read": {
                // read TABLE [-o k=v ...] --output FILE [TABLE ... --output FILE ...]
                List<Read.ReadSpec> specs = new ArrayList<>();
                for (int i = 1; i < args.length; i++) {
                    String a = args[i];
                    if (!a.startsWith("-")) {
                        specs.add(new Read.ReadSpec(Path.of(a)));
                        continue;
                    }
                    if (i + 1 >= args.length || specs.isEmpty()) {
                        throw new UsageException("read: " + a + " needs a value, after a table");
                    }
                    String v = args[++i];
                    if (a.equals("-o")) {
                        int eq = v.indexOf('=');
                        if (eq <= 0) {
                            throw new UsageException("read: -o needs key=value, got " + v);
                        }
                        specs.get(specs.size() - 1).hints.put(v.substring(0, eq), v.substring(eq + 1));
                    } else if (a.equals("--output")) {
                        specs.get(specs.size() - 1).output = Path.of(v);
                    } else {
                        throw new UsageException("read: unknown argument " + a);
                    }
                }
                if (specs.isEmpty()) {
                    throw new UsageException("read needs a table");
                }
                for (Read.ReadSpec spec : specs) {
                    if (spec.output == null) {
                        throw new UsageException("read: " + spec.table + " needs --output FILE");
                    }
                }
                return reader().read(specs);
            }
            case "ingest":
                return Ingest.command(args);
            case "bench":
                return Bench.run(args);
            default:
                throw new UsageException("unknown command: " + args[0] + " (write, tail, read, ingest, bench, batch)");
        }
    }

    private static Read reader() {
        if (reader == null) {
            reader = new Read();
        }
        return reader;
    }

    private static void need(String[] args, int n) {
        if (args.length < n) {
            throw new UsageException(args[0] + ": missing arguments");
        }
    }

    /**
     * {@code batch FILE|-}: each non-blank line a JSON array of strings, one command; for each one
     * JSON object on stdout, {"line":N,"ok":true|false,"message":"..."}, flushed at once. From
     * stdin each line runs as it arrives, so a driver may talk to one JVM line by line.
     */
    private static int batch(String file, PrintStream realOut) throws Exception {
        BufferedReader in = file.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
        Writer w = new OutputStreamWriter(realOut, StandardCharsets.UTF_8);
        int failures = 0;
        for (int n = 1; ; n++) {
            String line = in.readLine();
            if (line == null) {
                break;
            }
            if (line.isBlank()) {
                continue;
            }
            boolean ok;
            String message;
            long start = System.nanoTime();
            try {
                Object parsed = Shared.parseJson(line);
                if (!(parsed instanceof List) || ((List<?>) parsed).isEmpty()) {
                    throw new UsageException("a batch line must be a non-empty JSON array of strings");
                }
                List<String> cmd = new ArrayList<>();
                for (Object o : (List<?>) parsed) {
                    if (!(o instanceof String)) {
                        throw new UsageException("a batch line must be a JSON array of strings");
                    }
                    cmd.add((String) o);
                }
                message = command(cmd.toArray(new String[0]));
                ok = true;
            } catch (Throwable t) {
                ok = false;
                message = describe(t);
                if (System.getenv("FJORD_FLINK_TRACE") != null) {
                    t.printStackTrace(System.err);
                }
            }
            failures += ok ? 0 : 1;
            StringBuilder sb = new StringBuilder();
            sb.append("{\"line\":").append(n).append(",\"ok\":").append(ok).append(",\"millis\":")
                    .append((System.nanoTime() - start) / 1_000_000).append(",\"message\":");
            Shared.appendString(sb, message == null ? "" : message);
            sb.append("}\n");
            w.append(sb);
            w.flush();
        }
        return failures == 0 ? 0 : 3;
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (sb.length() > 0) {
                sb.append(": caused by ");
            }
            sb.append(c.getClass().getSimpleName());
            if (c.getMessage() != null) {
                sb.append(": ").append(c.getMessage());
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return sb.toString();
    }
}
