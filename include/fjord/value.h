// Value: one datum of any Paimon type, used where data is handled row by row (partition values,
// keys, statistics, predicates literals, BinaryRow encoding). Bulk data travels as Arrow arrays.
//
// A Value does not carry its DataType; code that holds a Value knows the type beside it.
// Representation by type root:
//   BOOLEAN bool; TINYINT int8_t; SMALLINT int16_t; INT, DATE (days since epoch), TIME (millis of
//   day) int32_t; BIGINT int64_t; FLOAT float; DOUBLE double; CHAR/VARCHAR/BINARY/VARBINARY
//   std::string (bytes); DECIMAL Decimal; TIMESTAMP / TIMESTAMP_LTZ Timestamp (UTC-based for LTZ,
//   wall clock for TIMESTAMP); ARRAY/MULTISET/ROW ValueList; MAP ValueMap; NULL std::monostate.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fjord/data_type.h"

namespace fjord {

// GCC/Clang's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef __int128 Int128;

// An exact decimal: unscaled * 10^-scale. Precision is at most 38, so 128 bits hold it.
struct Decimal {
  Int128 unscaled = 0;
  int32_t precision = 10;
  int32_t scale = 0;

  // Plain text with exactly `scale` fractional digits: "-12.340".
  std::string ToString() const;
  // Parses "-12.34" (or "1.5E3") into this precision and scale, rounding half-up like Java's
  // BigDecimal.setScale(HALF_UP); Invalid when it does not fit the precision.
  static Result<Decimal> FromString(std::string_view text, int32_t precision, int32_t scale);
  // The unscaled value as Java's BigInteger.toByteArray(): big-endian two's complement, minimal
  // length (1..16 bytes). This is what BinaryRow, Avro and Parquet store for wide decimals.
  std::string ToUnscaledBytes() const;
  // Inverse of ToUnscaledBytes; Invalid when `bytes` is empty or longer than 16, or when the value
  // does not fit `precision`.
  static Result<Decimal> FromUnscaledBytes(std::string_view bytes, int32_t precision,
                                           int32_t scale);
  // True when |unscaled| < 10^precision.
  bool FitsPrecision() const;
  bool operator==(const Decimal& o) const = default;
};

// Milliseconds since the epoch plus the nanoseconds within that millisecond (0..999999).
struct Timestamp {
  int64_t millis = 0;
  int32_t nanos_of_milli = 0;

  bool operator==(const Timestamp& o) const = default;
  auto operator<=>(const Timestamp& o) const = default;
};

class Value;
using ValueList = std::vector<Value>;
using ValueMap = std::vector<std::pair<Value, Value>>;

class Value {
 public:
  using Storage = std::variant<std::monostate, bool, int8_t, int16_t, int32_t, int64_t, float,
                               double, std::string, Decimal, Timestamp,
                               std::shared_ptr<const ValueList>, std::shared_ptr<const ValueMap>>;

  Value() = default;
  Value(bool v) : data_(v) {}                      // NOLINT
  Value(int8_t v) : data_(v) {}                    // NOLINT
  Value(int16_t v) : data_(v) {}                   // NOLINT
  Value(int32_t v) : data_(v) {}                   // NOLINT
  Value(int64_t v) : data_(v) {}                   // NOLINT
  Value(float v) : data_(v) {}                     // NOLINT
  Value(double v) : data_(v) {}                    // NOLINT
  Value(std::string v) : data_(std::move(v)) {}    // NOLINT
  Value(const char* v) : data_(std::string(v)) {}  // NOLINT
  Value(Decimal v) : data_(v) {}                   // NOLINT
  Value(Timestamp v) : data_(v) {}                 // NOLINT
  static Value List(ValueList items) {
    Value v;
    v.data_ = std::make_shared<const ValueList>(std::move(items));
    return v;
  }
  static Value Map(ValueMap entries) {
    Value v;
    v.data_ = std::make_shared<const ValueMap>(std::move(entries));
    return v;
  }
  static Value Null() { return Value(); }

  bool is_null() const { return std::holds_alternative<std::monostate>(data_); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(data_);
  }
  template <typename T>
  const T& get() const {
    return std::get<T>(data_);
  }
  const ValueList& list() const { return *std::get<std::shared_ptr<const ValueList>>(data_); }
  const ValueMap& map() const { return *std::get<std::shared_ptr<const ValueMap>>(data_); }
  const Storage& storage() const { return data_; }

  // Integral value of any integer-like storage (bool, int8..int64); 0 otherwise.
  int64_t AsInt64() const;

  // Deep equality (lists and maps by contents).
  bool operator==(const Value& other) const;

 private:
  Storage data_;
};

// Orders two non-null values of `type` the way Paimon compares them (numbers numerically,
// strings and binaries by unsigned bytes, decimals and timestamps by value). Nested types compare
// element-wise. Nulls sort first.
int CompareValues(const Value& a, const Value& b, const DataType& type);

// A short human-readable form for messages and `fjord files`: 42, 'text', 2024-01-01, NULL...
std::string ValueToString(const Value& v, const DataType& type);

}  // namespace fjord
