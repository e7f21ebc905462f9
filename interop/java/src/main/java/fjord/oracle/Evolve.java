package fjord.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.paimon.casting.CastExecutor;
import org.apache.paimon.casting.CastExecutors;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeCasts;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * Schema evolution through Java Paimon's own catalog: `create` (a table of given columns), `alter`
 * (ALTER TABLE ... MODIFY COLUMN: SchemaChange.updateColumnType) and `cast-pairs` (which type
 * changes ALTER TABLE accepts, as SchemaManager decides them).
 *
 * <p>A table directory WAREHOUSE/DB.db/TABLE is opened through the filesystem catalog of
 * WAREHOUSE as table DB.TABLE.
 */
final class Evolve {
    private Evolve() {}

    /** The catalog of a table directory and the table's identifier in it. */
    private static final class Located implements AutoCloseable {
        final Catalog catalog;
        final Identifier id;

        Located(String tableDir) {
            Path p = Path.of(tableDir).toAbsolutePath().normalize();
            String db = p.getParent().getFileName().toString();
            if (!db.endsWith(".db")) {
                throw new IllegalArgumentException(
                        "a table directory is WAREHOUSE/DB.db/TABLE, got " + p);
            }
            Path warehouse = p.getParent().getParent();
            catalog = CatalogFactory.createCatalog(
                    CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri())));
            id = Identifier.create(db.substring(0, db.length() - 3), p.getFileName().toString());
        }

        @Override
        public void close() throws Exception {
            catalog.close();
        }
    }

    /**
     * A type in Paimon's SQL spelling: atomic (INT, DECIMAL(10, 2), TIMESTAMP(3) WITH LOCAL TIME
     * ZONE) or nested: ARRAY<T>, MULTISET<T>, MAP<K, V>, ROW<name T, ...>.
     */
    static DataType type(String sql) {
        String s = sql.strip();
        String upper = s.toUpperCase(java.util.Locale.ROOT);
        for (String open : new String[] {"ARRAY<", "MULTISET<", "MAP<", "ROW<"}) {
            if (upper.startsWith(open) && s.endsWith(">")) {
                List<String> parts = splitTopLevel(s.substring(open.length(), s.length() - 1));
                switch (open) {
                    case "ARRAY<":
                        return DataTypes.ARRAY(type(parts.get(0)));
                    case "MULTISET<":
                        return DataTypes.MULTISET(type(parts.get(0)));
                    case "MAP<":
                        return DataTypes.MAP(type(parts.get(0)), type(parts.get(1)));
                    default: {
                        List<org.apache.paimon.types.DataField> fields = new ArrayList<>();
                        for (String part : parts) {
                            String p = part.strip();
                            int blank = p.indexOf(' ');
                            fields.add(DataTypes.FIELD(fields.size(), p.substring(0, blank),
                                    type(p.substring(blank + 1))));
                        }
                        return DataTypes.ROW(fields.toArray(new org.apache.paimon.types.DataField[0]));
                    }
                }
            }
        }
        DataType t = DataTypeJsonParser.parseAtomicTypeSQLString(s);
        if (t == null) {
            throw new IllegalArgumentException("not a type: " + sql);
        }
        return t;
    }

    /** `text` split at the commas outside <> and (). */
    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '<' || c == '(') {
                depth++;
            } else if (c == '>' || c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }

    /**
     * create TABLE_DIR --columns JSON [--options JSON]: JSON is an array of [name, type] pairs (and
     * an object of table options); the database is created when missing.
     */
    static String create(String tableDir, String columnsJson, String optionsJson) throws Exception {
        Schema.Builder schema = Schema.newBuilder();
        for (Object c : (List<?>) Json.parse(columnsJson)) {
            List<?> pair = (List<?>) c;
            schema.column((String) pair.get(0), type((String) pair.get(1)));
        }
        if (optionsJson != null) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) Json.parse(optionsJson)).entrySet()) {
                schema.option((String) e.getKey(), (String) e.getValue());
            }
        }
        try (Located t = new Located(tableDir)) {
            t.catalog.createDatabase(t.id.getDatabaseName(), true);
            t.catalog.createTable(t.id, schema.build(), false);
        }
        return "created " + tableDir;
    }

    /**
     * alter TABLE_DIR --change-types JSON: JSON is an object {column: new type}; every change goes
     * to one Catalog.alterTable call (one new schema), as ALTER TABLE ... MODIFY does. A column
     * "c.element" or "c.value" names the element type of an ARRAY or the value type of a MAP.
     */
    static String alter(String tableDir, String changesJson) throws Exception {
        List<SchemaChange> changes = new ArrayList<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) Json.parse(changesJson)).entrySet()) {
            // "col.element" / "col.value": a type inside an ARRAY or MAP column
            String[] path = ((String) e.getKey()).split("\\.");
            changes.add(SchemaChange.updateColumnType(path, type((String) e.getValue()), false));
        }
        try (Located t = new Located(tableDir)) {
            t.catalog.alterTable(t.id, changes, false);
        }
        return "altered " + changes.size() + " columns";
    }

    /**
     * alter TABLE_DIR --changes JSON: JSON is an array of objects, each one SchemaChange on a field
     * path ("c" or "c.f.g"; "element" / "value" step into ARRAY / MAP): {"op": "add", "path", "type",
     * optional "first": true or "after": NAME}, {"op": "drop", "path"}, {"op": "rename", "path",
     * "to"}, {"op": "type", "path", "type"}. All go to one Catalog.alterTable call.
     */
    static String alterPaths(String tableDir, String changesJson) throws Exception {
        List<SchemaChange> changes = new ArrayList<>();
        for (Object o : (List<?>) Json.parse(changesJson)) {
            Map<?, ?> c = (Map<?, ?>) o;
            String[] path = ((String) c.get("path")).split("\\.");
            String op = (String) c.get("op");
            switch (op) {
                case "add": {
                    String last = path[path.length - 1];
                    SchemaChange.Move move = null;
                    if (Boolean.TRUE.equals(c.get("first"))) {
                        move = SchemaChange.Move.first(last);
                    } else if (c.get("after") != null) {
                        move = SchemaChange.Move.after(last, (String) c.get("after"));
                    }
                    changes.add(SchemaChange.addColumn(path, type((String) c.get("type")), null, move));
                    break;
                }
                case "drop":
                    changes.add(SchemaChange.dropColumn(path));
                    break;
                case "rename":
                    changes.add(SchemaChange.renameColumn(path, (String) c.get("to")));
                    break;
                case "type":
                    changes.add(SchemaChange.updateColumnType(path, type((String) c.get("type")), false));
                    break;
                default:
                    throw new IllegalArgumentException("unknown change op: " + op);
            }
        }
        try (Located t = new Located(tableDir)) {
            t.catalog.alterTable(t.id, changes, false);
        }
        return "altered with " + changes.size() + " changes";
    }

    /**
     * cast-pairs --types FILE: for every ordered pair of the types listed in FILE (one per line),
     * one line "FROM\tTO\tEXPLICIT\tIMPLICIT": whether SchemaManager's update-column-type check
     * passes with explicit casts allowed (the default) and with `disable-explicit-type-casting`
     * set. The check: DataTypeCasts.supportsCast(from, to, allowExplicit) and a CastExecutors rule
     * that resolves to an executor.
     */
    static void castPairs(Path typesFile, Writer out) throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : Files.readAllLines(typesFile)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.strip());
            }
        }
        for (String from : names) {
            for (String to : names) {
                if (from.equals(to)) {
                    continue;
                }
                DataType f = type(from);
                DataType t = type(to);
                boolean rule = CastExecutors.resolve(f, t) != null;
                boolean explicit = DataTypeCasts.supportsCast(f, t, true) && rule;
                boolean implicit = DataTypeCasts.supportsCast(f, t, false) && rule;
                out.write(from + "\t" + to + "\t" + explicit + "\t" + implicit + "\n");
            }
        }
    }

    /**
     * cast-probe FROM TO --input ROWS.jsonl --output FILE: applies Java's cast executor for FROM to
     * TO (CastExecutors.resolve, as the evolved read uses it) to column `v` of every row, in
     * memory; one line per row: "ok" or "throws: <exception>". Lets a test know in advance which
     * values make Java's read of an evolved table fail.
     */
    @SuppressWarnings("unchecked")
    static void castProbe(String from, String to, Path input, Writer out) throws IOException {
        RowType rowType = RowType.of(new DataType[] {DataTypes.INT(), type(from)},
                new String[] {"id", "v"});
        CastExecutor<Object, Object> cast =
                (CastExecutor<Object, Object>) CastExecutors.resolve(type(from), type(to));
        if (cast == null) {
            throw new IllegalArgumentException("no cast from " + from + " to " + to);
        }
        try (BufferedReader r = Files.newBufferedReader(input)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                GenericRow row = JsonRows.parseRow(line, rowType);
                String result = "ok";
                if (!row.isNullAt(1)) {
                    try {
                        cast.cast(row.getField(1));
                    } catch (Throwable t) {
                        result = "throws: " + Oracle.describe(t).replace('\n', ' ');
                    }
                }
                out.write(result + "\n");
            }
        }
    }
}
