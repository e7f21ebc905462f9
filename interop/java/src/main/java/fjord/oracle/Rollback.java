package fjord.oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;

import java.util.Map;

/**
 * rollback TABLE_DIR --snapshot N | --tag NAME | --timestamp MS: Java's rollback_to procedure
 * (Table#rollbackTo by id or by tag name) and rollback_to_timestamp (the latest snapshot at or
 * before the time, then rollbackTo by id). Prints the snapshot rolled back to.
 */
final class Rollback {
    private Rollback() {}

    static String rollback(FileStoreTable table, Map<String, String> flags) {
        int given = 0;
        for (String f : new String[] {"--snapshot", "--tag", "--timestamp"}) {
            if (flags.containsKey(f)) {
                given++;
            }
        }
        if (given != 1) {
            throw new Oracle.UsageException("rollback needs one of --snapshot, --tag, --timestamp");
        }
        if (flags.containsKey("--tag")) {
            String name = flags.get("--tag");
            table.rollbackTo(name);
            return "rolled back to tag " + name;
        }
        long id;
        if (flags.containsKey("--timestamp")) {
            long ts = Long.parseLong(flags.get("--timestamp"));
            Snapshot s = table.snapshotManager().earlierOrEqualTimeMills(ts);
            if (s == null) {
                throw new IllegalArgumentException("no snapshot earlier than " + ts);
            }
            id = s.id();
        } else {
            id = Long.parseLong(flags.get("--snapshot"));
        }
        table.rollbackTo(id);
        return "rolled back to snapshot " + id;
    }
}
