#include "fjord/data_type.h"

#include <cctype>
#include <charconv>

namespace fjord {

namespace {

DataTypePtr MakeShared(const DataType& t) { return std::make_shared<const DataType>(t); }

std::string EscapeIdentifier(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string WithPrecision(const char* name, int32_t p) {
  return std::string(name) + "(" + std::to_string(p) + ")";
}

}  // namespace

bool DataField::operator==(const DataField& other) const {
  return id == other.id && name == other.name && type && other.type && type->Equals(*other.type) &&
         description == other.description && default_value == other.default_value;
}

bool DataType::IsNested() const {
  switch (root_) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
    case TypeRoot::kVector:
      return true;
    default:
      return false;
  }
}

bool DataType::IsInteger() const {
  return root_ == TypeRoot::kTinyInt || root_ == TypeRoot::kSmallInt || root_ == TypeRoot::kInt ||
         root_ == TypeRoot::kBigInt;
}

std::string DataType::ToString() const {
  std::string s;
  switch (root_) {
    case TypeRoot::kBoolean:
      s = "BOOLEAN";
      break;
    case TypeRoot::kTinyInt:
      s = "TINYINT";
      break;
    case TypeRoot::kSmallInt:
      s = "SMALLINT";
      break;
    case TypeRoot::kInt:
      s = "INT";
      break;
    case TypeRoot::kBigInt:
      s = "BIGINT";
      break;
    case TypeRoot::kFloat:
      s = "FLOAT";
      break;
    case TypeRoot::kDouble:
      s = "DOUBLE";
      break;
    case TypeRoot::kDecimal:
      s = "DECIMAL(" + std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
      break;
    case TypeRoot::kChar:
      s = WithPrecision("CHAR", length_);
      break;
    case TypeRoot::kVarChar:
      s = length_ == kMaxLength ? "STRING" : WithPrecision("VARCHAR", length_);
      break;
    case TypeRoot::kBinary:
      s = WithPrecision("BINARY", length_);
      break;
    case TypeRoot::kVarBinary:
      s = length_ == kMaxLength ? "BYTES" : WithPrecision("VARBINARY", length_);
      break;
    case TypeRoot::kDate:
      s = "DATE";
      break;
    case TypeRoot::kTime:
      s = WithPrecision("TIME", precision_);
      break;
    case TypeRoot::kTimestamp:
      s = WithPrecision("TIMESTAMP", precision_);
      break;
    case TypeRoot::kTimestampLtz:
      s = WithPrecision("TIMESTAMP", precision_) + " WITH LOCAL TIME ZONE";
      break;
    case TypeRoot::kArray:
      s = "ARRAY<" + element()->ToString() + ">";
      break;
    case TypeRoot::kMultiset:
      s = "MULTISET<" + element()->ToString() + ">";
      break;
    case TypeRoot::kMap:
      s = "MAP<" + key()->ToString() + ", " + value()->ToString() + ">";
      break;
    case TypeRoot::kRow: {
      s = "ROW<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) s += ", ";
        s += EscapeIdentifier(fields_[i].name) + " " + fields_[i].type->ToString();
        if (fields_[i].description) s += " '" + *fields_[i].description + "'";
      }
      s += ">";
      break;
    }
    case TypeRoot::kVariant:
      s = "VARIANT";
      break;
    case TypeRoot::kBlob:
      s = "BLOB";
      break;
    case TypeRoot::kVector:
      s = "VECTOR<" + element()->ToString() + ", " + std::to_string(length_) + ">";
      break;
  }
  if (!nullable_) s += " NOT NULL";
  return s;
}

DataTypePtr DataType::WithNullable(bool nullable) const {
  DataType copy = *this;
  copy.nullable_ = nullable;
  return MakeShared(copy);
}

bool DataType::Equals(const DataType& other) const {
  if (root_ != other.root_ || nullable_ != other.nullable_ || length_ != other.length_ ||
      precision_ != other.precision_ || scale_ != other.scale_ ||
      children_.size() != other.children_.size() || fields_ != other.fields_) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i]->Equals(*other.children_[i])) return false;
  }
  return true;
}

