// Rows as text (RowTextWriter) and input files as rows (ReadInputFile), for the `fjord` program
// and for users who want the same forms.

#include "fjord/row_text.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <arrow/io/api.h>
#include <parquet/arrow/reader.h>

#include <fstream>
#include <ostream>
#include <sstream>

#include "fjord/api/arrow_bridge.h"
#include "fjord/common/arrow_status.h"
#include "fjord/format/input_columns.h"
#include "fjord/format/input_rows.h"
#include "fjord/format/row_json.h"
#include "fjord/table_write.h"

namespace fjord {

namespace {

// RFC 4180 quoting; the empty string is quoted (`""`) so that it reads back as itself, not as
// NULL (an empty unquoted field, csv_reader.h).
std::string CsvQuote(const std::string& s) {
  if (!s.empty() && s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A cell as text for csv/table output: its JSON form, strings unquoted and unescaped.
Result<std::string> CellText(const arrow::Array& array, int64_t row, const DataType& type) {
  if (array.IsNull(row)) return std::string();
  std::string json;
  FJORD_RETURN_NOT_OK(AppendValueJson(array, row, type, &json));
  if (json.size() >= 2 && json.front() == '"' && !type.IsNested()) {
    std::string text;
    for (size_t i = 1; i + 1 < json.size(); ++i) {
      if (json[i] == '\\' && i + 2 < json.size()) {
        char n = json[++i];
        text += n == 'n' ? '\n' : n == 't' ? '\t' : n == 'r' ? '\r' : n;
      } else {
        text += json[i];
      }
    }
    return text;
  }
  return json;
}

class RowTextWriterImpl : public RowTextWriter {
 public:
  RowTextWriterImpl(RowTextFormat format, std::vector<DataField> fields,
                    std::shared_ptr<arrow::Schema> schema, std::ostream* out)
      : format_(format), fields_(std::move(fields)), schema_(std::move(schema)), out_(out) {
    if (format_ == RowTextFormat::kCsv) {
      for (size_t c = 0; c < fields_.size(); ++c) {
        *out_ << (c ? "," : "") << CsvQuote(fields_[c].name);
      }
      *out_ << "\n";
    }
  }

  Status Write(struct ArrowArray* batch) override {
    auto imported = arrow::ImportRecordBatch(batch, schema_);
    if (!imported.ok())
      return Status::Invalid("cannot import batch: ", imported.status().message());
    const arrow::RecordBatch& rows = **imported;
    if (rows.num_columns() != static_cast<int>(fields_.size())) {
      return Status::Invalid("batch has ", rows.num_columns(), " columns, expected ",
                             fields_.size());
    }
    std::vector<std::shared_ptr<arrow::Array>> columns = rows.columns();
    std::string line;
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      if (format_ == RowTextFormat::kJsonLines) {
        line.clear();
        FJORD_RETURN_NOT_OK(AppendRowJson(columns, fields_, r, &line));
        line += '\n';
        out_->write(line.data(), static_cast<std::streamsize>(line.size()));
        continue;
      }
      std::vector<std::string> cells;
      for (size_t c = 0; c < fields_.size(); ++c) {
        FJORD_ASSIGN_OR_RAISE(std::string text, CellText(*columns[c], r, *fields_[c].type));
        cells.push_back(std::move(text));
      }
      if (format_ == RowTextFormat::kCsv) {
        for (size_t c = 0; c < cells.size(); ++c) {
          *out_ << (c ? "," : "") << (columns[c]->IsNull(r) ? "" : CsvQuote(cells[c]));
        }
        *out_ << "\n";
      } else {
        held_.push_back(std::move(cells));
      }
    }
    rows_ += rows.num_rows();
    return Status::OK();
  }

  Status Finish() override {
    if (format_ != RowTextFormat::kTable) return Status::OK();
    std::vector<std::string> header;
    for (const DataField& f : fields_) header.push_back(f.name);
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& line : held_) {
      for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
    }
    auto print_line = [&](const std::vector<std::string>& line) {
      for (size_t c = 0; c < line.size(); ++c) {
        *out_ << (c ? " | " : "") << line[c] << std::string(width[c] - line[c].size(), ' ');
      }
      *out_ << "\n";
    };
    print_line(header);
    for (size_t c = 0; c < header.size(); ++c) {
      *out_ << (c ? "-+-" : "") << std::string(width[c], '-');
    }
    *out_ << "\n";
    for (const auto& line : held_) print_line(line);
    *out_ << "(" << held_.size() << " rows)\n";
    held_.clear();
    return Status::OK();
  }

  int64_t rows_written() const override { return rows_; }

 private:
  RowTextFormat format_;
  std::vector<DataField> fields_;
  std::shared_ptr<arrow::Schema> schema_;
  std::ostream* out_;
  std::vector<std::vector<std::string>> held_;
  int64_t rows_ = 0;
};

// The input file mapped into memory: its pages come from the page cache, not copied into fresh
// (zeroed) memory.
Result<std::shared_ptr<arrow::Buffer>> MapWholeFile(const std::string& path) {
  auto file = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
  if (!file.ok())
    return Status::NotFound("cannot open input ", path, ": ", file.status().message());
  auto size = (*file)->GetSize();
  if (!size.ok()) return Status::IOError("cannot read input ", path, ": ", size.status().message());
  auto buffer = (*file)->ReadAt(0, *size);
  if (!buffer.ok()) {
    return Status::IOError("cannot read input ", path, ": ", buffer.status().message());
  }
  return *buffer;
}

// The rows of the input file: the table's columns and, when some row is not +I, the row kinds
// as kRowKindColumn.
Result<std::shared_ptr<arrow::Table>> ReadInputTable(const std::string& path, InputFormat format,
                                                     const TableSchema& schema,
                                                     const InputOptions& options) {
  if (format == InputFormat::kParquet) {
    auto file = arrow::io::ReadableFile::Open(path);
    if (!file.ok())
      return Status::NotFound("cannot open input ", path, ": ", file.status().message());
    auto reader = parquet::arrow::OpenFile(*file, arrow::default_memory_pool());
    if (!reader.ok())
      return Status::Invalid(path, ": not a Parquet file: ", reader.status().message());
    auto table = (*reader)->ReadTable();
    if (!table.ok()) return Status::Invalid(path, ": ", table.status().message());
    FJORD_ASSIGN_OR_RAISE(auto batch, InputToTableColumns(*table, schema.fields, path));
    auto out = arrow::Table::FromRecordBatches({batch});
    if (!out.ok()) return Status::Invalid(path, ": ", out.status().message());
    return *out;
  }
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> mapped, MapWholeFile(path));
  std::string_view text(reinterpret_cast<const char*>(mapped->data()),
                        static_cast<size_t>(mapped->size()));
  InputRows batch;
  if (format == InputFormat::kJsonLines) {
    FJORD_ASSIGN_OR_RAISE(batch, ParseJsonLines(text, schema.fields, path));
  } else {
    CsvOptions csv;
    csv.null_literal = options.csv_null;
    FJORD_ASSIGN_OR_RAISE(batch, ParseCsvRows(text, schema.fields, csv, path));
  }
  std::shared_ptr<arrow::Table> rows = batch.rows;
  bool all_inserts = true;
  for (int8_t k : batch.row_kinds) all_inserts = all_inserts && k == 0;
  if (all_inserts) return rows;
  arrow::Int8Builder kinds;
  FJORD_RETURN_NOT_OK(FromArrow(kinds.AppendValues(batch.row_kinds)));
  std::shared_ptr<arrow::Array> kind_array;
  FJORD_RETURN_NOT_OK(FromArrow(kinds.Finish(&kind_array)));
  auto with_kinds =
      rows->AddColumn(rows->num_columns(), arrow::field(kRowKindColumn, arrow::int8(), false),
                      std::make_shared<arrow::ChunkedArray>(kind_array));
  if (!with_kinds.ok()) return Status::Invalid(path, ": ", with_kinds.status().message());
  return *with_kinds;
}

}  // namespace

