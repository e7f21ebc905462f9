#include "fjord/cdc/mysql_types.h"

#include <charconv>
#include <cctype>
#include <set>

#include "fjord/common/strings.h"

namespace fjord::cdc {

namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool IsDecimalType(const std::string& t) {
  static const std::set<std::string> kTypes = {
      "NUMERIC", "NUMERIC UNSIGNED", "NUMERIC UNSIGNED ZEROFILL",
      "FIXED",   "FIXED UNSIGNED",   "FIXED UNSIGNED ZEROFILL",
      "DECIMAL", "DECIMAL UNSIGNED", "DECIMAL UNSIGNED ZEROFILL"};
  return kTypes.count(t) > 0;
}

Result<int32_t> ParseInt(std::string_view text, const std::string& type_name) {
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    return Status::Invalid("MySQL type '", type_name, "' has a length that is not a number");
  }
  return v;
}

bool OneOf(const std::string& t, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (t == n) return true;
  }
  return false;
}

}  // namespace

bool IsMySqlGeoType(const std::string& short_type) {
  return OneOf(Upper(short_type), {"GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
                                   "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"});
}

Result<MySqlTypeInfo> ParseMySqlType(const std::string& type_name) {
  MySqlTypeInfo info;
  size_t left = type_name.find('(');
  if (left == std::string::npos) {
    info.short_type = Upper(type_name);
    if (IsDecimalType(info.short_type)) {
      // Java's choice when the precision is missing: the widest.
      info.length = 38;
      info.scale = 18;
    }
    return info;
  }
  size_t right = type_name.find(')');
  if (right == std::string::npos || right < left) {
    return Status::Invalid("MySQL type '", type_name, "' has an unclosed '('");
  }
  info.short_type =
      Upper(std::string(Trim(type_name.substr(0, left)))) + Upper(type_name.substr(right + 1));
  if (info.short_type == "ENUM" || info.short_type == "SET") return info;
  std::string_view inside = Trim(std::string_view(type_name).substr(left + 1, right - left - 1));
  size_t comma = inside.find(',');
  if (comma != std::string_view::npos) {
    FJORD_ASSIGN_OR_RAISE(info.length, ParseInt(Trim(inside.substr(0, comma)), type_name));
    FJORD_ASSIGN_OR_RAISE(info.scale, ParseInt(Trim(inside.substr(comma + 1)), type_name));
  } else {
    FJORD_ASSIGN_OR_RAISE(info.length, ParseInt(inside, type_name));
  }
  return info;
}

Result<DataTypePtr> MySqlToDataType(const MySqlTypeInfo& info, const TypeMapping& mapping) {
  if (mapping.Has(TypeMappingMode::kToString)) return DataType::String();
  const std::string t = Upper(info.short_type);
  const int32_t length = info.length;
  if (t == "BIT") {
    if (length == 1) return DataType::Boolean();
    if (length <= 0) return Status::Invalid("MySQL type BIT without a length");
    return DataType::Binary((length + 7) / 8);
  }
  if (OneOf(t, {"BOOLEAN", "BOOL"})) return DataType::Boolean();
  if (t == "TINYINT") {
    // tinyint(1) is MySQL's boolean unless tinyint1-not-bool.
    return length == 1 && !mapping.Has(TypeMappingMode::kTinyint1NotBool) ? DataType::Boolean()
                                                                          : DataType::TinyInt();
  }
  if (OneOf(t, {"TINYINT UNSIGNED", "TINYINT UNSIGNED ZEROFILL", "SMALLINT"})) {
    return DataType::SmallInt();
  }
  if (OneOf(t, {"SMALLINT UNSIGNED", "SMALLINT UNSIGNED ZEROFILL", "INT", "INTEGER", "MEDIUMINT",
                "YEAR"})) {
    return DataType::Int();
  }
  if (OneOf(t, {"INT UNSIGNED", "INTEGER UNSIGNED", "INT UNSIGNED ZEROFILL",
                "INTEGER UNSIGNED ZEROFILL", "MEDIUMINT UNSIGNED", "MEDIUMINT UNSIGNED ZEROFILL",
                "BIGINT", "LONG"})) {
    return DataType::BigInt();
  }
  if (OneOf(t, {"BIGINT UNSIGNED", "BIGINT UNSIGNED ZEROFILL", "SERIAL"})) {
    return mapping.Has(TypeMappingMode::kBigintUnsignedToBigint) ? DataType::BigInt()
                                                                 : DataType::Decimal(20, 0);
  }
  if (OneOf(t, {"FLOAT", "FLOAT UNSIGNED", "FLOAT UNSIGNED ZEROFILL"})) return DataType::Float();
  if (OneOf(t, {"REAL", "REAL UNSIGNED", "REAL UNSIGNED ZEROFILL", "DOUBLE", "DOUBLE UNSIGNED",
                "DOUBLE UNSIGNED ZEROFILL", "DOUBLE PRECISION", "DOUBLE PRECISION UNSIGNED",
                "DOUBLE PRECISION UNSIGNED ZEROFILL"})) {
    return DataType::Double();
  }
  if (IsDecimalType(t)) {
    if (length > DataType::kMaxDecimalPrecision) return DataType::String();
    int32_t scale = info.scale >= 0 ? info.scale : 0;
    if (length < 1 || scale > length) {
      return Status::Invalid("MySQL type ", t, "(", length, ", ", scale,
                             ") is not a Paimon DECIMAL");
    }
    return DataType::Decimal(length, scale);
  }
  if (t == "DATE") return DataType::Date();
  if (t == "TIME") return DataType::Time(0);
  if (OneOf(t, {"DATETIME", "TIMESTAMP"})) {
    // The length is either the fraction digits or, from JDBC, the text length: 19 for
    // "2023-03-23 17:20:00", plus the point and the fraction digits.
    if (length <= 0) return DataType::Timestamp(0);
    if (length >= 19) return DataType::Timestamp(length > 20 ? length - 20 : 0);
    if (length <= 9) return DataType::Timestamp(length);
    return Status::Invalid("unsupported length ", length, " for MySQL DATETIME and TIMESTAMP");
  }
  if (t == "CHAR" || t == "VARCHAR") {
    if (length == 0 || mapping.Has(TypeMappingMode::kCharToString)) return DataType::String();
    return t == "CHAR" ? DataType::Char(length) : DataType::VarChar(length);
  }
  if (OneOf(t, {"TINYTEXT", "TEXT", "MEDIUMTEXT", "JSON", "ENUM", "GEOMETRY", "POINT", "LINESTRING",
                "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
                "STRING"})) {
    return DataType::String();
  }
  if (t == "BINARY" || t == "VARBINARY") {
    // Java's VarBinaryType.DEFAULT_LENGTH is 1.
    return DataType::VarBinary(length == 0 ? 1 : length);
  }
  if (t == "LONGTEXT") {
    return mapping.Has(TypeMappingMode::kLongtextToBytes) ? DataType::Bytes() : DataType::String();
  }
  if (OneOf(t, {"TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"})) return DataType::Bytes();
  if (t == "SET") return DataType::Array(DataType::String());
  return Status::Invalid("Don't support MySQL type '", info.short_type, "' yet.");
}

}  // namespace fjord::cdc
