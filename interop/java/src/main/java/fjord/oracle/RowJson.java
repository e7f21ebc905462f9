package fjord.oracle;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Base64;
import java.util.List;

import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimeType;
import org.apache.paimon.types.TimestampType;

/**
 * Renders Paimon rows in Fjord's canonical JSON-lines form (see interop/java/README.md).
 *
 * <p>Both {@link InternalRow} and {@link InternalArray} are {@link DataGetters}, so one positional
 * renderer serves top-level fields, nested row fields, array elements and map keys/values.
 */
final class RowJson {
    private RowJson() {}

    /** Appends one row as a JSON object with the given fields (schema order). */
    static void appendRow(StringBuilder out, InternalRow row, List<DataField> fields) {
        out.append('{');
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            DataField field = fields.get(i);
            appendString(out, field.name());
            out.append(':');
            appendValue(out, row, i, field.type());
        }
        out.append('}');
    }

    static void appendValue(StringBuilder out, DataGetters g, int pos, DataType type) {
        if (g.isNullAt(pos)) {
            out.append("null");
            return;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                out.append(g.getBoolean(pos) ? "true" : "false");
                break;
            case TINYINT:
                out.append(g.getByte(pos));
                break;
            case SMALLINT:
                out.append(g.getShort(pos));
                break;
            case INTEGER:
                out.append(g.getInt(pos));
                break;
            case BIGINT:
                out.append(g.getLong(pos));
                break;
            case FLOAT:
                out.append(ShortestDecimal.floatJson(g.getFloat(pos)));
                break;
            case DOUBLE:
                out.append(ShortestDecimal.doubleJson(g.getDouble(pos)));
                break;
            case DECIMAL: {
                DecimalType dt = (DecimalType) type;
                Decimal d = g.getDecimal(pos, dt.getPrecision(), dt.getScale());
                if (d == null) {
                    // A schema-evolution cast to a DECIMAL too small for the value: the row says
                    // "not null", but the cast gave null (Decimal.fromBigDecimal).
                    out.append("null");
                    break;
                }
                BigDecimal v = d.toBigDecimal();
                // exact: the stored value already has this scale; setScale only pads if needed
                out.append('"').append(v.setScale(dt.getScale()).toPlainString()).append('"');
                break;
            }
            case CHAR:
            case VARCHAR:
                appendString(out, g.getString(pos).toString());
                break;
            case BINARY:
            case VARBINARY:
                out.append('"').append(Base64.getEncoder().encodeToString(g.getBinary(pos))).append('"');
                break;
            case DATE:
                out.append('"');
                appendDate(out, LocalDate.ofEpochDay(g.getInt(pos)));
                out.append('"');
                break;
            case TIME_WITHOUT_TIME_ZONE: {
                int millisOfDay = g.getInt(pos);
                out.append('"');
                appendTime(out, millisOfDay / 3_600_000, (millisOfDay / 60_000) % 60,
                        (millisOfDay / 1000) % 60);
                if (((TimeType) type).getPrecision() > 0) {
                    out.append('.');
                    pad(out, millisOfDay % 1000, 3);
                }
                out.append('"');
                break;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE: {
                int p = ((TimestampType) type).getPrecision();
                out.append('"');
                appendTimestamp(out, g.getTimestamp(pos, p), p);
                out.append('"');
                break;
            }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int p = ((LocalZonedTimestampType) type).getPrecision();
                out.append('"');
                // Paimon keeps LTZ values as epoch millis (+ nanos) of the UTC instant, so the
                // "local date-time" of the Timestamp object is the UTC wall clock.
                appendTimestamp(out, g.getTimestamp(pos, p), p);
                out.append("Z\"");
                break;
            }
            case ARRAY:
                appendArray(out, g.getArray(pos), ((ArrayType) type).getElementType());
                break;
            case MULTISET: {
                // Paimon stores a multiset as MAP<element, INT count>; rendered as a list with each
                // element repeated count times (in the map's iteration order).
                InternalMap m = g.getMap(pos);
                DataType elem = ((MultisetType) type).getElementType();
                InternalArray keys = m.keyArray();
                InternalArray counts = m.valueArray();
                out.append('[');
                boolean first = true;
                for (int i = 0; i < m.size(); i++) {
                    int count = counts.isNullAt(i) ? 0 : counts.getInt(i);
                    for (int c = 0; c < count; c++) {
                        if (!first) {
                            out.append(',');
                        }
                        first = false;
                        appendValue(out, keys, i, elem);
                    }
                }
                out.append(']');
                break;
            }
            case MAP: {
                MapType mt = (MapType) type;
                InternalMap m = g.getMap(pos);
                InternalArray keys = m.keyArray();
                InternalArray values = m.valueArray();
                out.append('[');
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    out.append('[');
                    appendValue(out, keys, i, mt.getKeyType());
                    out.append(',');
                    appendValue(out, values, i, mt.getValueType());
                    out.append(']');
                }
                out.append(']');
                break;
            }
            case ROW: {
                RowType rt = (RowType) type;
                appendRow(out, g.getRow(pos, rt.getFieldCount()), rt.getFields());
                break;
            }
            default:
                throw new UnsupportedOperationException(
                        "type not supported by the oracle's JSON form: " + type);
        }
    }

    private static void appendArray(StringBuilder out, InternalArray a, DataType elem) {
        out.append('[');
        for (int i = 0; i < a.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            appendValue(out, a, i, elem);
        }
        out.append(']');
    }

    private static void appendTimestamp(StringBuilder out, Timestamp ts, int precision) {
        LocalDateTime ldt = ts.toLocalDateTime();
        appendDate(out, ldt.toLocalDate());
        out.append('T');
        appendTime(out, ldt.getHour(), ldt.getMinute(), ldt.getSecond());
        if (precision > 0) {
            // nano-of-second, always in [0, 1e9), then cut to `precision` digits
            StringBuilder nanos = new StringBuilder(9);
            pad(nanos, ldt.getNano(), 9);
            out.append('.').append(nanos, 0, Math.min(precision, 9));
        }
    }

    private static void appendDate(StringBuilder out, LocalDate d) {
        int year = d.getYear();
        if (year < 0) {
            out.append('-');
            pad(out, -year, 4);
        } else if (year > 9999) {
            out.append('+').append(year);
        } else {
            pad(out, year, 4);
        }
        out.append('-');
        pad(out, d.getMonthValue(), 2);
        out.append('-');
        pad(out, d.getDayOfMonth(), 2);
    }

    private static void appendTime(StringBuilder out, int h, int m, int s) {
        pad(out, h, 2);
        out.append(':');
        pad(out, m, 2);
        out.append(':');
        pad(out, s, 2);
    }

    private static void pad(StringBuilder out, long v, int width) {
        String s = Long.toString(v);
        for (int i = s.length(); i < width; i++) {
            out.append('0');
        }
        out.append(s);
    }

    /** JSON string: escapes only '"', '\\' and control characters (as \\uXXXX). */
    static void appendString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