bool DataType::EqualsIgnoreNullable(const DataType& other) const {
  if (root_ != other.root_ || length_ != other.length_ || precision_ != other.precision_ ||
      scale_ != other.scale_ || children_.size() != other.children_.size() ||
      fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i]->EqualsIgnoreNullable(*other.children_[i])) return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name != other.fields_[i].name ||
        !fields_[i].type->EqualsIgnoreNullable(*other.fields_[i].type)) {
      return false;
    }
  }
  return true;
}

#define FJORD_SIMPLE_FACTORY(Name, Root)      \
  DataTypePtr DataType::Name(bool nullable) { \
    DataType t;                               \
    t.root_ = TypeRoot::Root;                 \
    t.nullable_ = nullable;                   \
    return MakeShared(t);                     \
  }

FJORD_SIMPLE_FACTORY(Boolean, kBoolean)
FJORD_SIMPLE_FACTORY(TinyInt, kTinyInt)
FJORD_SIMPLE_FACTORY(SmallInt, kSmallInt)
FJORD_SIMPLE_FACTORY(Int, kInt)
FJORD_SIMPLE_FACTORY(BigInt, kBigInt)
FJORD_SIMPLE_FACTORY(Float, kFloat)
FJORD_SIMPLE_FACTORY(Double, kDouble)
FJORD_SIMPLE_FACTORY(Date, kDate)
FJORD_SIMPLE_FACTORY(Variant, kVariant)
FJORD_SIMPLE_FACTORY(Blob, kBlob)
#undef FJORD_SIMPLE_FACTORY

DataTypePtr DataType::Decimal(int32_t precision, int32_t scale, bool nullable) {
  DataType t;
  t.root_ = TypeRoot::kDecimal;
  t.precision_ = precision;
  t.scale_ = scale;
  t.nullable_ = nullable;
  return MakeShared(t);
}

#define FJORD_LENGTH_FACTORY(Name, Root)                      \
  DataTypePtr DataType::Name(int32_t length, bool nullable) { \
    DataType t;                                               \
    t.root_ = TypeRoot::Root;                                 \
    t.length_ = length;                                       \
    t.nullable_ = nullable;                                   \
    return MakeShared(t);                                     \
  }

FJORD_LENGTH_FACTORY(Char, kChar)
FJORD_LENGTH_FACTORY(VarChar, kVarChar)
FJORD_LENGTH_FACTORY(Binary, kBinary)
FJORD_LENGTH_FACTORY(VarBinary, kVarBinary)
#undef FJORD_LENGTH_FACTORY

#define FJORD_PRECISION_FACTORY(Name, Root)                      \
  DataTypePtr DataType::Name(int32_t precision, bool nullable) { \
    DataType t;                                                  \
    t.root_ = TypeRoot::Root;                                    \
    t.precision_ = precision;                                    \
    t.nullable_ = nullable;                                      \
    return MakeShared(t);                                        \
  }

FJORD_PRECISION_FACTORY(Time, kTime)
FJORD_PRECISION_FACTORY(Timestamp, kTimestamp)
FJORD_PRECISION_FACTORY(TimestampLtz, kTimestampLtz)
#undef FJORD_PRECISION_FACTORY

DataTypePtr DataType::Array(DataTypePtr element, bool nullable) {
  DataType t;
  t.root_ = TypeRoot::kArray;
  t.children_ = {std::move(element)};
  t.nullable_ = nullable;
  return MakeShared(t);
}

DataTypePtr DataType::Multiset(DataTypePtr element, bool nullable) {
  DataType t;
  t.root_ = TypeRoot::kMultiset;
  t.children_ = {std::move(element)};
  t.nullable_ = nullable;
  return MakeShared(t);
}

DataTypePtr DataType::Map(DataTypePtr key, DataTypePtr value, bool nullable) {
  DataType t;
  t.root_ = TypeRoot::kMap;
  t.children_ = {std::move(key), std::move(value)};
  t.nullable_ = nullable;
  return MakeShared(t);
}

DataTypePtr DataType::Row(std::vector<DataField> fields, bool nullable) {
  DataType t;
  t.root_ = TypeRoot::kRow;
  t.fields_ = std::move(fields);
  t.nullable_ = nullable;
  return MakeShared(t);
}

DataTypePtr DataType::Vector(DataTypePtr element, int32_t length, bool nullable) {
  DataType t;
  t.root_ = TypeRoot::kVector;
  t.children_ = {std::move(element)};
  t.length_ = length;
  t.nullable_ = nullable;
  return MakeShared(t);
}

}  // namespace fjord
