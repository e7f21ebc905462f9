// Rows as text (RowTextWriter), for the `fjord` program and for users who want the same forms.

#include "fjord/row_text.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include <ostream>

#include "fjord/format/row_json.h"

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

}  // namespace

Result<RowTextFormat> ParseRowTextFormat(std::string_view name) {
  if (name == "jsonl") return RowTextFormat::kJsonLines;
  if (name == "csv") return RowTextFormat::kCsv;
  if (name == "table") return RowTextFormat::kTable;
  return Status::Invalid("unknown output format '", name, "' (jsonl, csv or table)");
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

}  // namespace fjord
