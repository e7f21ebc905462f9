package fjord.oracle;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Fjord's Java oracle: reads Apache Paimon tables with Java Paimon and prints rows as canonical
 * JSON lines, for comparison with Fjord's C++ reader.
 *
 * <pre>
 *   fjord-oracle list TABLE_DIR
 *   fjord-oracle dump TABLE_DIR [--snapshot N | --tag NAME | --timestamp MILLIS]
 *   fjord-oracle dump-all FIXTURES_ROOT OUT_DIR
 *   fjord-oracle files TABLE_DIR [--snapshot N | --tag NAME | --timestamp MILLIS]
 *   fjord-oracle buckets TABLE_DIR
 *   fjord-oracle write TABLE_DIR --input ROWS.jsonl [--commit-user U] [--overwrite MODE] [--compact full]
 *   fjord-oracle partition-expire TABLE_DIR --now LOCAL_DATE_TIME [-o key=value ...]
 *   fjord-oracle expire TABLE_DIR [--retain-min N] [--retain-max N] [--time-retained-ms MS] ...
 *   fjord-oracle remove-orphans TABLE_DIR --older-than-millis T [--dry-run true]
 *   fjord-oracle rollback TABLE_DIR --snapshot N | --tag NAME | --timestamp MS
 *   fjord-oracle dv-read INDEX_FILE BITMAP64 RANGES_JSON [--output FILE]
 *   fjord-oracle batch COMMAND_FILE
 * </pre>
 */
public final class Oracle {
    private static final String USAGE =
            "usage: fjord-oracle list TABLE_DIR [--output FILE]\n"
                    + "       fjord-oracle dump TABLE_DIR [--snapshot N | --tag NAME | --timestamp MILLIS] [--output FILE]\n"
                    + "       fjord-oracle dump-all FIXTURES_ROOT OUT_DIR\n"
                    + "       fjord-oracle files TABLE_DIR [--snapshot N | --tag NAME | --timestamp MILLIS] [--output FILE]\n"
                    + "       fjord-oracle buckets TABLE_DIR [--output FILE]   (live rows with their bucket and hash-index check)\n"
                    + "       fjord-oracle write TABLE_DIR --input ROWS.jsonl [--commit-user U] [--overwrite MODE] [--compact full]\n"
                    + "       fjord-oracle create TABLE_DIR --columns '[[name, type], ...]' [--options '{k: v}']\n"
                    + "       fjord-oracle alter TABLE_DIR --change-types '{column: type, ...}'   (SchemaChange.updateColumnType)\n"
                    + "       fjord-oracle alter TABLE_DIR --changes '[{\"op\": add|drop|rename|type, \"path\": \"a.b\", ...}, ...]'   (nested field paths)\n"
                    + "       fjord-oracle cast-pairs TYPES_FILE --output FILE   (which type changes ALTER TABLE accepts)\n"
                    + "       fjord-oracle cast-probe FROM TO --input ROWS.jsonl --output FILE   (Java's cast of column v, per row: ok or throws)\n"
                    + "       fjord-oracle changes TABLE_DIR [--between A,B] [--options JSON] [--audit-log true] [--output FILE]   (an incremental read, rows with _row_kind first)\n"
                    + "       fjord-oracle tag TABLE_DIR --name NAME [--snapshot N] [--time-retained-ms MS]   (Table#createTag)\n"
                    + "       fjord-oracle delete-tag TABLE_DIR --name NAME   (Table#deleteTag)\n"
                    + "       fjord-oracle tags TABLE_DIR [--output FILE]   (Java's tags: name, snapshot, time retained)\n"
                    + "       fjord-oracle stream TABLE_DIR [-o key=value ...] [--consumer-id C] [--plans N] [--waits K] [--restore NEXT] [--session S] [--commit-progress] [--output FILE]   (Java's streaming scan, plan by plan)\n"
                    + "       fjord-oracle partition-expire TABLE_DIR --now LOCAL_DATE_TIME [-o key=value ...] [--output FILE]   (Java's expire_partitions at that time)\n"
                    + "       fjord-oracle rescale TABLE_DIR --buckets N [--partition k=v,...]   (ALTER 'bucket', then INSERT OVERWRITE)\n"
                    + "       fjord-oracle write-bucket TABLE_DIR --input ROWS.jsonl --bucket N   (a writer with 'bucket' = N)\n"
                    + "       fjord-oracle bucket-check TABLE_DIR --output FILE   (live rows, their bucket and Java's bucket for them)\n"
                    + "       fjord-oracle expire TABLE_DIR [--retain-min N] [--retain-max N] [--time-retained-ms MS] [--max-deletes N] [--changelog-retain-min N] [--changelog-retain-max N] [--changelog-time-retained-ms MS] [--output FILE]   (Java's ExpireSnapshots, then ExpireChangelog when decoupled)\n"
                    + "       fjord-oracle rollback TABLE_DIR --snapshot N | --tag NAME | --timestamp MS   (Table#rollbackTo; rollback_to_timestamp)\n"
                    + "       fjord-oracle remove-orphans TABLE_DIR --older-than-millis T [--dry-run true] [--output FILE]   (Java's LocalOrphanFilesClean; the deleted paths, relative, one a line)\n"
                    + "       fjord-oracle dv-read INDEX_FILE BITMAP64 RANGES_JSON [--output FILE]   (a DELETION_VECTORS index file read by Java: one JSON line per data file with its positions)\n"
                    + "       fjord-oracle batch COMMAND_FILE   (one JSON array of arguments per line; - for stdin)\n"
                    + "       fjord-oracle bench WORKLOAD --dir DIR [--rows N] [--keys K] [--commits C] [--block B]   (make bench)\n";

