// Rows as text and text as rows, in the forms the `fjord` program reads and prints:
//  * output: JSON lines in Fjord's canonical form (the form the Java oracle prints, so outputs
//    compare byte for byte), CSV (RFC 4180 quoting) or an aligned table;
//  * input: JSON lines (with an optional "_row_kind" per line), CSV with a header, or Parquet,
//    converted to a table's columns.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "fjord/arrow_c.h"
#include "fjord/data_type.h"
#include "fjord/result.h"
#include "fjord/schema.h"

namespace fjord {

class Table;
class TableWrite;

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
  // InputFileReader: the bytes of JSON lines or CSV text per batch (the lines or records that
  // start in them); Parquet batches hold about four times as many bytes of rows, as the file's
  // metadata sizes them (at least 64Ki rows, unless those pass 16 times as many bytes).
  int64_t batch_bytes = int64_t{16} << 20;
  // InputFileReader, Parquet: threads decoding a batch's columns at once (on Arrow's CPU pool);
  // 1: the caller's thread alone, 0: one per core. `fjord write --threads` sets it: the input's
  // decoding is otherwise one thread feeding the writer's others.
  int threads = 1;
};

// An input file read a batch at a time, as `fjord write` reads it: memory holds the batch being
// converted, not the file. Batches have the table's columns in their canonical Arrow form and,
// when a row of the batch is not +I, "_row_kind" (int8): that column may come and go between
// batches. Values are converted and errors named as ReadInputFile's (lines and rows count from
// the file's start); after an error the reader must not be used again. Not thread-safe.
class InputFileReader {
 public:
  // Opens `path` (a local file; a CSV's header is read and checked here).
  static Result<std::unique_ptr<InputFileReader>> Open(const std::string& path, InputFormat format,
                                                       const TableSchema& schema,
                                                       const InputOptions& options = {});
  virtual ~InputFileReader() = default;
  // The next batch as a struct array (`schema` and `array` the caller's to release, e.g. by
  // TableWrite::Write); false when the file is read (nothing is set then). A file without rows
  // gives one batch without rows.
  virtual Result<bool> Next(struct ArrowSchema* schema, struct ArrowArray* array) = 0;
};

// Writes every batch of `input` with `writer` (made by `table`), as `fjord write` does. A batch
// that cannot be read or written may come after files were written for the rows before it: then
// the files the writer wrote are deleted (PrepareCommit under `identifier`, TableCommit::Abort)
// and the error returned, with a note when that clean-up failed too; nothing of the input stays
// and the writer must be discarded. On success the rows wait for PrepareCommit.
Status WriteInputFile(const Table& table, InputFileReader& input, TableWrite& writer,
                      int64_t identifier);

// Reads all the rows of the file at `path` (a local file) for a table of `schema` into `out` (the
// caller's to release) as one batch, the file held in memory whole (InputFileReader reads it
// batch by batch): the table's columns in their canonical Arrow form and, where the input gives
// row kinds ("_row_kind"), that column. Every value is converted exactly (docs/writing.md,
// "Exact conversion"); columns the file lacks are NULL, columns the table lacks are an error.
// Errors are Invalid (NotFound for a missing file) and name the file, the line (JSON lines, CSV)
// or the row (Parquet, 1-based) and the column.
Status ReadInputFile(const std::string& path, InputFormat format, const TableSchema& schema,
                     struct ArrowArrayStream* out, const InputOptions& options = {});

}  // namespace fjord
