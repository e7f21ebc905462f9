// CSV input read with the table's schema, no type inference: RFC 4180 records (fields separated
// by commas, records by LF or CRLF; a field in double quotes may hold commas, line breaks and
// doubled quotes; a quote inside an unquoted field is an error), a header row whose names are
// matched to the table's columns, and every cell handed to a CsvCells (TextColumns converts it
// exactly by text_values.h straight into its Arrow column).
//
//  * NULL: an unquoted field equal to the null literal (CsvOptions::null_literal, by default the
//    empty string); a quoted field is never NULL, so `""` is the empty string.
//  * header: required; every name must be a column of the table (or `_row_kind`), once; table
//    columns the header lacks are NULL, or an error for NOT NULL columns.
//  * `_row_kind`: +I, -U, +U, -D or 0..3 (empty or NULL: +I).
//  * blank lines (no characters at all) are skipped; a UTF-8 byte order mark is dropped.
// Errors are Invalid and name the source, the line (1-based, the header is line 1; a record's
// first line) and the column. Nothing here uses Arrow (the fuzz build compiles it without).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

// Where CsvRowReader puts each row's cells, by table column (TextColumns, text_columns.h: the
// table's Arrow columns).
class CsvCells {
 public:
  virtual ~CsvCells() = default;
  // The cell's text, unescaped; errors are the conversion's, the reader adds where it was.
  virtual Status Append(size_t column, std::string_view text) = 0;
  virtual Status AppendNull(size_t column) = 0;
  // Every column got one value.
  virtual Status EndRow(int8_t kind) = 0;
};

struct CsvOptions {
  // The text of an unquoted field that means NULL.
  std::string null_literal;
  // Lines of the file left out between the header and the text's second line (the text is the
  // header and a chunk read from the middle of a file), so that errors name the file's lines.
  int64_t lines_skipped = 0;
};

// One record's fields: the text (unescaped) and whether it was quoted. The text is in the input,
// or for a quoted field with doubled quotes in the reader: valid until the reader's next record.
struct CsvField {
  std::string_view text;
  bool quoted = false;
};

// Splits RFC 4180 text into records. `text` must outlive the reader.
class CsvRecordReader {
 public:
  CsvRecordReader(std::string_view text, std::string source);
  // The next non-blank record into `fields`; false at the end. `line()` is then its first line.
  Result<bool> Next(std::vector<CsvField>* fields);
  int64_t line() const { return record_line_; }
  // Bytes of the text read so far.
  size_t position() const { return pos_; }
  void SkipLineNumbers(int64_t n) { next_line_ += n; }

 private:
  std::string_view text_;
  std::string source_;
  // The unescaped text of the current record's quoted fields with doubled quotes, by field.
  std::vector<std::string> unescaped_;
  std::vector<size_t> copied_;  // the fields of the current record that have one
  size_t pos_ = 0;
  int64_t next_line_ = 1;
  int64_t record_line_ = 0;
};

// The rows of a CSV text for a table of `fields`, one at a time.
class CsvRowReader {
 public:
  // Reads and checks the header.
  static Result<CsvRowReader> Open(std::string_view text, const std::vector<DataField>& fields,
                                   CsvOptions options, std::string source);
  // Appends the next row to `out` (made for the reader's fields); false at the end. After an
  // error `out` may hold part of a row.
  Result<bool> Next(CsvCells* out);
  int64_t line() const { return records_.line(); }
  size_t position() const { return records_.position(); }

 private:
  CsvRowReader(std::string_view text, const std::vector<DataField>& fields, CsvOptions options,
               std::string source);
  CsvRecordReader records_;
  const std::vector<DataField>* fields_;
  CsvOptions options_;
  std::string source_;
  // For each CSV field, the table field it fills, kRowKind or the header width check.
  std::vector<int> target_;
  // The table fields the header does not have: NULL in every row.
  std::vector<size_t> absent_;
  std::vector<CsvField> record_;
};

}  // namespace fjord
