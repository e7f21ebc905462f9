package fjord.oracle;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;

/**
 * {@code changes TABLE --between A,B}: the changes of snapshots A (exclusive) to B (inclusive) as
 * Java Paimon's incremental read in changelog mode returns them (the changelog files the
 * snapshots list), one JSON line per row with its kind first: {"_row_kind":"+U", ...}.
 */
final class Changes {
    private Changes() {}

    static void changes(FileStoreTable table, String between, Writer out) throws IOException {
        if (between == null) {
            throw new IllegalArgumentException("changes needs --between A,B");
        }
        Map<String, String> options = new HashMap<>();
        options.put("incremental-between", between);
        options.put("incremental-between-scan-mode", "changelog");
        ReadBuilder rb = table.copy(options).newReadBuilder();
        List<DataField> fields = rb.readType().getFields();
        List<Split> splits = rb.newScan().plan().splits();
        StringBuilder row = new StringBuilder(256);
        IOException[] error = new IOException[1];
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
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
