// What the units of format/evolution_cast share: values as Java's cast executors see them, and
// the conversions of each family of target types (evolution_cast_numeric.cc: BOOLEAN, integers,
// FLOAT, DOUBLE, DECIMAL; evolution_cast_text.cc: strings and binary strings;
// evolution_cast_time.cc: DATE, TIME, TIMESTAMP; evolution_cast_parse.cc and
// evolution_cast_parse_time.cc: Java's parsers of text; evolution_cast_rules.cc: which changes
// Java allows). Not for use outside these units.
#pragma once

#include <arrow/util/decimal.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::evolution {

struct Days {  // DATE: days since 1970-01-01
  int32_t value = 0;
};
struct MillisOfDay {  // TIME: milliseconds (Java does not keep them within a day)
  int32_t value = 0;
};
// org.apache.paimon.data.Timestamp: epoch milliseconds and nanoseconds of the millisecond
// (0..999999). TIMESTAMP WITH LOCAL TIME ZONE holds the UTC instant the same way.
struct JavaTimestamp {
  int64_t millis = 0;
  int32_t nanos_of_milli = 0;
};
struct Decimal {  // a DECIMAL value of the source type
  arrow::Decimal128 unscaled;
  int32_t precision = 0;
  int32_t scale = 0;
};

// A value: NULL (monostate; also a DECIMAL that does not fit), BOOLEAN, any integer (int64_t,
// already narrowed to the type's width), FLOAT, DOUBLE, DECIMAL, CHAR/VARCHAR text or
// BINARY/VARBINARY bytes (std::string), DATE, TIME, TIMESTAMP(_LTZ).
using Value = std::variant<std::monostate, bool, int64_t, float, double, Decimal, std::string, Days,
                           MillisOfDay, JavaTimestamp>;

// java.math.BigDecimal as text: (negative ? -1 : 1) * digits * 10^exponent, `digits` without
// leading zeros ("0" for zero).
struct BigDecimal {
  bool negative = false;
  std::string digits = "0";
  int64_t exponent = 0;
};

// Each converts `v` (a non-NULL value of type `from`) to `to` as Java's executor does; Invalid
// with Java's reason where it throws.
Result<Value> ToBoolean(const Value& v, const DataType& from);
Result<Value> ToNumber(const Value& v, const DataType& from, const DataType& to);  // ints, floats
Result<Value> ToDecimal(const Value& v, const DataType& from, const DataType& to);
Result<Value> ToText(const Value& v, const DataType& from, const DataType& to);
Result<Value> ToBytes(const Value& v, const DataType& from, const DataType& to);
Result<Value> ToDate(const Value& v, const DataType& from);
Result<Value> ToTime(const Value& v, const DataType& from);
Result<Value> ToTimestamp(const Value& v, const DataType& from, const DataType& to);

// Decimal.fromBigDecimal(bd, precision, scale): rounded HALF_UP to `scale`; NULL (monostate)
// when more than `precision` digits remain.
Value FitDecimal(const BigDecimal& bd, int32_t precision, int32_t scale);
// The exact value of a DECIMAL as a BigDecimal, and its plain text (BigDecimal.toPlainString).
BigDecimal ToBigDecimal(const Decimal& d);
std::string PlainText(const Decimal& d);

// Java's parsers (evolution_cast_parse.cc), each Invalid with Java's reason where Java throws.
// BinaryStringUtils.toBoolean: t/true/y/yes/1 and f/false/n/no/0, any ASCII case, no blanks.
Result<bool> ParseJavaBoolean(std::string_view s);
// BinaryStringUtils.toInt / toLong: optional sign, ASCII digits, digits after a '.' ignored (they
// must be digits), no blanks, overflow refused. toByte / toShort: toInt, then range-checked.
Result<int64_t> ParseJavaInteger(std::string_view s, TypeRoot root);
// Double.parseDouble / Float.parseFloat: blanks (<= U+0020) trimmed, optional sign, "NaN",
// "Infinity", decimal with optional exponent, hexadecimal with a binary exponent, an optional
// f/F/d/D suffix; correctly rounded to the type.
Result<double> ParseJavaDouble(std::string_view s);
Result<float> ParseJavaFloat(std::string_view s);
// new BigDecimal(String): optional sign, digits with an optional '.', optional exponent.
Result<BigDecimal> ParseJavaBigDecimal(std::string_view s);
// BinaryStringUtils.toDate / toTime: days or milliseconds as integers, else
// DateTimeUtils.parseDate / parseTime.
Result<int32_t> ParseJavaDate(std::string_view s);
Result<int32_t> ParseJavaTime(std::string_view s);
// BinaryStringUtils.toTimestamp(s, precision) (epoch integers for TIMESTAMP only when
// `numeric_epoch`), else DateTimeUtils.parseTimestampData: "yyyy-[MM][M]-[dd][d]" and an optional
// " [HH][H]:[mm][m]:[ss][s]" with up to 9 fractional digits, resolved as Java's SMART resolver
// does; the fraction cut to `precision` digits.
Result<JavaTimestamp> ParseJavaTimestamp(std::string_view s, int32_t precision, bool numeric_epoch);
// StringUtils.isNumeric: an optional leading '-', then only digits, not empty.
bool IsJavaNumeric(std::string_view s);

inline bool Digit(char c) { return c >= '0' && c <= '9'; }

// String.trim(): every char <= U+0020 off both ends.
inline std::string_view JavaTrim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
  return s.substr(b, e - b);
}

}  // namespace fjord::evolution
