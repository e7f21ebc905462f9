// Canonical JSON lines: the form `fjord cat --format jsonl` prints and `fjord write` reads.
// One object per row, keys = column names in schema order; integers as numbers; FLOAT/DOUBLE as
// the shortest round-tripping numbers (NaN/Infinity/-Infinity as strings); DECIMAL as a string
// with exactly its scale; strings as strings; binaries as base64; BOOLEAN true/false; DATE
// "YYYY-MM-DD"; TIME "HH:MM:SS" plus ".fff" when its precision > 0; TIMESTAMP(p)
// "YYYY-MM-DDTHH:MM:SS" plus exactly p fractional digits when p > 0; TIMESTAMP_LTZ the same in
// UTC with a trailing "Z"; ARRAY a list; MAP a list of [key, value] pairs; ROW an object; NULL
// null.
#pragma once

#include <arrow/type_fwd.h>

#include <string>
#include <vector>

#include "fjord/data_type.h"

namespace fjord {

// Appends row `row` of `columns` (canonical Arrow form of `fields`) as one JSON object, without a
// newline.
Status AppendRowJson(const std::vector<std::shared_ptr<arrow::Array>>& columns,
                     const std::vector<DataField>& fields, int64_t row, std::string* out);

// Appends one value of `array` at `index` (of Paimon type `type`) in canonical JSON.
Status AppendValueJson(const arrow::Array& array, int64_t index, const DataType& type,
                       std::string* out);

// Calendar helpers shared with the text formats.
std::string FormatDate(int32_t days_since_epoch);
// `nanos_of_second` printed with exactly `precision` digits (0..9) when precision > 0.
std::string FormatTimestamp(int64_t epoch_seconds, int32_t nanos_of_second, int32_t precision);
std::string Base64Encode(std::string_view bytes);

}  // namespace fjord
