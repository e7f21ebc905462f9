#include "fjord/cdc/postgres_types.h"

#include <cstdlib>
#include <ctime>

#include "fjord/testing/test_util.h"

namespace fjord::cdc {
namespace {

std::string TypeOf(uint32_t oid, int32_t typmod, const TypeMapping& mapping = {}) {
  auto t = PostgresToPaimonType(oid, typmod, mapping);
  return t.ok() ? (*t)->ToString() : t.status().ToString();
}

// Modifiers as PostgreSQL stores them: varchar(n)/char(n) n + 4, numeric(p,s) (p << 16 | s) + 4,
// time/timestamp(p) p.
int32_t Numeric(int p, int s) { return ((p << 16) | s) + 4; }

TEST(PostgresTypesTest, TypesAsJavaPostgresTypeUtils) {
  EXPECT_EQ(TypeOf(pg_oid::kInt2, -1), DataType::SmallInt()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kInt4, -1), DataType::Int()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kInt8, -1), DataType::BigInt()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kFloat4, -1), DataType::Float()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kFloat8, -1), DataType::Double()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kBool, -1), DataType::Boolean()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kBytea, -1), DataType::Bytes()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kNumeric, Numeric(10, 2)), DataType::Decimal(10, 2)->ToString());
  // numeric without precision: DECIMAL(38, 18) as Java.
  EXPECT_EQ(TypeOf(pg_oid::kNumeric, -1), DataType::Decimal(38, 18)->ToString());
  EXPECT_THAT(PostgresToPaimonType(pg_oid::kNumeric, Numeric(50, 2), {}),
              IsError(StatusCode::kNotImplemented, "numeric(50,2)"));
  EXPECT_EQ(TypeOf(pg_oid::kVarchar, 20 + 4), DataType::VarChar(20)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kVarchar, -1), DataType::String()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kBpchar, 5 + 4), DataType::Char(5)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kText, -1), DataType::String()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kJson, -1), DataType::String()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kJsonb, -1), DataType::String()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kUuid, -1), DataType::String()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kDate, -1), DataType::Date()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kTime, 3), DataType::Time(3)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kTime, -1), DataType::Time(6)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kTimestamp, 3), DataType::Timestamp(3)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kTimestamp, -1), DataType::Timestamp(6)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kTimestamptz, -1), DataType::TimestampLtz(6)->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kTimestamptz, 0), DataType::TimestampLtz(0)->ToString());
  // bit(1) is a boolean, bit(n) n bits in whole bytes.
  EXPECT_EQ(TypeOf(pg_oid::kBit, 1), DataType::Boolean()->ToString());
  EXPECT_EQ(TypeOf(pg_oid::kBit, 10), DataType::Binary(2)->ToString());
  // Arrays of the types Java lists, with the element's modifier.
  EXPECT_EQ(TypeOf(1007, -1), DataType::Array(DataType::Int())->ToString());
  EXPECT_EQ(TypeOf(1015, 10 + 4), DataType::Array(DataType::VarChar(10))->ToString());
  EXPECT_EQ(TypeOf(1231, Numeric(5, 1)), DataType::Array(DataType::Decimal(5, 1))->ToString());
  EXPECT_EQ(TypeOf(1009, -1), DataType::Array(DataType::String())->ToString());
  // interval is not in Java's mapping.
  EXPECT_THAT(PostgresToPaimonType(1186, -1, {}), IsError(StatusCode::kNotImplemented, "1186"));
  TypeMapping to_string;
  to_string.Add(TypeMappingMode::kToString);
  EXPECT_EQ(TypeOf(pg_oid::kInt4, -1, to_string), DataType::String()->ToString());
  EXPECT_EQ(TypeOf(1186, -1, to_string), DataType::String()->ToString());
}

std::string ValueOf(uint32_t oid, int32_t typmod, std::string_view text) {
  auto v = PostgresValueText(oid, typmod, text);
  return v.ok() ? *v : v.status().ToString();
}

