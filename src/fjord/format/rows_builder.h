// Canonical Arrow columns (arrow_types.h) of a table's fields built row by row, with the kind of
// every row: what the JSON-lines and CSV input of `fjord write` and of the runtime's file and
// Kafka sources become (input_rows.h).
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/input_rows.h"
#include "fjord/value.h"

namespace fjord {

// Appends `text` to `strings`: within the room reserved (ReserveMore, which checks it against
// Arrow's limits) without the checks of each Append.
[[gnu::always_inline]] inline arrow::Status AppendString(arrow::StringBuilder* strings,
                                                         std::string_view text) {
  if (strings->length() < strings->capacity() &&
      strings->value_data_capacity() - strings->value_data_length() >=
          static_cast<int64_t>(text.size())) {
    strings->UnsafeAppend(text);
    return arrow::Status::OK();
  }
  return strings->Append(text);
}

class RowsBuilder {
 public:
  Status Init(const std::vector<DataField>& fields);

  // One whole row of values (one per field).
  Status Append(const std::vector<Value>& values, int8_t kind);

  // Typed appends of one column's value, for callers that fill a row column by column; a row is
  // complete when every column got exactly one value and EndRow was called.
  arrow::ArrayBuilder* builder(size_t column) { return builders_[column].get(); }
  Status AppendValue(size_t column, const Value& value);
  void EndRow(int8_t kind) { kinds_.push_back(kind); }

  // Grows every column for `more` rows beyond those appended, string and binary data in the
  // proportion seen so far: one allocation instead of repeated doubling and copying.
  Status ReserveMore(int64_t more);

  int64_t rows() const { return static_cast<int64_t>(kinds_.size()); }

  Result<InputRows> Finish();

 private:
  const std::vector<DataField>* fields_ = nullptr;
  arrow::FieldVector arrow_fields_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  std::vector<int8_t> kinds_;
};

}  // namespace fjord
