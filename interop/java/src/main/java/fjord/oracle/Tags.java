package fjord.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.tag.Tag;
import org.apache.paimon.utils.Pair;

import java.io.IOException;
import java.io.Writer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The tag commands: tag TABLE_DIR --name NAME [--snapshot N] [--time-retained-ms MS]
 * (Table#createTag), delete-tag TABLE_DIR --name NAME (Table#deleteTag, which also cleans the
 * files of an expired tagged snapshot) and tags TABLE_DIR (Java's view of the tags: one JSON
 * object per tag, sorted by name, with its snapshot id and its time retained in ms or null).
 */
final class Tags {
    private Tags() {}

    static void create(FileStoreTable table, Map<String, String> flags) {
        String name = flags.get("--name");
        if (name == null) {
            throw new Oracle.UsageException("tag needs --name NAME");
        }
        String retained = flags.get("--time-retained-ms");
        Duration ttl = retained == null ? null : Duration.ofMillis(Long.parseLong(retained));
        if (flags.containsKey("--snapshot")) {
            long id = Long.parseLong(flags.get("--snapshot"));
            if (ttl == null) {
                table.createTag(name, id);
            } else {
                table.createTag(name, id, ttl);
            }
        } else if (ttl == null) {
            table.createTag(name);
        } else {
            table.createTag(name, ttl);
        }
    }

    static void delete(FileStoreTable table, Map<String, String> flags) {
        String name = flags.get("--name");
        if (name == null) {
            throw new Oracle.UsageException("delete-tag needs --name NAME");
        }
        table.deleteTag(name);
    }

    static void list(FileStoreTable table, Writer w) throws IOException {
        List<String> lines = new ArrayList<>();
        for (Pair<Tag, String> p : table.tagManager().tagObjects()) {
            Snapshot s = p.getLeft();
            Duration ttl = p.getLeft().getTagTimeRetained();
            StringBuilder line = new StringBuilder("{\"name\": ");
            RowJson.appendString(line, p.getRight());
            line.append(", \"snapshot\": ").append(s.id()).append(", \"time_retained_ms\": ")
                    .append(ttl == null ? "null" : String.valueOf(ttl.toMillis())).append('}');
            lines.add(line.toString());
        }
        lines.sort(null);
        for (String line : lines) {
            w.write(line);
            w.write('\n');
        }
    }
}
