// Paimon's logical data types: every type of the table format (spec/format.md §2.3), nested types,
// nullability, lengths and precisions. Types are immutable and shared (DataTypePtr); build them
// with the factory functions below or parse them from Paimon's spellings (ParseDataType).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord {

enum class TypeRoot : unsigned char {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kChar,
  kVarChar,
  kBinary,
  kVarBinary,
  kDate,
  kTime,
  kTimestamp,
  kTimestampLtz,
  kArray,
  kMultiset,
  kMap,
  kRow,
  kVariant,
  kBlob,
  kVector,
};

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

// A column or nested ROW field. Field ids are unique across a whole schema, nested fields included.
struct DataField {
  int32_t id = 0;
  std::string name;
  DataTypePtr type;
  std::optional<std::string> description;
  std::optional<std::string> default_value;

  bool operator==(const DataField& other) const;
};

class DataType {
 public:
  static constexpr int32_t kMaxLength = 2147483647;  // VARCHAR/VARBINARY length of STRING/BYTES
  static constexpr int32_t kMaxDecimalPrecision = 38;
  static constexpr int32_t kCompactDecimalPrecision = 18;   // fits in 8 bytes
  static constexpr int32_t kCompactTimestampPrecision = 3;  // millis only

  TypeRoot root() const { return root_; }
  bool nullable() const { return nullable_; }
  // CHAR/VARCHAR/BINARY/VARBINARY length, VECTOR length.
  int32_t length() const { return length_; }
  // DECIMAL precision; TIME/TIMESTAMP/TIMESTAMP_LTZ fractional-second precision.
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  // ARRAY / MULTISET / VECTOR element type.
  const DataTypePtr& element() const { return children_[0]; }
  // MAP key and value types.
  const DataTypePtr& key() const { return children_[0]; }
  const DataTypePtr& value() const { return children_[1]; }
  // ROW fields.
  const std::vector<DataField>& fields() const { return fields_; }

  bool IsNested() const;
  bool IsString() const { return root_ == TypeRoot::kChar || root_ == TypeRoot::kVarChar; }
  bool IsBinary() const { return root_ == TypeRoot::kBinary || root_ == TypeRoot::kVarBinary; }
  // True for the integral types TINYINT..BIGINT.
  bool IsInteger() const;

  // Paimon's spelling: "INT NOT NULL", "DECIMAL(10, 2)", "ARRAY<STRING>", "ROW<`a` INT, ...>".
  std::string ToString() const;
  // Same type with another nullability.
  DataTypePtr WithNullable(bool nullable) const;
  // Structural equality including nullability, field ids and names.
  bool Equals(const DataType& other) const;
  // Equality ignoring the nullability of this type and all nested types.
  bool EqualsIgnoreNullable(const DataType& other) const;

  // Factories. Lengths and precisions are checked by ParseDataType, not here.
  static DataTypePtr Boolean(bool nullable = true);
  static DataTypePtr TinyInt(bool nullable = true);
  static DataTypePtr SmallInt(bool nullable = true);
  static DataTypePtr Int(bool nullable = true);
  static DataTypePtr BigInt(bool nullable = true);
  static DataTypePtr Float(bool nullable = true);
  static DataTypePtr Double(bool nullable = true);
  static DataTypePtr Decimal(int32_t precision, int32_t scale, bool nullable = true);
  static DataTypePtr Char(int32_t length, bool nullable = true);
  static DataTypePtr VarChar(int32_t length, bool nullable = true);
  static DataTypePtr String(bool nullable = true) { return VarChar(kMaxLength, nullable); }
  static DataTypePtr Binary(int32_t length, bool nullable = true);
  static DataTypePtr VarBinary(int32_t length, bool nullable = true);
  static DataTypePtr Bytes(bool nullable = true) { return VarBinary(kMaxLength, nullable); }
  static DataTypePtr Date(bool nullable = true);
  static DataTypePtr Time(int32_t precision = 0, bool nullable = true);
  static DataTypePtr Timestamp(int32_t precision = 6, bool nullable = true);
  static DataTypePtr TimestampLtz(int32_t precision = 6, bool nullable = true);
  static DataTypePtr Array(DataTypePtr element, bool nullable = true);
  static DataTypePtr Multiset(DataTypePtr element, bool nullable = true);
  static DataTypePtr Map(DataTypePtr key, DataTypePtr value, bool nullable = true);
  static DataTypePtr Row(std::vector<DataField> fields, bool nullable = true);
  static DataTypePtr Variant(bool nullable = true);
  static DataTypePtr Blob(bool nullable = true);
  static DataTypePtr Vector(DataTypePtr element, int32_t length, bool nullable = true);

 private:
  DataType() = default;

  TypeRoot root_ = TypeRoot::kInt;
  bool nullable_ = true;
  int32_t length_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  std::vector<DataTypePtr> children_;
  std::vector<DataField> fields_;
};

// Parses a type written in Paimon's SQL spelling, the form schema files use for atomic types and
// that `fjord table create --columns` takes: "INT NOT NULL", "DECIMAL(10, 2)", "STRING",
// "TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(6)", also nested "ARRAY<INT>",
// "MAP<STRING, INT>", "ROW<a INT, `b c` STRING>". Nested ROW fields parsed here get ids -1; the
// caller assigns real ids. Errors name the offending text.
Result<DataTypePtr> ParseDataType(std::string_view text);

// Parses a column list "id INT NOT NULL, name STRING, tags ARRAY<STRING>" into fields. Ids are
// assigned from 0 as Java does at CREATE TABLE (see AssignFieldIdsDepthFirst).
Result<std::vector<DataField>> ParseColumnList(std::string_view text);

// The same fields with ids reassigned from `first_id` as Java's Schema.Builder assigns them at
// CREATE TABLE: each column takes the next id, then the fields inside its type are numbered, a
// ROW field after the fields inside its own type (Java's ReassignFieldId): ROW<a INT, b ROW<c
// INT>> as column 0 gives a 1, c 2, b 3.
std::vector<DataField> AssignFieldIdsDepthFirst(const std::vector<DataField>& fields,
                                                int32_t first_id = 0);

// `type` with the fields inside it renumbered after `*highest_field_id`, which ends at the highest
// id given (unchanged when the type holds no ROW): Java's ReassignFieldId, as ALTER TABLE numbers
// the type of an added column.
DataTypePtr ReassignFieldIds(const DataTypePtr& type, int32_t* highest_field_id);

}  // namespace fjord
