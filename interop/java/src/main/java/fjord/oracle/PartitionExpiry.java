package fjord.oracle;

import java.io.Writer;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.operation.PartitionExpire;
import org.apache.paimon.table.FileStoreTable;

/**
 * {@code partition-expire TABLE_DIR --now LOCAL_DATE_TIME [-o key=value ...] [--output FILE]}:
 * Java Paimon's own partition expiration as the {@code expire_partitions} procedure runs it
 * (the table copied with the options, check interval 0, commit user "", identifier
 * Long.MAX_VALUE), at the given "now" (PartitionExpire#expire(LocalDateTime, long), called
 * through reflection: it is package-private for tests). One JSON object per dropped partition,
 * in Java's order: {"dt":"20240101","hr":"3"}.
 */
final class PartitionExpiry {
    private PartitionExpiry() {}

    static String run(String[] args) throws Exception {
        if (args.length < 2 || args[1].startsWith("-")) {
            throw new Oracle.UsageException("partition-expire needs a TABLE_DIR");
        }
        Map<String, String> options = new HashMap<>();
        String now = null;
        String output = null;
        for (int i = 2; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new Oracle.UsageException("option " + args[i] + " needs a value");
            }
            String v = args[++i];
            switch (args[i - 1]) {
                case "--now":
                    now = v;
                    break;
                case "--output":
                    output = v;
                    break;
                case "-o": {
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new Oracle.UsageException("-o needs key=value, got: " + v);
                    }
                    options.put(v.substring(0, eq), v.substring(eq + 1));
                    break;
                }
                default:
                    throw new Oracle.UsageException("unknown option for partition-expire: " + args[i - 1]);
            }
        }
        if (now == null) {
            throw new Oracle.UsageException("partition-expire needs --now");
        }
        options.put("partition.expiration-check-interval", "0");
        FileStoreTable table = Oracle.openTable(args[1]).copy(options);
        PartitionExpire expire = table.store().newPartitionExpire("", table);
        if (expire == null) {
            throw new IllegalArgumentException("no partition expiration for this table and options");
        }
        Method m = PartitionExpire.class.getDeclaredMethod("expire", LocalDateTime.class, long.class);
        m.setAccessible(true);
        @SuppressWarnings("unchecked")
        List<Map<String, String>> expired =
                (List<Map<String, String>>) m.invoke(expire, LocalDateTime.parse(now), Long.MAX_VALUE);
        StringBuilder sb = new StringBuilder();
        if (expired != null) {
            for (Map<String, String> p : expired) {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<String, String> e : p.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    RowJson.appendString(sb, e.getKey());
                    sb.append(':');
                    RowJson.appendString(sb, e.getValue());
                }
                sb.append("}\n");
            }
        }
        if (output == null) {
            return sb.toString().stripTrailing();
        }
        try (Writer w = Files.newBufferedWriter(Path.of(output), StandardCharsets.UTF_8)) {
            w.write(sb.toString());
        }
        return null;
    }
}
