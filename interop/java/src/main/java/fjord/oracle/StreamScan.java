package fjord.oracle;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.SnapshotNotExistPlan;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.table.source.snapshot.SnapshotReader;
import org.apache.paimon.types.DataField;

/**
 * {@code stream TABLE [-o key=value ...] [--consumer-id C] [--plans N] [--waits K] [--restore NEXT]
 * [--session S] [--commit-progress] [--output FILE]}: plans with Java Paimon's own streaming
 * scan ({@code newReadBuilder().newStreamScan()}) and reads each plan with its {@code TableRead}.
 *
 * <p>For each plan a marker line, then the plan's rows with their kind first:
 *
 * <pre>
 *   {"_plan":1,"_next_snapshot":4,"_snapshot":3,"_splits":2}
 *   {"_row_kind":"+I","id":1,...}
 *   {"_plan":2,"_wait":true,"_next_snapshot":6}       (no new snapshot: the command stops)
 *   {"_plan":3,"_end":true,"_next_snapshot":6}        (EndOfScanException: bounded scan ended)
 * </pre>
 *
 * <p>At most N plans (default 100). A plan that finds no new snapshot (SnapshotNotExistPlan) prints
 * a wait line; K such plans in a row that do not move the checkpoint end the command
 * ({@code --waits K}, default 1; the first plan of the {@code latest} and {@code from-snapshot}
 * modes is a wait that only sets where to start).
 * With {@code --session S} the scan and read live on in this JVM (a {@code batch}): the next
 * {@code stream} with the same S goes on where this one stopped (options only on the first
 * call). {@code --commit-progress} calls {@code notifyCheckpointComplete(checkpoint())} after the
 * last plan, which writes {@code consumer/consumer-C} as a Flink job does when a checkpoint
 * completes.
 */
final class StreamScan {
    private StreamScan() {}

    /** A streaming scan and its read, kept between calls of one session. */
    private static final class Session {
        StreamTableScan scan;
        TableRead read;
        List<DataField> fields;
        int plans;
    }

    private static final Map<String, Session> SESSIONS = new HashMap<>();

    /** Parses the arguments after TABLE and runs the command; rows go to out. */
    static void run(String[] args, Writer out) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        int maxPlans = 100;
        int maxWaits = 1;
        Long restore = null;
        String session = null;
        boolean commitProgress = false;
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--commit-progress":
                    commitProgress = true;
                    continue;
                case "--output":
                    i++; // handled by the caller
                    continue;
                default:
                    break;
            }
            if (i + 1 >= args.length) {
                throw new Oracle.UsageException("option " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "-o": {
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new Oracle.UsageException("-o needs key=value, got: " + v);
                    }
                    options.put(v.substring(0, eq), v.substring(eq + 1));
                    break;
                }
                case "--consumer-id":
                    options.put("consumer-id", v);
                    break;
                case "--plans":
                    maxPlans = Integer.parseInt(v);
                    if (maxPlans < 1) {
                        throw new Oracle.UsageException("--plans needs a positive count");
                    }
                    break;
                case "--waits":
                    maxWaits = Integer.parseInt(v);
                    if (maxWaits < 1) {
                        throw new Oracle.UsageException("--waits needs a positive count");
                    }
                    break;
                case "--restore":
                    restore = Long.parseLong(v);
                    break;
                case "--session":
                    session = v;
                    break;
                default:
                    throw new Oracle.UsageException("unknown option for stream: " + a);
            }
        }
        Session s = session == null ? null : SESSIONS.get(session);
        if (s != null) {
            if (!options.isEmpty()) {
                throw new Oracle.UsageException(
                        "stream session " + session + " exists: options only on its first call");
            }
        } else {
            FileStoreTable table = Oracle.openTable(args[1]);
            FileStoreTable t = options.isEmpty() ? table : table.copy(options);
            ReadBuilder rb = t.newReadBuilder();
            s = new Session();
            s.scan = rb.newStreamScan();
            s.read = rb.newRead();
            s.fields = rb.readType().getFields();
            if (session != null) {
                SESSIONS.put(session, s);
            }
        }
        if (restore != null) {
            s.scan.restore(restore);
        }
        StringBuilder line = new StringBuilder(256);
        int idle = 0;
        for (int n = 0; n < maxPlans; n++) {
            int index = ++s.plans;
            Long before = s.scan.checkpoint();
            TableScan.Plan plan;
            try {
                plan = s.scan.plan();
            } catch (EndOfScanException e) {
                line.setLength(0);
                line.append("{\"_plan\":").append(index).append(",\"_end\":true");
                appendNext(line, s.scan.checkpoint());
                out.append(line).append("}\n");
                break;
            }
            line.setLength(0);
            line.append("{\"_plan\":").append(index);
            if (plan instanceof SnapshotNotExistPlan) {
                Long next = s.scan.checkpoint();
                line.append(",\"_wait\":true");
                appendNext(line, next);
                out.append(line).append("}\n");
                if (!Objects.equals(next, before)) {
                    idle = 0;
                } else if (++idle >= maxWaits) {
                    break;
                }
                continue;
            }
            appendNext(line, s.scan.checkpoint());
            if (plan instanceof SnapshotReader.Plan) {
                Long id = ((SnapshotReader.Plan) plan).snapshotId();
                if (id != null) {
                    line.append(",\"_snapshot\":").append(id);
                }
            }
            idle = 0;
            List<Split> splits = plan.splits();
            line.append(",\"_splits\":").append(splits.size());
            out.append(line).append("}\n");
            writeRows(s.read, splits, s.fields, out);
        }
        if (commitProgress) {
            s.scan.notifyCheckpointComplete(s.scan.checkpoint());
        }
    }

    private static void appendNext(StringBuilder line, Long next) {
        line.append(",\"_next_snapshot\":").append(next == null ? "null" : next.toString());
    }

    private static void writeRows(TableRead read, List<Split> splits, List<DataField> fields,
            Writer out) throws IOException {
        if (splits.isEmpty()) {
            return;
        }
        StringBuilder row = new StringBuilder(256);
        IOException[] error = new IOException[1];
        try (RecordReader<InternalRow> reader = read.createReader(splits)) {
            reader.forEachRemaining(r -> {
                if (error[0] != null) {
                    return;
                }
                row.setLength(0);
                RowJson.appendRow(row, r, fields);
                String kind = "{\"_row_kind\":\"" + r.getRowKind().shortString() + "\"";
                String text = row.length() > 2 ? kind + "," + row.substring(1) : kind + "}";
                try {
                    out.append(text).append('\n');
                } catch (IOException e) {
                    error[0] = e;
                }
            });
        }
        if (error[0] != null) {
            throw error[0];
        }
    }
}