    private Oracle() {}

    /** A command-line mistake: reported with the usage text, exit code 2. */
    static final class UsageException extends RuntimeException {
        UsageException(String msg) {
            super(msg);
        }
    }

    /** What a dump wrote. */
    private static final class DumpStats {
        long rows;
        long retractSkipped;
    }

    public static void main(String[] args) {
        // Our own output goes to the real stdout; anything a library prints goes to stderr.
        PrintStream realOut = System.out;
        System.setOut(System.err);
        int rc;
        try {
            rc = run(args, realOut);
        } catch (UsageException e) {
            System.err.println("fjord-oracle: " + e.getMessage());
            System.err.print(USAGE);
            rc = 2;
        } catch (Throwable t) {
            System.err.println("fjord-oracle: error: " + describe(t));
            if (System.getenv("FJORD_ORACLE_TRACE") != null) {
                t.printStackTrace(System.err);
            }
            rc = 1;
        }
        realOut.flush();
        System.err.flush();
        // halt rather than exit: skips shutdown hooks of libraries that might print
        Runtime.getRuntime().halt(rc);
    }

    private static int run(String[] args, PrintStream realOut) throws Exception {
        if (args.length == 0) {
            throw new UsageException("missing command");
        }
        switch (args[0]) {
            case "dump-all": {
                if (args.length != 3) {
                    throw new UsageException("dump-all takes FIXTURES_ROOT and OUT_DIR");
                }
                return dumpAll(Path.of(args[1]), Path.of(args[2]));
            }
            case "bench":
                return Bench.run(args, realOut);
            case "batch": {
                if (args.length != 2) {
                    throw new UsageException("batch takes one COMMAND_FILE (or - for stdin)");
                }
                return batch(args[1], realOut);
            }
            case "-h":
            case "--help":
            case "help":
                realOut.print(USAGE);
                return 0;
            default: {
                String message = command(args, realOut);
                if (message != null) {
                    Writer w = stdoutWriter(realOut);
                    w.write(message);
                    w.write('\n');
                    w.flush();
                }
                return 0;
            }
        }
    }