TEST(PostgresTypesTest, ValuesInTheFormsJavaCastsFrom) {
  // BinaryStringUtils.toBoolean takes true/false; PostgreSQL writes t/f.
  EXPECT_EQ(ValueOf(pg_oid::kBool, -1, "t"), "true");
  EXPECT_EQ(ValueOf(pg_oid::kBool, -1, "f"), "false");
  // BYTES: Java's record parser passes the raw bytes, castFromCdcValueString takes them as is.
  EXPECT_EQ(ValueOf(pg_oid::kBytea, -1, "\\x00ff41"), std::string("\0\xff"
                                                                  "A",
                                                                  3));
  EXPECT_EQ(ValueOf(pg_oid::kBytea, -1, "\\x"), "");
  EXPECT_THAT(PostgresValueText(pg_oid::kBytea, -1, "abc"), IsError(StatusCode::kInvalid, "bytea"));
  // Debezium's Timestamp (precision up to 3) has millis, MicroTimestamp micros, formatted by
  // DateTimeUtils.formatLocalDateTime with all digits.
  EXPECT_EQ(ValueOf(pg_oid::kTimestamp, 3, "2024-03-01 10:20:30.5"), "2024-03-01 10:20:30.500");
  EXPECT_EQ(ValueOf(pg_oid::kTimestamp, -1, "2024-03-01 10:20:30"), "2024-03-01 10:20:30.000000");
  EXPECT_EQ(ValueOf(pg_oid::kTimestamp, 6, "1969-12-31 23:59:59.999999"),
            "1969-12-31 23:59:59.999999");
  EXPECT_THAT(PostgresValueText(pg_oid::kTimestamp, -1, "infinity"),
              IsError(StatusCode::kInvalid, "timestamp"));
  // Unchanged: what castFromCdcValueString parses as PostgreSQL writes it.
  EXPECT_EQ(ValueOf(pg_oid::kNumeric, -1, "-12.500"), "-12.500");
  EXPECT_EQ(ValueOf(pg_oid::kDate, -1, "2024-02-29"), "2024-02-29");
  EXPECT_EQ(ValueOf(pg_oid::kTime, -1, "23:01:02.25"), "23:01:02.25");
  EXPECT_EQ(ValueOf(pg_oid::kFloat8, -1, "1.5e+300"), "1.5e+300");
  EXPECT_EQ(ValueOf(pg_oid::kJsonb, -1, "{\"a\": 1}"), "{\"a\": 1}");
  // bit(1) a boolean; bit(n) base64 (BINARY's CDC form) of the big-endian bytes.
  EXPECT_EQ(ValueOf(pg_oid::kBit, 1, "1"), "true");
  EXPECT_EQ(ValueOf(pg_oid::kBit, 10, "1000000001"), "AgE=");  // 0x02 0x01
  // Arrays: a JSON list of the element texts (Java's record parser writes the elements of
  // Debezium's array as strings), elements converted as their type, NULL as null.
  EXPECT_EQ(ValueOf(1007, -1, "{1,-2,NULL}"), "[\"1\",\"-2\",null]");
  EXPECT_EQ(ValueOf(1000, -1, "{t,f}"), "[\"true\",\"false\"]");
  EXPECT_EQ(ValueOf(1009, -1, "{\"a,b\",\"say \\\"hi\\\"\",\"NULL\",plain}"),
            "[\"a,b\",\"say \\\"hi\\\"\",\"NULL\",\"plain\"]");
  EXPECT_EQ(ValueOf(1007, -1, "{}"), "[]");
  EXPECT_THAT(PostgresValueText(1007, -1, "{{1,2},{3,4}}"),
              IsError(StatusCode::kInvalid, "multi-dimensional"));
}

TEST(PostgresTypesTest, TimestamptzIsTheLocalWallClock) {
  // The session sends UTC; Java turns the instant into the wall clock of its zone and reads it
  // back in the same zone.
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", "Asia/Shanghai", 1);  // UTC+8, no daylight saving
  tzset();
  std::string shanghai = ValueOf(pg_oid::kTimestamptz, -1, "2024-03-01 20:30:00.123456+00");
  std::string midnight = ValueOf(pg_oid::kTimestamptz, -1, "2024-12-31 16:00:00+00");
  setenv("TZ", "UTC", 1);
  tzset();
  std::string utc = ValueOf(pg_oid::kTimestamptz, -1, "2024-03-01 20:30:00.123456+00");
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  EXPECT_EQ(shanghai, "2024-03-02 04:30:00.123456");
  EXPECT_EQ(midnight, "2025-01-01 00:00:00.000000");
  EXPECT_EQ(utc, "2024-03-01 20:30:00.123456");
  EXPECT_THAT(PostgresValueText(pg_oid::kTimestamptz, -1, "2024-03-01 20:30:00+02"),
              IsError(StatusCode::kInvalid, "timestamptz"));
}