Result<RowTextFormat> ParseRowTextFormat(std::string_view name) {
  if (name == "jsonl") return RowTextFormat::kJsonLines;
  if (name == "csv") return RowTextFormat::kCsv;
  if (name == "table") return RowTextFormat::kTable;
  return Status::Invalid("unknown output format '", name, "' (jsonl, csv or table)");
}

Result<InputFormat> ParseInputFormat(std::string_view name) {
  if (name == "jsonl") return InputFormat::kJsonLines;
  if (name == "csv") return InputFormat::kCsv;
  if (name == "parquet") return InputFormat::kParquet;
  return Status::Invalid("unknown input format '", name, "' (jsonl, csv or parquet)");
}

Result<std::unique_ptr<RowTextWriter>> RowTextWriter::Make(RowTextFormat format,
                                                           std::vector<DataField> fields,
                                                           struct ArrowSchema* schema,
                                                           std::ostream* out) {
  auto imported = arrow::ImportSchema(schema);
  if (!imported.ok()) return Status::Invalid("cannot import schema: ", imported.status().message());
  return std::unique_ptr<RowTextWriter>(
      new RowTextWriterImpl(format, std::move(fields), *imported, out));
}

Status ReadInputFile(const std::string& path, InputFormat format, const TableSchema& schema,
                     struct ArrowArrayStream* out, const InputOptions& options) {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Table> rows,
                        ReadInputTable(path, format, schema, options));
  auto combined = rows->CombineChunksToBatch();
  if (!combined.ok()) return Status::Invalid(path, ": ", combined.status().message());
  auto reader = arrow::RecordBatchReader::Make({*combined}, (*combined)->schema());
  if (!reader.ok()) return Status::Internal(reader.status().message());
  return FromArrow(arrow::ExportRecordBatchReader(*reader, out));
}

}  // namespace fjord