    /**
     * Runs one of list, dump, files, buckets, write. Row output goes to --output FILE when given, else to
     * stdout. Returns a message for the caller to print (write), or null.
     */
    private static String command(String[] args, PrintStream realOut) throws Exception {
        String cmd = args[0];
        if (List.of("create", "alter", "cast-pairs", "cast-probe").contains(cmd)) {
            return evolveCommand(args);
        }
        if (cmd.equals("stream")) {
            return streamCommand(args, realOut);
        }
        if (cmd.equals("partition-expire")) {
            return PartitionExpiry.run(args);
        }
        if (cmd.equals("dv-read")) {
            return DeletionVectors.read(args, realOut);
        }
        if (List.of("rescale", "write-bucket", "bucket-check").contains(cmd)) {
            return Rescale.command(args);
        }
        switch (cmd) {
            case "list":
            case "dump":
            case "files":
            case "buckets":
            case "write":
            case "changes":
            case "tag":
            case "delete-tag":
            case "tags":
            case "expire":
            case "remove-orphans":
            case "rollback":
                break;
            default:
                throw new UsageException("unknown command: " + cmd);
        }
        if (args.length < 2 || args[1].startsWith("--")) {
            throw new UsageException(cmd + " needs a TABLE_DIR");
        }
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new UsageException("option " + args[i] + " needs a value");
            }
            if (flags.put(args[i], args[i + 1]) != null) {
                throw new UsageException("option " + args[i] + " given twice");
            }
        }
        List<String> allowed;
        switch (cmd) {
            case "list":
            case "buckets":
            case "tags":
                allowed = List.of("--output");
                break;
            case "write":
                allowed = List.of("--input", "--commit-user", "--overwrite", "--compact");
                break;
            case "changes":
                allowed = List.of("--between", "--options", "--audit-log", "--output");
                break;
            case "tag":
                allowed = List.of("--name", "--snapshot", "--time-retained-ms", "--output");
                break;
            case "delete-tag":
                allowed = List.of("--name", "--output");
                break;
            case "expire":
                allowed = List.of("--retain-min", "--retain-max", "--time-retained-ms",
                        "--max-deletes", "--changelog-retain-min", "--changelog-retain-max",
                        "--changelog-time-retained-ms", "--output");
                break;
            case "remove-orphans":
                allowed = List.of("--older-than-millis", "--dry-run", "--output");
                break;
            default:
                allowed = List.of("--snapshot", "--tag", "--timestamp", "--output");
        }
        for (String flag : flags.keySet()) {
            if (!allowed.contains(flag)) {
                throw new UsageException("unknown option for " + cmd + ": " + flag);
            }
        }
        FileStoreTable table = openTable(args[1]);
        if (cmd.equals("write")) {
            String input = flags.get("--input");
            if (input == null) {
                throw new UsageException("write needs --input FILE");
            }
            String compact = flags.get("--compact");
            if (compact != null && !compact.equals("full")) {
                throw new UsageException("--compact takes full, got " + compact);
            }
            return Writes.write(
                    table,
                    Path.of(input),
                    flags.get("--commit-user"),
                    flags.get("--overwrite"),
                    compact != null);
        }
        if (cmd.equals("tag")) {
            Tags.create(table, flags);
            return null;
        }
        if (cmd.equals("delete-tag")) {
            Tags.delete(table, flags);
            return null;
        }
        if (cmd.equals("rollback")) {
            return Rollback.rollback(table, flags);
        }
        if (cmd.equals("expire")) {
            String message = Expire.expire(table, flags);
            String output = flags.get("--output");
            if (output != null) {
                Files.writeString(Path.of(output), message + "\n", StandardCharsets.UTF_8);
                return null;
            }
            return message;
        }
        Map<String, String> options = Map.of();
        for (String flag : List.of("--snapshot", "--tag", "--timestamp")) {
            if (flags.containsKey(flag)) {
                if (!options.isEmpty()) {
                    throw new UsageException("at most one of --snapshot, --tag, --timestamp");
                }
                options = timeTravelOption(flag, flags.get(flag));
            }
        }
        String output = flags.get("--output");
        String message = null;
        try (Writer w = output == null
                ? stdoutWriter(realOut)
                : Files.newBufferedWriter(Path.of(output), StandardCharsets.UTF_8)) {
            switch (cmd) {
                case "remove-orphans":
                    message = Orphans.removeOrphans(table, flags, w);
                    break;
                case "list":
                    for (String line : listEntries(table)) {
                        w.write(line);
                        w.write('\n');
                    }
                    break;
                case "files":
                    Writes.files(table, options, w);
                    break;
                case "buckets":
                    DynamicBuckets.buckets(table, w);
                    break;
                case "tags":
                    Tags.list(table, w);
                    break;
                case "changes":
                    Changes.changes(table, flags.get("--between"), flags.get("--options"),
                            Boolean.parseBoolean(flags.getOrDefault("--audit-log", "false")), w);
                    break;
                default: {
                    DumpStats stats = dump(table, options, w);
                    if (stats.retractSkipped > 0) {
                        System.err.println("fjord-oracle: note: skipped " + stats.retractSkipped
                                + " -D/-U rows");
                    }
                }
            }
            w.flush();
        }
        return message;
    }

    /** stream (StreamScan.java): its own flags (-o is repeatable, --commit-progress has no value). */
    private static String streamCommand(String[] args, PrintStream realOut) throws Exception {
        if (args.length < 2 || args[1].startsWith("-")) {
            throw new UsageException("stream needs a TABLE_DIR");
        }
        String output = null;
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--output")) {
                if (i + 1 >= args.length) {
                    throw new UsageException("option --output needs a value");
                }
                output = args[i + 1];
            }
        }
        try (Writer w = output == null
                ? stdoutWriter(realOut)
                : Files.newBufferedWriter(Path.of(output), StandardCharsets.UTF_8)) {
            StreamScan.run(args, w);
            w.flush();
        }
        return null;
    }

    /** create, alter and cast-pairs (Evolve.java). */
    private static String evolveCommand(String[] args) throws Exception {
        String cmd = args[0];
        if (args.length < 2 || args[1].startsWith("--")) {
            throw new UsageException(cmd + " needs a " + (cmd.equals("cast-pairs") ? "TYPES_FILE" : "TABLE_DIR"));
        }
        if (cmd.equals("cast-probe")) {
            // cast-probe FROM TO --input ROWS --output FILE
            if (args.length != 7 || !args[3].equals("--input") || !args[5].equals("--output")) {
                throw new UsageException("cast-probe FROM TO --input ROWS.jsonl --output FILE");
            }
            try (Writer w = Files.newBufferedWriter(Path.of(args[6]), StandardCharsets.UTF_8)) {
                Evolve.castProbe(args[1], args[2], Path.of(args[4]), w);
            }
            return null;
        }
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new UsageException("option " + args[i] + " needs a value");
            }
            flags.put(args[i], args[i + 1]);
        }
        List<String> allowed = cmd.equals("create") ? List.of("--columns", "--options")
                : cmd.equals("alter") ? List.of("--change-types", "--changes") : List.of("--output");
        for (String flag : flags.keySet()) {
            if (!allowed.contains(flag)) {
                throw new UsageException("unknown option for " + cmd + ": " + flag);
            }
        }
        switch (cmd) {
            case "create":
                if (!flags.containsKey("--columns")) {
                    throw new UsageException("create needs --columns JSON");
                }
                return Evolve.create(args[1], flags.get("--columns"), flags.get("--options"));
            case "alter":
                if (flags.containsKey("--changes")) {
                    return Evolve.alterPaths(args[1], flags.get("--changes"));
                }
                if (!flags.containsKey("--change-types")) {
                    throw new UsageException("alter needs --change-types JSON or --changes JSON");
                }
                return Evolve.alter(args[1], flags.get("--change-types"));
            default: {
                if (!flags.containsKey("--output")) {
                    throw new UsageException("cast-pairs needs --output FILE");
                }
                try (Writer w = Files.newBufferedWriter(
                             Path.of(flags.get("--output")), StandardCharsets.UTF_8)) {
                    Evolve.castPairs(Path.of(args[1]), w);
                }
                return null;
            }
        }
    }

    /**
     * Runs many commands in one JVM: each non-blank line of the file is a JSON array of strings, a
     * command line of list, dump, files, buckets or write (all but write need --output FILE). For
     * each line one JSON object goes to stdout: {"line": N, "ok": true|false, "message": "..."}.
     * Exit code 0 when every command succeeded, 3 otherwise (the others still ran).
     */
    private static int batch(String file, PrintStream realOut) throws IOException {
        // From stdin, lines are run as they arrive, each answer flushed at once: a driver may
        // talk to one JVM line by line.
        BufferedReader in = file.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8);
        Writer w = stdoutWriter(realOut);
        int failures = 0;
        StringBuilder sb = new StringBuilder();
        List<String> lines = new ArrayList<>();
        for (int n = 0; ; n++) {
            String next = in.readLine();
            if (next == null) {
                break;
            }
            lines.add(next);
            if (lines.get(n).isBlank()) {
                continue;
            }
            boolean ok;
            String message;
            try {
                Object parsed = Json.parse(lines.get(n));
                if (!(parsed instanceof List) || ((List<?>) parsed).isEmpty()) {
                    throw new UsageException("a batch line must be a non-empty JSON array of strings");
                }
                List<?> list = (List<?>) parsed;
                String[] args = new String[list.size()];
                for (int i = 0; i < args.length; i++) {
                    if (!(list.get(i) instanceof String)) {
                        throw new UsageException("a batch line must be a JSON array of strings");
                    }
                    args[i] = (String) list.get(i);
                }
                if (List.of("list", "dump", "files", "buckets", "changes", "stream", "cast-pairs",
                                "cast-probe", "dv-read")
                                .contains(args[0])
                        && !Arrays.asList(args).contains("--output")) {
                    throw new UsageException(args[0] + " in a batch needs --output FILE");
                }
                message = command(args, realOut);
                ok = true;
            } catch (Throwable t) {
                ok = false;
                message = describe(t);
                if (System.getenv("FJORD_ORACLE_TRACE") != null) {
                    t.printStackTrace(System.err);
                }
            }
            failures += ok ? 0 : 1;
            sb.setLength(0);
            sb.append("{\"line\":").append(n + 1).append(",\"ok\":").append(ok)
                    .append(",\"message\":");
            RowJson.appendString(sb, message == null ? "" : message);
            sb.append("}\n");
            w.append(sb);
            w.flush();
        }
        return failures == 0 ? 0 : 3;
    }

    private static Map<String, String> timeTravelOption(String flag, String value) {
        switch (flag) {
            case "--snapshot":
                return Map.of("scan.snapshot-id", Long.toString(parseLong(flag, value)));
            case "--tag":
                return Map.of("scan.tag-name", value);
            case "--timestamp":
                return Map.of("scan.timestamp-millis", Long.toString(parseLong(flag, value)));
            default:
                throw new UsageException("unknown option: " + flag);
        }
    }

    private static long parseLong(String flag, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " needs an integer, got: " + value);
        }
    }

    static Writer stdoutWriter(PrintStream realOut) {
        return new BufferedWriter(new OutputStreamWriter(realOut, StandardCharsets.UTF_8), 1 << 16);
    }

    static FileStoreTable openTable(String dir) {
        Path p = Path.of(dir).toAbsolutePath().normalize();
        if (!Files.isDirectory(p.resolve("schema"))) {
            throw new IllegalArgumentException("not a Paimon table directory (no schema/): " + p);
        }
        return FileStoreTableFactory.create(
                LocalFileIO.create(), new org.apache.paimon.fs.Path(p.toUri()));
    }

    /** "snapshot ID" for every readable snapshot file, then "tag NAME" for every tag. */
    static List<String> listEntries(FileStoreTable table) throws IOException {
        List<String> lines = new ArrayList<>();
        SnapshotManager sm = table.snapshotManager();
        List<Long> ids;
        if (table.fileIO().exists(sm.snapshotDirectory())) {
            try (Stream<Long> s = sm.snapshotIdStream()) {
                ids = s.sorted().collect(Collectors.toList());
            }
        } else {
            ids = Collections.emptyList();
        }
        for (long id : ids) {
            try {
                sm.tryGetSnapshot(id);
                lines.add("snapshot " + id);
            } catch (Exception e) {
                System.err.println("fjord-oracle: warning: snapshot " + id + " unreadable: "
                        + describe(e));
            }
        }
        List<String> tags = new ArrayList<>(table.tagManager().allTagNames());
        Collections.sort(tags);
        for (String tag : tags) {
            lines.add("tag " + tag);
        }
        return lines;
    }

    /** Batch-reads the whole table (at the time-travel point given by options) as JSON lines. */
    static DumpStats dump(FileStoreTable table, Map<String, String> options, Writer out)
            throws IOException {
        FileStoreTable t = options.isEmpty() ? table : table.copy(options);
        ReadBuilder rb = t.newReadBuilder();
        List<DataField> fields = rb.readType().getFields();
        List<Split> splits = rb.newScan().plan().splits();
        DumpStats stats = new DumpStats();
        StringBuilder line = new StringBuilder(256);
        IOException[] writeError = new IOException[1];
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            reader.forEachRemaining(row -> {
                RowKind kind = row.getRowKind();
                if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
                    stats.retractSkipped++;
                    return;
                }
                if (writeError[0] != null) {
                    return;
                }
                line.setLength(0);
                RowJson.appendRow(line, row, fields);
                line.append('\n');
                try {
                    out.append(line);
                } catch (IOException e) {
                    writeError[0] = e;
                }
                stats.rows++;
            });
        }
        if (writeError[0] != null) {
            throw writeError[0];
        }
        return stats;
    }

    /** Table directories (those holding a schema/ folder) under root, sorted, as relative paths. */
    static List<Path> findTables(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isDirectory)
                    .filter(d -> Files.isDirectory(d.resolve("schema")))
                    .map(root::relativize)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /**
     * Dumps every snapshot and tag of every table under root to OUT_DIR/REL/(snapshot-N|tag-NAME).jsonl.
     * A target Java cannot read gets a .error file holding the message instead. A summary of
     * everything goes to OUT_DIR/SUMMARY.tsv (and to stderr). Exit code 0 when every listed target
     * was dumped, 3 when some could not be read (the rest are still written).
     */
    static int dumpAll(Path root, Path outDir) throws IOException {
        root = root.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("no such directory: " + root);
        }
        List<Path> tables = findTables(root);
        if (tables.isEmpty()) {
            throw new IllegalArgumentException("no Paimon tables under " + root);
        }
        Files.createDirectories(outDir);
        List<String> summary = new ArrayList<>();
        summary.add("table\ttarget\trows\tstatus");
        int failures = 0;
        for (Path rel : tables) {
            Path tableOut = outDir.resolve(rel.toString());
            Files.createDirectories(tableOut);
            FileStoreTable table;
            List<String> entries;
            try {
                table = openTable(root.resolve(rel).toString());
                entries = listEntries(table);
            } catch (Exception e) {
                failures++;
                String msg = describe(e);
                Files.writeString(tableOut.resolve("list.error"), msg + "\n");
                summary.add(rel + "\t(list)\t-\tERROR " + oneLine(msg));
                continue;
            }
            for (String entry : entries) {
                String kind = entry.substring(0, entry.indexOf(' '));
                String name = entry.substring(entry.indexOf(' ') + 1);
                String base = kind + "-" + name;
                Map<String, String> opts = kind.equals("snapshot")
                        ? Map.of("scan.snapshot-id", name)
                        : Map.of("scan.tag-name", name);
                Path file = tableOut.resolve(base + ".jsonl");
                Path errFile = tableOut.resolve(base + ".error");
                Files.deleteIfExists(errFile);
                try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                    DumpStats stats = dump(table, opts, w);
                    summary.add(rel + "\t" + base + "\t" + stats.rows + "\tok"
                            + (stats.retractSkipped > 0
                                    ? " (skipped " + stats.retractSkipped + " -D/-U rows)"
                                    : ""));
                } catch (Exception e) {
                    failures++;
                    Files.deleteIfExists(file);
                    String msg = describe(e);
                    Files.writeString(errFile, msg + "\n");
                    summary.add(rel + "\t" + base + "\t-\tERROR " + oneLine(msg));
                }
            }
        }
        Files.write(outDir.resolve("SUMMARY.tsv"), summary, StandardCharsets.UTF_8);
        for (String s : summary) {
            System.err.println(s);
        }
        System.err.println("fjord-oracle: " + tables.size() + " tables, " + failures
                + " unreadable targets; output in " + outDir);
        return failures == 0 ? 0 : 3;
    }

    private static String oneLine(String s) {
        return s.replace('\t', ' ').replace('\n', ' ');
    }

    /** Exception chain as "Class: message; caused by Class: message ...". */
    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        int depth = 0;
        for (Throwable c = t; c != null && depth < 8; c = c.getCause(), depth++) {
            if (depth > 0) {
                sb.append("; caused by ");
            }
            sb.append(c.getClass().getName());
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
