// Input rows as Arrow: the JSON-lines (json_values.h) and CSV (csv_reader.h) input of
// `fjord write` converted to the canonical Arrow form (arrow_types.h) of a table's columns, with
// the kind of every row.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <optional>
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

// The rows as one batch: the columns and, when some row is not +I, "_row_kind" (int8, not null;
// the input column of TableWrite::Write). Errors name `source`.
Result<std::shared_ptr<arrow::RecordBatch>> InputRowsToBatch(const InputRows& rows,
                                                             std::string_view source);

// Parses all of `text` as JSON lines (one object per line; blank lines skipped). Errors name
// `source`, the line number and the column; nothing is returned on error. `first_line` is the
// number of the text's first line (a chunk read from the middle of a file).
Result<InputRows> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                 std::string_view source, int64_t first_line = 1);

// Parses all of `text` as CSV with a header (csv_reader.h). Errors as ParseJsonLines.
Result<InputRows> ParseCsvRows(std::string_view text, const std::vector<DataField>& fields,
                               const CsvOptions& options, std::string_view source);

// JSON lines read a batch at a time, as ParseJsonLines reads them all (the same rows, values and
// errors; line numbers count from the text's start). `text` and `fields` must outlive the reader.
class JsonLinesReader {
 public:
  JsonLinesReader(std::string_view text, const std::vector<DataField>& fields, std::string source,
                  int64_t first_line = 1);
  ~JsonLinesReader();
  JsonLinesReader(JsonLinesReader&&) noexcept;
  JsonLinesReader& operator=(JsonLinesReader&&) noexcept;

  // The rows of the lines that start in the next `bytes` bytes of the text (at least one line;
  // blank lines give no row); nullopt when the text is read. After an error the reader must not
  // be used again.
  Result<std::optional<InputRows>> Next(size_t bytes);
  // Bytes of the text read: the end of the last line read, with its line break.
  size_t position() const;
  // Lines read so far by the scanner (json_line_scan.h), the other readings aside.
  int64_t lines_scanned() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// CSV with a header read a batch at a time, as ParseCsvRows reads it all. `text` and `fields`
// must outlive the reader.
class CsvRowsReader {
 public:
  // Reads and checks the header (errors as ParseCsvRows').
  static Result<CsvRowsReader> Open(std::string_view text, const std::vector<DataField>& fields,
                                    const CsvOptions& options, std::string source);
  ~CsvRowsReader();
  CsvRowsReader(CsvRowsReader&&) noexcept;
  CsvRowsReader& operator=(CsvRowsReader&&) noexcept;

  // The rows of the records that start in the next `bytes` bytes of the text (at least one);
  // nullopt when the text is read. After an error the reader must not be used again.
  Result<std::optional<InputRows>> Next(size_t bytes);
  // Bytes of the text read: the end of the last record read.
  size_t position() const;

 private:
  struct State;
  explicit CsvRowsReader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace fjord
