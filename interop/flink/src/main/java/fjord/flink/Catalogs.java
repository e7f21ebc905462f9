package fjord.flink;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;

/** Paimon catalogs registered in a TableEnvironment, one per warehouse, and table names in them. */
final class Catalogs {
    private final TableEnvironment env;
    private final Map<Path, String> names = new HashMap<>();

    Catalogs(TableEnvironment env) {
        this.env = env;
    }

    /** The catalog over WAREHOUSE (created on first use). */
    String catalog(Path warehouse) {
        Path wh = warehouse.toAbsolutePath().normalize();
        return names.computeIfAbsent(wh, w -> {
            String name = "wh" + names.size();
            env.executeSql("CREATE CATALOG " + name + " WITH ('type' = 'paimon', 'warehouse' = "
                    + Tables.quote("file://" + w) + ")");
            return name;
        });
    }

    /** `catalog`.`db`.`table` for a table directory WAREHOUSE/DB.db/TABLE. */
    String qualified(Path tableDir) {
        Path t = tableDir.toAbsolutePath().normalize();
        Path dbDir = t.getParent();
        String db = dbDir == null ? null : dbDir.getFileName().toString();
        if (db == null || !db.endsWith(".db") || dbDir.getParent() == null) {
            throw new IllegalArgumentException("not a table directory WAREHOUSE/DB.db/TABLE: " + tableDir);
        }
        return catalog(dbDir.getParent()) + ".`" + db.substring(0, db.length() - 3) + "`.`"
                + t.getFileName() + "`";
    }
}
