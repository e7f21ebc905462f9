package fjord.flink;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * SQL functions that turn Debezium's JSON encodings of time columns into SQL values, for {@code
 * bench --format debezium-json} (bench/cdc_bench.py). Flink's {@code debezium-json} format reads a
 * column as its JSON value and knows nothing of the logical types in the schema: an {@code
 * io.debezium.time.Date} is the days since 1970-01-01 (read as INT), an {@code
 * io.debezium.time.MicroTimestamp} the microseconds since 1970-01-01T00:00 (BIGINT). A Flink user
 * of these messages writes such functions; the benchmark's query calls them. (Decimals need none:
 * the benchmark's messages carry them as JSON numbers, the JSON converter's {@code decimal.format
 * = NUMERIC}.)
 */
final class ConnectTypes {
    private ConnectTypes() {}

    static void register(StreamTableEnvironment tEnv) {
        tEnv.createTemporarySystemFunction("DEBEZIUM_DATE", DebeziumDate.class);
        tEnv.createTemporarySystemFunction("DEBEZIUM_MICRO_TIMESTAMP", MicroTimestamp.class);
    }

    /** DEBEZIUM_DATE(days since the epoch): DATE. */
    public static final class DebeziumDate extends ScalarFunction {
        public LocalDate eval(Integer days) {
            return days == null ? null : LocalDate.ofEpochDay(days);
        }
    }

    /** DEBEZIUM_MICRO_TIMESTAMP(microseconds since the epoch): TIMESTAMP(6). */
    public static final class MicroTimestamp extends ScalarFunction {
        public @DataTypeHint("TIMESTAMP(6)") LocalDateTime eval(Long micros) {
            if (micros == null) {
                return null;
            }
            long seconds = Math.floorDiv(micros, 1_000_000L);
            int nanos = (int) Math.floorMod(micros, 1_000_000L) * 1000;
            return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
        }
    }
}