// Java's postgres_sync_table keeps a NOT NULL column NOT NULL (JdbcSchemaUtils: nullable only
// when the column is or with `to-nullable`), whatever type it maps to.
TEST(PostgresTypesTest, NotNullColumnsStayNotNullUnlessToNullable) {
  auto column = [](uint32_t oid, int32_t typmod, bool not_null, const TypeMapping& mapping) {
    auto t = PostgresColumnType(oid, typmod, not_null, mapping);
    return t.ok() ? (*t)->ToString() : t.status().ToString();
  };
  TypeMapping none;
  TypeMapping to_nullable;
  to_nullable.Add(TypeMappingMode::kToNullable);
  TypeMapping to_string;
  to_string.Add(TypeMappingMode::kToString);
  EXPECT_EQ(column(pg_oid::kInt4, -1, true, none), "INT NOT NULL");
  EXPECT_EQ(column(pg_oid::kInt4, -1, false, none), "INT");
  EXPECT_EQ(column(pg_oid::kInt4, -1, true, to_nullable), "INT");
  EXPECT_EQ(column(pg_oid::kVarchar, 20 + 4, true, none), "VARCHAR(20) NOT NULL");
  EXPECT_EQ(column(pg_oid::kNumeric, Numeric(10, 2), true, none), "DECIMAL(10, 2) NOT NULL");
  EXPECT_EQ(column(1007, -1, true, none), "ARRAY<INT> NOT NULL");  // the element stays nullable
  EXPECT_EQ(column(pg_oid::kInt4, -1, true, to_string), "STRING NOT NULL");
  EXPECT_THAT(PostgresColumnType(1186, -1, true, none),
              IsError(StatusCode::kNotImplemented, "1186"));
}

// What a key-only old row lacks for a NOT NULL column: the zero value Debezium fills in (checked
// on Debezium 3.6.1's PostgreSQL connector: int 0, text "", date 0, numeric 0, bool false,
// timestamp 0), in the value text of each type.
TEST(PostgresTypesTest, ZeroValuesOfKeyOnlyOldRows) {
  auto zero = [](uint32_t oid, int32_t typmod) {
    auto v = PostgresZeroValueText(oid, typmod);
    return v.ok() ? *v : v.status().ToString();
  };
  EXPECT_EQ(zero(pg_oid::kInt2, -1), "0");
  EXPECT_EQ(zero(pg_oid::kInt4, -1), "0");
  EXPECT_EQ(zero(pg_oid::kInt8, -1), "0");
  EXPECT_EQ(zero(pg_oid::kFloat8, -1), "0");
  EXPECT_EQ(zero(pg_oid::kNumeric, Numeric(10, 2)), "0");
  EXPECT_EQ(zero(pg_oid::kBool, -1), "false");
  EXPECT_EQ(zero(pg_oid::kText, -1), "");
  EXPECT_EQ(zero(pg_oid::kVarchar, 24), "");
  EXPECT_EQ(zero(pg_oid::kBpchar, 9), "");
  EXPECT_EQ(zero(pg_oid::kUuid, -1), "");
  EXPECT_EQ(zero(pg_oid::kBytea, -1), "");
  EXPECT_EQ(zero(pg_oid::kDate, -1), "1970-01-01");
  EXPECT_EQ(zero(pg_oid::kTime, -1), "00:00:00");
  EXPECT_EQ(zero(pg_oid::kTimestamp, 3), "1970-01-01 00:00:00.000");
  EXPECT_EQ(zero(pg_oid::kTimestamp, -1), "1970-01-01 00:00:00.000000");
  EXPECT_EQ(zero(pg_oid::kBit, 1), "false");
  EXPECT_EQ(zero(pg_oid::kBit, 10), "AAA=");  // two zero bytes
  EXPECT_EQ(zero(1007, -1), "[]");
}

}  // namespace
}  // namespace fjord::cdc
