package fjord.oracle;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.system.AuditLogTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.utils.OffsetRow;

/**
 * {@code changes TABLE [--between A,B] [--options JSON] [--audit-log true]}: Java Paimon's
 * incremental read, one JSON line per row with its kind first: {"_row_kind":"+U", ...}.
 * {@code --between} alone reads snapshots A (exclusive) to B (inclusive) in changelog mode;
 * {@code --options} gives the read options instead (incremental-between with tags,
 * incremental-between-scan-mode, incremental-to-auto-tag, ...). With {@code --audit-log true}
 * the read goes through the table's audit_log system table, which keeps the deletes a diff finds
 * (the table's own batch read drops them).
 */
final class Changes {
    private Changes() {}

    static void changes(
            FileStoreTable table, String between, String optionsJson, boolean auditLog, Writer out)
            throws IOException {
        Map<String, String> options = new HashMap<>();
        if (between != null) {
            options.put("incremental-between", between);
            options.put("incremental-between-scan-mode", "changelog");
        }
        if (optionsJson != null) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) Json.parse(optionsJson)).entrySet()) {
                options.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
            }
        }
        if (options.isEmpty()) {
            throw new IllegalArgumentException("changes needs --between A,B or --options JSON");
        }
        FileStoreTable copy = table.copy(options);
        Table read = auditLog ? new AuditLogTable(copy) : copy;
        ReadBuilder rb = read.newReadBuilder();
        List<DataField> fields = rb.readType().getFields();
        // The audit log's first column is the row kind; the row is printed after it.
        List<DataField> rowFields = auditLog ? fields.subList(1, fields.size()) : fields;
        List<Split> splits = rb.newScan().plan().splits();
        StringBuilder row = new StringBuilder(256);
        IOException[] error = new IOException[1];
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            reader.forEachRemaining(r -> {
                if (error[0] != null) {
                    return;
                }
                String kindText;
                InternalRow values = r;
                if (auditLog) {
                    kindText = r.getString(0).toString();
                    values = new OffsetRow(rowFields.size(), 1).replace(r);
                } else {
                    kindText = r.getRowKind().shortString();
                }
                row.setLength(0);
                RowJson.appendRow(row, values, rowFields);
                String kind = "{\"_row_kind\":\"" + kindText + "\"";
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
