package fjord.oracle;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * The inverse of {@link RowJson}: parses a row in the canonical JSON-lines form (see README.md)
 * into a Paimon {@link GenericRow} of a given row type. Strict: a value of the wrong JSON kind, an
 * integer out of range, a DECIMAL with more fractional digits than its scale, an unknown key or a
 * malformed date/time is an error naming the column. A missing key is NULL. The optional key
 * {@code _row_kind} ({@code +I}, {@code -U}, {@code +U}, {@code -D}) sets the row kind (default +I).
 */
final class JsonRows {
    static final String ROW_KIND_KEY = "_row_kind";

    private JsonRows() {}

    /** One top-level row. */
    static GenericRow parseRow(String line, RowType type) {
        Object v = Json.parse(line);
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException("a row must be a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> obj = new LinkedHashMap<>((Map<String, Object>) v);
        RowKind kind = RowKind.INSERT;
        if (obj.containsKey(ROW_KIND_KEY)) {
            Object k = obj.remove(ROW_KIND_KEY);
            if (!(k instanceof String)) {
                throw new IllegalArgumentException(ROW_KIND_KEY + " must be one of +I, -U, +U, -D");
            }
            try {
                kind = RowKind.fromShortString((String) k);
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                throw new IllegalArgumentException(
                        ROW_KIND_KEY + " must be one of +I, -U, +U, -D, got " + k);
            }
        }
        GenericRow row = toRow(obj, type, "");
        row.setRowKind(kind);
        return row;
    }

    private static GenericRow toRow(Map<String, Object> obj, RowType type, String prefix) {
        List<DataField> fields = type.getFields();
        GenericRow row = new GenericRow(fields.size());
        int matched = 0;
        for (int i = 0; i < fields.size(); i++) {
            DataField f = fields.get(i);
            String path = prefix + f.name();
            if (obj.containsKey(f.name())) {
                matched++;
                row.setField(i, convert(obj.get(f.name()), f.type(), path));
            } else {
                row.setField(i, null);
            }
            if (row.isNullAt(i) && !f.type().isNullable()) {
                throw new IllegalArgumentException("column '" + path + "' is NOT NULL");
            }
        }
        if (matched != obj.size()) {
            for (String key : obj.keySet()) {
                if (type.getFieldIndex(key) < 0) {
                    throw new IllegalArgumentException("unknown column '" + prefix + key + "'");
                }
            }
        }
        return row;
    }

    private static IllegalArgumentException bad(String path, DataType type, Object v, String why) {
        return new IllegalArgumentException("column '" + path + "' (" + type + "): " + why + ": "
                + (v instanceof String ? "\"" + v + "\"" : String.valueOf(v)));
    }

    /** Converts one JSON value to Paimon's internal representation of type. */
    static Object convert(Object v, DataType type, String path) {
        if (v == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                if (!(v instanceof Boolean)) {
                    throw bad(path, type, v, "expected true or false");
                }
                return v;
            case TINYINT:
                return (byte) integer(v, type, path, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT:
                return (short) integer(v, type, path, Short.MIN_VALUE, Short.MAX_VALUE);
            case INTEGER:
                return (int) integer(v, type, path, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT:
                return integer(v, type, path, Long.MIN_VALUE, Long.MAX_VALUE);
            case FLOAT: {
                String special = nonFinite(v);
                if (special != null) {
                    return Float.parseFloat(special);
                }
                if (!(v instanceof Json.Num)) {
                    throw bad(path, type, v, "expected a number or \"NaN\"/\"Infinity\"/\"-Infinity\"");
                }
                // correctly rounded from the decimal text (no detour through double)
                return Float.parseFloat(((Json.Num) v).text);
            }
            case DOUBLE: {
                String special = nonFinite(v);
                if (special != null) {
                    return Double.parseDouble(special);
                }
                if (!(v instanceof Json.Num)) {
                    throw bad(path, type, v, "expected a number or \"NaN\"/\"Infinity\"/\"-Infinity\"");
                }
                return Double.parseDouble(((Json.Num) v).text);
            }
            case DECIMAL: {
                DecimalType dt = (DecimalType) type;
                if (!(v instanceof String) && !(v instanceof Json.Num)) {
                    throw bad(path, type, v, "expected a decimal string");
                }
                BigDecimal bd;
                try {
                    bd = new BigDecimal(v.toString());
                } catch (NumberFormatException e) {
                    throw bad(path, type, v, "not a decimal");
                }
                try {
                    bd = bd.setScale(dt.getScale()); // exact: never rounds
                } catch (ArithmeticException e) {
                    throw bad(path, type, v, "more fractional digits than the scale");
                }
                Decimal d = Decimal.fromBigDecimal(bd, dt.getPrecision(), dt.getScale());
                if (d == null) {
                    throw bad(path, type, v, "does not fit the precision");
                }
                return d;
            }
            case CHAR:
            case VARCHAR:
                if (!(v instanceof String)) {
                    throw bad(path, type, v, "expected a string");
                }
                return BinaryString.fromString((String) v);
            case BINARY:
            case VARBINARY:
                if (!(v instanceof String)) {
                    throw bad(path, type, v, "expected a base64 string");
                }
                try {
                    return Base64.getDecoder().decode((String) v);
                } catch (IllegalArgumentException e) {
                    throw bad(path, type, v, "not base64");
                }
            case DATE:
                try {
                    return (int) LocalDate.parse(text(v, type, path)).toEpochDay();
                } catch (DateTimeParseException e) {
                    throw bad(path, type, v, "expected YYYY-MM-DD");
                }
            case TIME_WITHOUT_TIME_ZONE:
                try {
                    LocalTime t = LocalTime.parse(text(v, type, path));
                    return (int) (t.toNanoOfDay() / 1_000_000L);
                } catch (DateTimeParseException e) {
                    throw bad(path, type, v, "expected HH:MM:SS[.fff]");
                }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                try {
                    return Timestamp.fromLocalDateTime(LocalDateTime.parse(text(v, type, path)));
                } catch (DateTimeParseException e) {
                    throw bad(path, type, v, "expected YYYY-MM-DDTHH:MM:SS[.fffffffff]");
                }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                String s = text(v, type, path);
                if (!s.endsWith("Z")) {
                    throw bad(path, type, v, "expected a UTC instant ending in Z");
                }
                try {
                    // Paimon keeps the UTC instant; its "local date-time" is the UTC wall clock.
                    return Timestamp.fromLocalDateTime(
                            LocalDateTime.parse(s.substring(0, s.length() - 1)));
                } catch (DateTimeParseException e) {
                    throw bad(path, type, v, "expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z");
                }
            }
            case ARRAY: {
                List<?> list = list(v, type, path);
                DataType elem = ((ArrayType) type).getElementType();
                Object[] out = new Object[list.size()];
                for (int i = 0; i < out.length; i++) {
                    out[i] = convert(list.get(i), elem, path + "[" + i + "]");
                    if (out[i] == null && !elem.isNullable()) {
                        throw bad(path, type, v, "NULL element in an array of NOT NULL");
                    }
                }
                return new GenericArray(out);
            }
            case MULTISET: {
                List<?> list = list(v, type, path);
                DataType elem = ((MultisetType) type).getElementType();
                Map<Object, Object> counts = new LinkedHashMap<>();
                for (int i = 0; i < list.size(); i++) {
                    Object e = convert(list.get(i), elem, path + "[" + i + "]");
                    counts.merge(e, 1, (a, b) -> (Integer) a + (Integer) b);
                }
                return new GenericMap(counts);
            }
            case MAP: {
                MapType mt = (MapType) type;
                List<?> list = list(v, type, path);
                Map<Object, Object> out = new LinkedHashMap<>();
                for (int i = 0; i < list.size(); i++) {
                    Object pair = list.get(i);
                    if (!(pair instanceof List) || ((List<?>) pair).size() != 2) {
                        throw bad(path, type, v, "expected a list of [key, value] pairs");
                    }
                    List<?> kv = (List<?>) pair;
                    Object key = convert(kv.get(0), mt.getKeyType(), path + "{key " + i + "}");
                    Object value = convert(kv.get(1), mt.getValueType(), path + "{value " + i + "}");
                    if (out.containsKey(key)) {
                        throw bad(path, type, v, "duplicate map key");
                    }
                    out.put(key, value);
                }
                return new GenericMap(out);
            }
            case ROW: {
                if (!(v instanceof Map)) {
                    throw bad(path, type, v, "expected an object");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> obj = (Map<String, Object>) v;
                return toRow(obj, (RowType) type, path + ".");
            }
            default:
                throw new UnsupportedOperationException(
                        "column '" + path + "': type not supported by the oracle's JSON form: " + type);
        }
    }

    private static long integer(Object v, DataType type, String path, long min, long max) {
        if (!(v instanceof Json.Num) || !((Json.Num) v).isInteger()) {
            throw bad(path, type, v, "expected an integer");
        }
        BigInteger b = new BigInteger(((Json.Num) v).text);
        if (b.compareTo(BigInteger.valueOf(min)) < 0 || b.compareTo(BigInteger.valueOf(max)) > 0) {
            throw bad(path, type, v, "out of range");
        }
        return b.longValue();
    }

    private static String nonFinite(Object v) {
        if ("NaN".equals(v) || "Infinity".equals(v) || "-Infinity".equals(v)) {
            return (String) v;
        }
        return null;
    }

    private static String text(Object v, DataType type, String path) {
        if (!(v instanceof String)) {
            throw bad(path, type, v, "expected a string");
        }
        return (String) v;
    }

    private static List<?> list(Object v, DataType type, String path) {
        if (!(v instanceof List)) {
            throw bad(path, type, v, "expected a list");
        }
        return (List<?>) v;
    }
}
