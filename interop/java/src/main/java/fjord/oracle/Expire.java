package fjord.oracle;

import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;

import java.time.Duration;
import java.util.Map;

/**
 * expire TABLE_DIR [--retain-min N] [--retain-max N] [--time-retained-ms MS] [--max-deletes N]
 * [--changelog-retain-min N] [--changelog-retain-max N] [--changelog-time-retained-ms MS]:
 * Java Paimon's own snapshot expiration (table.newExpireSnapshots()) with that config, then,
 * when the config makes the changelog decoupled, its changelog expiration
 * (table.newExpireChangelog()). Unset values take ExpireConfig.Builder's defaults (retain-min 1,
 * retain-max and max-deletes unbounded, time-retained forever). Prints "snapshots N changelogs M".
 */
final class Expire {
    private Expire() {}

    static String expire(FileStoreTable table, Map<String, String> flags) {
        ExpireConfig.Builder b = ExpireConfig.builder();
        if (flags.containsKey("--retain-min")) {
            b.snapshotRetainMin(Integer.parseInt(flags.get("--retain-min")));
        }
        if (flags.containsKey("--retain-max")) {
            b.snapshotRetainMax(Integer.parseInt(flags.get("--retain-max")));
        }
        if (flags.containsKey("--time-retained-ms")) {
            b.snapshotTimeRetain(Duration.ofMillis(Long.parseLong(flags.get("--time-retained-ms"))));
        }
        if (flags.containsKey("--max-deletes")) {
            b.snapshotMaxDeletes(Integer.parseInt(flags.get("--max-deletes")));
        }
        if (flags.containsKey("--changelog-retain-min")) {
            b.changelogRetainMin(Integer.parseInt(flags.get("--changelog-retain-min")));
        }
        if (flags.containsKey("--changelog-retain-max")) {
            b.changelogRetainMax(Integer.parseInt(flags.get("--changelog-retain-max")));
        }
        if (flags.containsKey("--changelog-time-retained-ms")) {
            b.changelogTimeRetain(
                    Duration.ofMillis(Long.parseLong(flags.get("--changelog-time-retained-ms"))));
        }
        ExpireConfig config = b.build();
        int snapshots = table.newExpireSnapshots().config(config).expire();
        int changelogs = 0;
        if (config.isChangelogDecoupled()) {
            changelogs = table.newExpireChangelog().config(config).expire();
        }
        return "snapshots " + snapshots + " changelogs " + changelogs;
    }
}
