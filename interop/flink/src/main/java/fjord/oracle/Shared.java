package fjord.oracle;

import java.util.List;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;

/**
 * The Java oracle's canonical JSON form and JSON parser, opened to fjord-flink. RowJson, Json and
 * ShortestDecimal are compiled from interop/java (see pom.xml), package-private there; this class
 * lives in their package and hands them out.
 */
public final class Shared {
    private Shared() {}

    /** Appends one row as a canonical JSON object with the given fields (schema order). */
    public static void appendRow(StringBuilder out, InternalRow row, List<DataField> fields) {
        RowJson.appendRow(out, row, fields);
    }

    /** Appends a JSON string: escapes only '"', '\\' and control characters. */
    public static void appendString(StringBuilder out, String s) {
        RowJson.appendString(out, s);
    }

    /** Parses one JSON value: null, Boolean, String, a number (as its text), List or Map. */
    public static Object parseJson(String text) {
        Object v = Json.parse(text);
        return v instanceof Json.Num ? ((Json.Num) v).text : v;
    }
}
