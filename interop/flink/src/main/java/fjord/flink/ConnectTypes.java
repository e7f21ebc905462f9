package fjord.flink;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.DataTypeFactory;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.inference.TypeInference;

/**
 * SQL functions that turn Kafka Connect's JSON encodings of Debezium columns into SQL values, for
 * {@code bench --format debezium-json} (bench/cdc_bench.py). Flink's {@code debezium-json} format
 * reads a column as its JSON value: a DECIMAL column of Debezium's default {@code
 * decimal.handling.mode = precise} is a base64 string of the unscaled big-endian two's-complement
 * integer (read as BYTES), an {@code io.debezium.time.Date} the days since 1970-01-01 (INT), an
 * {@code io.debezium.time.MicroTimestamp} the microseconds since 1970-01-01T00:00 (BIGINT). A
 * Flink user of these messages writes such functions; the benchmark's query calls them.
 */
final class ConnectTypes {
    private ConnectTypes() {}

    static void register(StreamTableEnvironment tEnv) {
        tEnv.createTemporarySystemFunction("CONNECT_DECIMAL", ConnectDecimal.class);
        tEnv.createTemporarySystemFunction("DEBEZIUM_DATE", DebeziumDate.class);
        tEnv.createTemporarySystemFunction("DEBEZIUM_MICRO_TIMESTAMP", MicroTimestamp.class);
    }

    /** CONNECT_DECIMAL(bytes, precision, scale): DECIMAL(precision, scale); literals p and s. */
    public static final class ConnectDecimal extends ScalarFunction {
        public BigDecimal eval(byte[] unscaled, Integer precision, Integer scale) {
            if (unscaled == null) {
                return null;
            }
            return new BigDecimal(new BigInteger(unscaled), scale);
        }

        @Override
        public TypeInference getTypeInference(DataTypeFactory typeFactory) {
            return TypeInference.newBuilder()
                    .typedArguments(DataTypes.BYTES(), DataTypes.INT().notNull(), DataTypes.INT().notNull())
                    .outputTypeStrategy(call -> {
                        Optional<Integer> p = call.getArgumentValue(1, Integer.class);
                        Optional<Integer> s = call.getArgumentValue(2, Integer.class);
                        if (p.isEmpty() || s.isEmpty()) {
                            throw new ValidationException("CONNECT_DECIMAL: precision and scale must be literals");
                        }
                        return Optional.of(DataTypes.DECIMAL(p.get(), s.get()));
                    })
                    .build();
        }
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
