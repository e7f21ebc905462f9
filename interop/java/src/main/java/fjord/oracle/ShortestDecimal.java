package fjord.oracle;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Shortest decimal representation of a float or double that reads back (with correct rounding) as
 * the same binary value.
 *
 * <p>Java 17's {@code Float.toString}/{@code Double.toString} do not always give the shortest
 * digits (JDK-4511638, fixed only in Java 19), so we search instead: for each number of significant
 * digits n = 1, 2, ..., take the two n-digit decimals that bracket the exact binary value (rounding
 * down and up) and keep those that parse back to the same value. The first n that has a candidate
 * wins; if both bracketing decimals round-trip, the one nearer the exact value is taken (a tie goes
 * to the half-even rounding). This is the same choice as C++'s {@code std::to_chars} shortest form.
 */
final class ShortestDecimal {
    private ShortestDecimal() {}

    /** Finite float to its shortest round-tripping decimal (trailing zeros stripped). */
    static BigDecimal ofFloat(float f) {
        if (Float.isNaN(f) || Float.isInfinite(f)) {
            throw new IllegalArgumentException("not finite: " + f);
        }
        if (f == 0.0f) {
            return BigDecimal.ZERO;
        }
        BigDecimal exact = new BigDecimal((double) f); // float -> double is exact
        for (int n = 1; n <= 9; n++) {
            BigDecimal best = pick(exact, n, true, f, 0.0);
            if (best != null) {
                return best;
            }
        }
        throw new IllegalStateException("no round-tripping decimal for float " + f);
    }

    /** Finite double to its shortest round-tripping decimal (trailing zeros stripped). */
    static BigDecimal ofDouble(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("not finite: " + d);
        }
        if (d == 0.0) {
            return BigDecimal.ZERO;
        }
        BigDecimal exact = new BigDecimal(d);
        for (int n = 1; n <= 17; n++) {
            BigDecimal best = pick(exact, n, false, 0.0f, d);
            if (best != null) {
                return best;
            }
        }
        throw new IllegalStateException("no round-tripping decimal for double " + d);
    }

    private static BigDecimal pick(BigDecimal exact, int n, boolean isFloat, float f, double d) {
        BigDecimal down = exact.round(new MathContext(n, RoundingMode.DOWN));
        BigDecimal up = exact.round(new MathContext(n, RoundingMode.UP));
        boolean downOk = roundTrips(down, isFloat, f, d);
        boolean upOk = roundTrips(up, isFloat, f, d);
        if (downOk && upOk) {
            int cmp = exact.subtract(down).abs().compareTo(up.subtract(exact).abs());
            if (cmp < 0) {
                return down.stripTrailingZeros();
            } else if (cmp > 0) {
                return up.stripTrailingZeros();
            }
            return exact.round(new MathContext(n, RoundingMode.HALF_EVEN)).stripTrailingZeros();
        }
        if (downOk) {
            return down.stripTrailingZeros();
        }
        if (upOk) {
            return up.stripTrailingZeros();
        }
        return null;
    }

    private static boolean roundTrips(BigDecimal candidate, boolean isFloat, float f, double d) {
        // Float.parseFloat / Double.parseDouble are correctly rounded.
        String s = candidate.toString();
        if (isFloat) {
            return Float.floatToIntBits(Float.parseFloat(s)) == Float.floatToIntBits(f);
        }
        return Double.doubleToLongBits(Double.parseDouble(s)) == Double.doubleToLongBits(d);
    }

    /**
     * JSON number text for a shortest decimal: plain notation for moderate magnitudes, otherwise
     * scientific ("1.5E+30"), which is valid JSON.
     */
    static String toJsonNumber(BigDecimal v, boolean negativeZero) {
        if (v.signum() == 0) {
            return negativeZero ? "-0.0" : "0.0";
        }
        int adjusted = v.precision() - v.scale() - 1; // exponent of the leading digit
        if (adjusted >= -7 && adjusted < 21) {
            String plain = v.toPlainString();
            return plain.indexOf('.') < 0 ? plain + ".0" : plain;
        }
        return v.toString();
    }

    static String floatJson(float f) {
        if (Float.isNaN(f)) {
            return "\"NaN\"";
        }
        if (Float.isInfinite(f)) {
            return f > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        }
        return toJsonNumber(ofFloat(f), f == 0.0f && Float.floatToRawIntBits(f) != 0);
    }

    static String doubleJson(double d) {
        if (Double.isNaN(d)) {
            return "\"NaN\"";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        }
        return toJsonNumber(ofDouble(d), d == 0.0 && Double.doubleToRawLongBits(d) != 0);
    }
}
