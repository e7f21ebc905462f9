// MySQL column types in Paimon terms, as Java Paimon's MySqlTypeUtils (docs/cdc.md, "Type
// mapping"), for the formats that carry MySQL type names (canal-json's `mysqlType`): the type
// name split into its short name, length and scale, and the Paimon type with the type mapping
// options Java applies here (to-string, tinyint1-not-bool, char-to-string, longtext-to-bytes,
// bigint-unsigned-to-bigint).
#pragma once

#include <string>

#include "fjord/cdc/cdc_format.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

struct MySqlTypeInfo {
  std::string short_type;  // upper case with its attributes: "INT UNSIGNED", "DECIMAL", "ENUM"
  int32_t length = 0;      // 0 when the name has none
  int32_t scale = 0;
};

// Java's getTypeInfo: "decimal(10,2) unsigned" -> DECIMAL UNSIGNED, 10, 2; a DECIMAL without
// precision is 38, 18; the values of enum(...) and set(...) are not read. Invalid when a length
// is not a number.
Result<MySqlTypeInfo> ParseMySqlType(const std::string& type_name);

// Java's toDataType(type, length, scale, mapping). Invalid for a type Java does not support.
Result<DataTypePtr> MySqlToDataType(const MySqlTypeInfo& info, const TypeMapping& mapping);

bool IsMySqlGeoType(const std::string& short_type);

}  // namespace fjord::cdc
