// Rows as text and text as rows, in the forms the `fjord` program reads and prints:
//  * output: JSON lines in Fjord's canonical form (the form the Java oracle prints, so outputs
//    compare byte for byte), CSV (RFC 4180 quoting) or an aligned table;
//  * input: JSON lines (with an optional "_row_kind" per line), CSV with a header, or Parquet,
//    converted to a table's columns.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "fjord/arrow_c.h"
#include "fjord/data_type.h"
#include "fjord/result.h"
#include "fjord/schema.h"

namespace fjord {

enum class RowTextFormat { kJsonLines, kCsv, kTable };
// "jsonl", "csv", "table"; Invalid otherwise.
Result<RowTextFormat> ParseRowTextFormat(std::string_view name);

// Not thread-safe.
class RowTextWriter {
 public:
  // `fields` are the Paimon columns of the batches (TableReader::fields()); `schema` their Arrow
  // schema (released by the call); `out` must outlive the writer.
  static Result<std::unique_ptr<RowTextWriter>> Make(RowTextFormat format,
                                                     std::vector<DataField> fields,
                                                     struct ArrowSchema* schema, std::ostream* out);
  virtual ~RowTextWriter() = default;
  // Writes the rows of `batch` (released by the call). JSON lines and CSV stream; the table
  // format holds rows until Finish to align the columns.
  virtual Status Write(struct ArrowArray* batch) = 0;
  // Writes what is held (table format: the table and its row count).
  virtual Status Finish() = 0;
  virtual int64_t rows_written() const = 0;
};

enum class InputFormat { kJsonLines, kCsv, kParquet };
// "jsonl", "csv", "parquet"; Invalid otherwise.
Result<InputFormat> ParseInputFormat(std::string_view name);

struct InputOptions {
  // CSV: the text of an unquoted field that means NULL; by default the empty field. A quoted field
  // is never NULL, so `""` is the empty string.
  std::string csv_null;
};

// Reads the rows of the file at `path` (a local file) for a table of `schema` into `out` (the
// caller's to release): the table's columns in their canonical Arrow form and, where the input
// gives row kinds ("_row_kind"), that column. Every value is converted exactly (docs/writing.md,
// "Exact conversion"); columns the file lacks are NULL, columns the table lacks are an error.
// Errors are Invalid (NotFound for a missing file) and name the file, the line (JSON lines, CSV)
// or the row (Parquet, 1-based) and the column.
Status ReadInputFile(const std::string& path, InputFormat format, const TableSchema& schema,
                     struct ArrowArrayStream* out, const InputOptions& options = {});

}  // namespace fjord
