// Canonical Arrow columns (arrow_types.h) of a table's fields built row by row, with the kind of
// every row: what the JSON-lines and CSV input of `fjord write` and of the runtime's file and
// Kafka sources become (input_rows.h).
//
// The columns of the common types (integers, FLOAT, DOUBLE, DECIMAL, DATE, TIMESTAMP, CHAR and
// VARCHAR) are plain memory written at the row's index: a value is one store (a string one copy
// and its end offset), with no validity bit until the column's first NULL (from then on a byte
// per row, packed into Arrow's bitmap by Finish). The other types go through Arrow builders.
#pragma once

#include <arrow/api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/input_rows.h"
#include "fjord/value.h"

namespace fjord {

class RowsBuilder {
 public:
  Status Init(const std::vector<DataField>& fields);

  // One whole row of values (one per field).
  Status Append(const std::vector<Value>& values, int8_t kind);

  // The values of the row being filled, column by column; a row is complete when every column
  // got exactly one value and EndRow was called. The typed setters are for the columns whose
  // storage() is of that kind, each value already checked against the column's type.
  enum class Storage : uint8_t {
    kInt8,     // TINYINT
    kInt16,    // SMALLINT
    kInt32,    // INT, DATE (days)
    kInt64,    // BIGINT, TIMESTAMP / TIMESTAMP_LTZ (in the column's units)
    kFloat,    // FLOAT
    kDouble,   // DOUBLE
    kDecimal,  // DECIMAL: the unscaled value
    kString,   // CHAR / VARCHAR
    kBuilder,  // any other type: AppendValue only
  };
  Storage storage(size_t column) const { return columns_[column].storage; }
  const std::shared_ptr<arrow::DataType>& arrow_type(size_t column) const {
    return arrow_fields_[column]->type();
  }

  void SetInteger(size_t column, int64_t v) {
    Column& c = columns_[column];
    switch (c.storage) {
      case Storage::kInt8:
        Store(c, static_cast<int8_t>(v));
        break;
      case Storage::kInt16:
        Store(c, static_cast<int16_t>(v));
        break;
      case Storage::kInt32:
        Store(c, static_cast<int32_t>(v));
        break;
      default:
        Store(c, v);
        break;
    }
  }
  void SetFloat(size_t column, float v) { Store(columns_[column], v); }
  void SetDouble(size_t column, double v) { Store(columns_[column], v); }
  void SetDecimal(size_t column, Int128 unscaled) {
    // Arrow's decimal128: the low 64 bits, then the high 64 bits (little-endian).
    const uint64_t words[2] = {static_cast<uint64_t>(unscaled),
                               static_cast<uint64_t>(unscaled >> 64)};
    std::memcpy(columns_[column].data + rows_ * 16, words, 16);
  }
  // Fails only when the column's text passes what one Arrow array can hold (2 GiB).
  [[gnu::always_inline]] inline Status SetString(size_t column, std::string_view text) {
    Column& c = columns_[column];
    const int64_t end = c.text_bytes + static_cast<int64_t>(text.size());
    if (end > c.text_capacity) {
      Status st = GrowText(c, end);
      if (!st.ok()) return st;
    }
    std::copy(text.begin(), text.end(), c.text + c.text_bytes);
    c.text_bytes = end;
    reinterpret_cast<int32_t*>(c.data)[rows_ + 1] = static_cast<int32_t>(end);
    return Status::OK();
  }
  // SetString for a text with at least 32 readable bytes from its start (in a padded line): one
  // of up to 32 bytes is copied as 32 (the bytes past it are overwritten by the next value).
  [[gnu::always_inline]] inline Status SetPaddedString(size_t column, std::string_view text) {
    Column& c = columns_[column];
    if (text.size() > 32 || c.text_bytes + 32 > c.text_capacity) return SetString(column, text);
    std::memcpy(c.text + c.text_bytes, text.data(), 32);
    c.text_bytes += static_cast<int64_t>(text.size());
    reinterpret_cast<int32_t*>(c.data)[rows_ + 1] = static_cast<int32_t>(c.text_bytes);
    return Status::OK();
  }
  void SetNull(size_t column);
  Status AppendValue(size_t column, const Value& value);
  // Forgets the values set so far for the row being filled (which is not ended): its string
  // bytes and NULLs; the other values are overwritten by the next row's. Only for a row whose
  // builder columns (storage() kBuilder) got no value yet.
  void AbandonRow();
  Status EndRow(int8_t kind) {
    kinds_.push_back(kind);
    if (++rows_ == capacity_) return Grow(capacity_ + capacity_ / 2);
    return Status::OK();
  }

  // Grows every column for `more` rows beyond those appended, string data in the proportion
  // seen so far: one allocation instead of repeated doubling and copying.
  Status ReserveMore(int64_t more);

  int64_t rows() const { return rows_; }

  Result<InputRows> Finish();

 private:
  struct Column {
    Storage storage = Storage::kBuilder;
    int width = 0;                                        // bytes per value; strings: 4 (offsets)
    std::shared_ptr<arrow::ResizableBuffer> values;       // fixed-width values or string offsets
    uint8_t* data = nullptr;                              // values->mutable_data()
    std::shared_ptr<arrow::ResizableBuffer> text_buffer;  // string bytes
    uint8_t* text = nullptr;
    int64_t text_bytes = 0;
    int64_t text_capacity = 0;
    std::vector<uint8_t> valid;  // empty until the first NULL; then one byte per row (capacity)
    int64_t nulls = 0;
    std::unique_ptr<arrow::ArrayBuilder> builder;  // kBuilder
  };

  template <typename T>
  void Store(Column& c, T v) {
    std::memcpy(c.data + rows_ * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
  }
  // Room for `rows` rows in every plain column.
  Status Grow(int64_t rows);
  Status GrowText(Column& c, int64_t bytes);
  Result<std::shared_ptr<arrow::Array>> FinishColumn(size_t column);

  const std::vector<DataField>* fields_ = nullptr;
  arrow::FieldVector arrow_fields_;
  std::vector<Column> columns_;
  std::vector<int8_t> kinds_;
  int64_t rows_ = 0;
  int64_t capacity_ = 0;  // rows the plain columns have room for (always more than rows_)
};

}  // namespace fjord
