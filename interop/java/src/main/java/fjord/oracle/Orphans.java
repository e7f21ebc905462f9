package fjord.oracle;

import org.apache.paimon.fs.Path;
import org.apache.paimon.operation.CleanOrphanFilesResult;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.table.FileStoreTable;

import java.io.Writer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * remove-orphans TABLE_DIR --older-than-millis T [--dry-run true|false]: Java Paimon's own local
 * orphan clean-up (LocalOrphanFilesClean, what the remove_orphan_files procedure runs in local
 * mode) with files last modified before epoch millis T as candidates. Writes the paths it deleted
 * (or would delete, on a dry run), relative to the table directory, one a line and sorted; returns
 * "deleted N bytes B".
 */
final class Orphans {
    private Orphans() {}

    static String removeOrphans(FileStoreTable table, Map<String, String> flags, Writer w)
            throws Exception {
        String older = flags.get("--older-than-millis");
        if (older == null) {
            throw new Oracle.UsageException("remove-orphans needs --older-than-millis T");
        }
        String dry = flags.getOrDefault("--dry-run", "false");
        if (!dry.equals("true") && !dry.equals("false")) {
            throw new Oracle.UsageException("--dry-run takes true or false, got " + dry);
        }
        LocalOrphanFilesClean clean =
                new LocalOrphanFilesClean(table, Long.parseLong(older), dry.equals("true"));
        CleanOrphanFilesResult result = clean.clean();
        String root = table.location().toUri().getPath();
        if (!root.endsWith("/")) {
            root += "/";
        }
        List<String> paths = new ArrayList<>();
        if (result.getDeletedFilesPath() != null) {
            for (Path p : result.getDeletedFilesPath()) {
                String s = p.toUri().getPath();
                paths.add(s.startsWith(root) ? s.substring(root.length()) : s);
            }
        }
        Collections.sort(paths);
        for (String p : paths) {
            w.write(p);
            w.write('\n');
        }
        return "deleted " + result.getDeletedFileCount() + " bytes "
                + result.getDeletedFileTotalLenInBytes();
    }
}
