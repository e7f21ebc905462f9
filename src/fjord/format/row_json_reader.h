// Reading the canonical JSON-lines form (row_json.h) back into Arrow: the input of `fjord write`.
// Each line is one object with the table's column names (missing columns are NULL; unknown keys
// are an error) and an optional "_row_kind" of "+I", "-U", "+U", "-D".
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

struct JsonLinesBatch {
  std::shared_ptr<arrow::Table> rows;  // canonical Arrow form of the fields
  std::vector<int8_t> row_kinds;       // one per row: 0 +I, 1 -U, 2 +U, 3 -D
};

// Parses all of `text`. Errors name `source`, the line number and the column; nothing is returned
// on error.
Result<JsonLinesBatch> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                      std::string_view source);

// The canonical JSON value of one column as a Value (the inverse of AppendValueJson).
Result<Value> ValueFromCanonicalJson(const void* json_value, const DataType& type);

}  // namespace fjord
