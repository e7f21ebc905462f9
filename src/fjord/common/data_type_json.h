// The JSON form of data types and fields in schema files (spec/format.md §2.2-2.3).
#pragma once

#include <string_view>
#include <vector>

#include "fjord/common/json.h"
#include "fjord/data_type.h"

namespace fjord {

// `source` names the file (and path inside it) for errors.
Result<DataTypePtr> DataTypeFromJson(const Json& json, std::string_view source);
Result<DataField> DataFieldFromJson(const Json& json, std::string_view source);
Result<std::vector<DataField>> DataFieldsFromJson(const Json& json, std::string_view source);

Json DataTypeToJson(const DataType& type);
Json DataFieldToJson(const DataField& field);

// Highest field id in `fields`, nested ROW fields included (-1 if none).
int32_t HighestFieldId(const std::vector<DataField>& fields);

}  // namespace fjord
