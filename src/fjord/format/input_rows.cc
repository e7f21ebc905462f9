#include "fjord/format/input_rows.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/json_values.h"

namespace fjord {

namespace {

// Values of a table's fields, row by row, into canonical Arrow columns.
class RowsBuilder {
 public:
  Status Init(const std::vector<DataField>& fields) {
    fields_ = &fields;
    for (const DataField& f : fields) {
      FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
      arrow_fields_.push_back(af);
      std::unique_ptr<arrow::ArrayBuilder> b;
      FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), af->type(), &b));
      builders_.push_back(std::move(b));
    }
    return Status::OK();
  }

  Status Append(const std::vector<Value>& values, int8_t kind) {
    for (size_t c = 0; c < builders_.size(); ++c) {
      FJORD_RETURN_NOT_OK(AppendValueToBuilder(builders_[c].get(), values[c], *(*fields_)[c].type));
    }
    kinds_.push_back(kind);
    return Status::OK();
  }

  Result<InputRows> Finish() {
    arrow::ArrayVector columns;
    for (auto& b : builders_) {
      FJORD_ARROW_ASSIGN_OR_RAISE(auto a, b->Finish());
      columns.push_back(a);
    }
    InputRows out;
    auto n = static_cast<int64_t>(kinds_.size());
    out.rows = arrow::Table::Make(arrow::schema(arrow_fields_), columns, n);
    out.row_kinds = std::move(kinds_);
    return out;
  }

 private:
  const std::vector<DataField>* fields_ = nullptr;
  arrow::FieldVector arrow_fields_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  std::vector<int8_t> kinds_;
};

}  // namespace

Result<InputRows> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                 std::string_view source, int64_t first_line) {
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(fields));
  int64_t line_no = first_line - 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string where = std::string(source) + " line " + std::to_string(line_no);
    FJORD_ASSIGN_OR_RAISE(JsonLineRow row, ParseJsonLine(line, fields, where));
    FJORD_RETURN_NOT_OK(builder.Append(row.values, row.kind));
  }
  return builder.Finish();
}

Result<InputRows> ParseCsvRows(std::string_view text, const std::vector<DataField>& fields,
                               const CsvOptions& options, std::string_view source) {
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(fields));
  FJORD_ASSIGN_OR_RAISE(CsvRowReader reader,
                        CsvRowReader::Open(text, fields, options, std::string(source)));
  std::vector<Value> values;
  int8_t kind = 0;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(bool any, reader.Next(&values, &kind));
    if (!any) break;
    FJORD_RETURN_NOT_OK(builder.Append(values, kind));
  }
  return builder.Finish();
}

}  // namespace fjord
