// Input rows as Arrow: the JSON-lines (json_values.h) and CSV (csv_reader.h) input of
// `fjord write` converted to the canonical Arrow form (arrow_types.h) of a table's columns, with
// the kind of every row.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/csv_reader.h"
#include "fjord/value.h"

namespace fjord {

struct InputRows {
  std::shared_ptr<arrow::Table> rows;  // canonical Arrow form of the fields
  std::vector<int8_t> row_kinds;       // one per row: 0 +I, 1 -U, 2 +U, 3 -D
};

// Parses all of `text` as JSON lines (one object per line; blank lines skipped). Errors name
// `source`, the line number and the column; nothing is returned on error. `first_line` is the
// number of the text's first line (a chunk read from the middle of a file).
Result<InputRows> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                 std::string_view source, int64_t first_line = 1);

// Parses all of `text` as CSV with a header (csv_reader.h). Errors as ParseJsonLines.
Result<InputRows> ParseCsvRows(std::string_view text, const std::vector<DataField>& fields,
                               const CsvOptions& options, std::string_view source);

}  // namespace fjord
