#include "fjord/format/rows_builder.h"

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"

namespace fjord {

Status RowsBuilder::Init(const std::vector<DataField>& fields) {
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

Status RowsBuilder::Append(const std::vector<Value>& values, int8_t kind) {
  for (size_t c = 0; c < builders_.size(); ++c) FJORD_RETURN_NOT_OK(AppendValue(c, values[c]));
  kinds_.push_back(kind);
  return Status::OK();
}

Status RowsBuilder::AppendValue(size_t column, const Value& value) {
  return AppendValueToBuilder(builders_[column].get(), value, *(*fields_)[column].type);
}

Status RowsBuilder::ReserveMore(int64_t more) {
  const int64_t have = rows();
  for (auto& b : builders_) {
    FJORD_ARROW_RETURN_NOT_OK(b->Reserve(more));
    if (b->type()->id() == arrow::Type::STRING || b->type()->id() == arrow::Type::BINARY) {
      auto* binary = static_cast<arrow::BinaryBuilder*>(b.get());
      if (have > 0) {
        const int64_t per_row = binary->value_data_length() / have + 1;
        FJORD_ARROW_RETURN_NOT_OK(binary->ReserveData(per_row * more + more / 8));
      }
    }
  }
  return Status::OK();
}

Result<InputRows> RowsBuilder::Finish() {
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

}  // namespace fjord
