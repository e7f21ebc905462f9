// Canonical JSON (the form `fjord cat --format jsonl` prints) read back exactly as values of a
// column's type: the JSON-lines input of `fjord write`, and ARRAY/MAP/ROW cells of CSV input.
//
// JSON numbers with a fraction or an exponent keep their text (ParseExactJson), so that a DECIMAL
// given as a number is read digit for digit, never through a double. Strings of dates, times,
// decimals and base64 go through text_values.h. Wrong JSON types, unknown ROW fields, NULL in a
// NOT NULL field and duplicate keys are errors. Nothing here uses Arrow.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/common/json.h"
#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

// Parses `text` as one JSON value. Numbers with a fraction or exponent (and integers beyond 64
// bits) are held as JSON binary values carrying their text (JsonNumberText); errors are Invalid,
// prefixed by `source` when it is not empty, and say where in the text the JSON breaks.
Result<Json> ParseExactJson(std::string_view text, std::string_view source);

// The text of a number ParseExactJson kept as text, or nullptr when `j` is not one.
const std::string* JsonNumberText(const Json& j, std::string* buffer);

// `j` (from ParseExactJson) as a value of `type`.
Result<Value> ValueFromJson(const Json& j, const DataType& type);

// One line of JSON-lines input: the values of `fields` (missing keys NULL) and the row kind from
// "_row_kind" (0 +I, 1 -U, 2 +U, 3 -D; +I when absent). Errors are Invalid and start with `where`
// (file and line), then the column.
struct JsonLineRow {
  std::vector<Value> values;
  int8_t kind = 0;
};
Result<JsonLineRow> ParseJsonLine(std::string_view line, const std::vector<DataField>& fields,
                                  std::string_view where);

}  // namespace fjord
