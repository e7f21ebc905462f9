#include "fjord/format/rows_builder.h"

#include <algorithm>
#include <limits>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"

namespace fjord {

namespace {

RowsBuilder::Storage StorageFor(const DataType& type) {
  using S = RowsBuilder::Storage;
  switch (type.root()) {
    case TypeRoot::kTinyInt:
      return S::kInt8;
    case TypeRoot::kSmallInt:
      return S::kInt16;
    case TypeRoot::kInt:
    case TypeRoot::kDate:
      return S::kInt32;
    case TypeRoot::kBigInt:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return S::kInt64;
    case TypeRoot::kFloat:
      return S::kFloat;
    case TypeRoot::kDouble:
      return S::kDouble;
    case TypeRoot::kDecimal:
      return S::kDecimal;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return S::kString;
    default:
      return S::kBuilder;
  }
}

int WidthOf(RowsBuilder::Storage s) {
  using S = RowsBuilder::Storage;
  switch (s) {
    case S::kInt8:
      return 1;
    case S::kInt16:
      return 2;
    case S::kInt32:
    case S::kFloat:
    case S::kString:  // its end offsets
      return 4;
    case S::kInt64:
    case S::kDouble:
      return 8;
    case S::kDecimal:
      return 16;
    case S::kBuilder:
      break;
  }
  return 0;
}

constexpr int64_t kFirstRows = 1024;
constexpr int64_t kMaxText = std::numeric_limits<int32_t>::max();

// Bytes of one per row (1 = valid) packed as Arrow's validity bitmap.
Result<std::shared_ptr<arrow::Buffer>> PackValidity(const std::vector<uint8_t>& valid,
                                                    int64_t rows) {
  FJORD_ARROW_ASSIGN_OR_RAISE(auto bitmap, arrow::AllocateBitmap(rows));
  uint8_t* bits = bitmap->mutable_data();
  std::memset(bits, 0, static_cast<size_t>(bitmap->size()));
  for (int64_t i = 0; i < rows; ++i) {
    bits[i >> 3] |= static_cast<uint8_t>(valid[static_cast<size_t>(i)] << (i & 7));
  }
  return std::shared_ptr<arrow::Buffer>(std::move(bitmap));
}

}  // namespace

Status RowsBuilder::Init(const std::vector<DataField>& fields) {
  fields_ = &fields;
  columns_.resize(fields.size());
  for (size_t c = 0; c < fields.size(); ++c) {
    FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(fields[c]));
    arrow_fields_.push_back(af);
    Column& col = columns_[c];
    col.storage = StorageFor(*fields[c].type);
    col.width = WidthOf(col.storage);
    if (col.storage == Storage::kBuilder) {
      FJORD_ARROW_RETURN_NOT_OK(
          arrow::MakeBuilder(arrow::default_memory_pool(), af->type(), &col.builder));
      continue;
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(col.values, arrow::AllocateResizableBuffer(0));
    if (col.storage == Storage::kString) {
      FJORD_ARROW_ASSIGN_OR_RAISE(col.text_buffer, arrow::AllocateResizableBuffer(0));
    }
  }
  FJORD_RETURN_NOT_OK(Grow(kFirstRows));
  for (Column& col : columns_) {
    if (col.storage == Storage::kString) reinterpret_cast<int32_t*>(col.data)[0] = 0;
  }
  return Status::OK();
}

Status RowsBuilder::Grow(int64_t rows) {
  for (Column& col : columns_) {
    if (col.storage == Storage::kBuilder) continue;
    // Strings keep one offset more than rows.
    const int64_t bytes = (rows + 1) * col.width;
    FJORD_ARROW_RETURN_NOT_OK(col.values->Resize(bytes, /*shrink_to_fit=*/false));
    col.data = col.values->mutable_data();
    if (!col.valid.empty()) col.valid.resize(static_cast<size_t>(rows), 1);
  }
  capacity_ = rows;
  return Status::OK();
}

Status RowsBuilder::GrowText(Column& c, int64_t bytes) {
  if (bytes > kMaxText) {
    return Status::Invalid("more than 2 GiB of text in column ",
                           (*fields_)[static_cast<size_t>(&c - columns_.data())].name,
                           " of one batch of input rows");
  }
  const int64_t want = std::min(kMaxText, std::max(bytes, c.text_capacity + c.text_capacity / 2));
  FJORD_ARROW_RETURN_NOT_OK(c.text_buffer->Resize(want, /*shrink_to_fit=*/false));
  c.text = c.text_buffer->mutable_data();
  c.text_capacity = want;
  return Status::OK();
}

void RowsBuilder::SetNull(size_t column) {
  Column& c = columns_[column];
  switch (c.storage) {
    case Storage::kBuilder:
      // A builder's AppendNull fails only when it cannot grow; Finish's length check reports
      // the row it lost.
      (void)c.builder->AppendNull();
      return;
    case Storage::kString:
      reinterpret_cast<int32_t*>(c.data)[rows_ + 1] = static_cast<int32_t>(c.text_bytes);
      break;
    default:
      // The value's bytes are never read: zeros, for files that compress them.
      std::memset(c.data + rows_ * c.width, 0, static_cast<size_t>(c.width));
      break;
  }
  if (c.valid.empty()) c.valid.assign(static_cast<size_t>(capacity_), 1);
  c.valid[static_cast<size_t>(rows_)] = 0;
  ++c.nulls;
}

void RowsBuilder::AbandonRow() {
  for (Column& c : columns_) {
    if (c.storage == Storage::kString) c.text_bytes = reinterpret_cast<int32_t*>(c.data)[rows_];
    if (!c.valid.empty() && c.valid[static_cast<size_t>(rows_)] == 0) {
      c.valid[static_cast<size_t>(rows_)] = 1;
      --c.nulls;
    }
  }
}

Status RowsBuilder::AppendValue(size_t column, const Value& value) {
  Column& c = columns_[column];
  if (c.storage == Storage::kBuilder) {
    return AppendValueToBuilder(c.builder.get(), value, *(*fields_)[column].type);
  }
  if (value.is_null()) {
    SetNull(column);
    return Status::OK();
  }
  switch (c.storage) {
    case Storage::kInt8:
    case Storage::kInt16:
    case Storage::kInt32:
    case Storage::kInt64:
      if (value.is<Timestamp>()) {
        SetInteger(column, TimestampToUnits(value.get<Timestamp>(),
                                            UnitsPerSecond(*arrow_fields_[column]->type())));
      } else {
        SetInteger(column, value.AsInt64());
      }
      return Status::OK();
    case Storage::kFloat:
      SetFloat(column, value.get<float>());
      return Status::OK();
    case Storage::kDouble:
      SetDouble(column, value.get<double>());
      return Status::OK();
    case Storage::kDecimal:
      SetDecimal(column, value.get<Decimal>().unscaled);
      return Status::OK();
    case Storage::kString:
      return SetString(column, value.get<std::string>());
    case Storage::kBuilder:
      break;
  }
  return Status::OK();
}

Status RowsBuilder::Append(const std::vector<Value>& values, int8_t kind) {
  for (size_t c = 0; c < columns_.size(); ++c) FJORD_RETURN_NOT_OK(AppendValue(c, values[c]));
  return EndRow(kind);
}

Status RowsBuilder::ReserveMore(int64_t more) {
  for (size_t i = 0; i < columns_.size(); ++i) {
    Column& c = columns_[i];
    if (c.storage == Storage::kBuilder) {
      FJORD_ARROW_RETURN_NOT_OK(c.builder->Reserve(more));
    } else if (c.storage == Storage::kString && rows_ > 0) {
      const int64_t per_row = c.text_bytes / rows_ + 1;
      const int64_t want = c.text_bytes + per_row * more + more / 8;
      if (want > c.text_capacity) FJORD_RETURN_NOT_OK(GrowText(c, std::min(want, kMaxText)));
    }
  }
  if (rows_ + more + 1 > capacity_) FJORD_RETURN_NOT_OK(Grow(rows_ + more + 1));
  return Status::OK();
}

Result<std::shared_ptr<arrow::Array>> RowsBuilder::FinishColumn(size_t column) {
  Column& c = columns_[column];
  const auto& type = arrow_fields_[column]->type();
  if (c.storage == Storage::kBuilder) {
    if (c.builder->length() != rows_) {
      return Status::Invalid("column ", (*fields_)[column].name, " has ", c.builder->length(),
                             " values for ", rows_, " rows");
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(auto a, c.builder->Finish());
    return a;
  }
  std::shared_ptr<arrow::Buffer> validity;
  if (c.nulls > 0) {
    FJORD_ASSIGN_OR_RAISE(validity, PackValidity(c.valid, rows_));
  }
  const int64_t value_rows = c.storage == Storage::kString ? rows_ + 1 : rows_;
  FJORD_ARROW_RETURN_NOT_OK(c.values->Resize(value_rows * c.width, /*shrink_to_fit=*/true));
  std::vector<std::shared_ptr<arrow::Buffer>> buffers = {validity, c.values};
  if (c.storage == Storage::kString) {
    FJORD_ARROW_RETURN_NOT_OK(c.text_buffer->Resize(c.text_bytes, /*shrink_to_fit=*/true));
    buffers.push_back(c.text_buffer);
  }
  auto data = arrow::ArrayData::Make(type, rows_, std::move(buffers), c.nulls);
  c = Column{};
  return arrow::MakeArray(data);
}

Result<InputRows> RowsBuilder::Finish() {
  arrow::ArrayVector columns;
  for (size_t c = 0; c < columns_.size(); ++c) {
    FJORD_ASSIGN_OR_RAISE(auto a, FinishColumn(c));
    columns.push_back(std::move(a));
  }
  InputRows out;
  out.rows = arrow::Table::Make(arrow::schema(arrow_fields_), columns, rows_);
  out.row_kinds = std::move(kinds_);
  rows_ = 0;
  return out;
}

}  // namespace fjord
