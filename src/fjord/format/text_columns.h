// Canonical Arrow columns of a table's fields filled from text cells (CSV), each cell read
// exactly as ValueFromText reads it (text_values.h: the same values, the same errors) but
// appended straight to its column's builder: no Value in between for the common types.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/csv_reader.h"
#include "fjord/format/rows_builder.h"

namespace fjord {

class TextColumns : public CsvCells {
 public:
  // Columns for `fields` (which must outlive this), appended to `out` (Init-ed for them).
  // `input`, if given, is the text the cells are views of (a cell in it with 32 bytes of it
  // from its start is copied as one 32-byte move; others, e.g. unquoted copies, as they are).
  TextColumns(const std::vector<DataField>& fields, RowsBuilder* out, std::string_view input = {});

  // One column's value of the row being filled, from its text; errors as ValueFromText's.
  Status Append(size_t column, std::string_view text) override;
  Status AppendNull(size_t column) override;
  // The row is complete: every column got one value.
  Status EndRow(int8_t kind) override { return out_->EndRow(kind); }

 private:
  enum class Kind : uint8_t {
    kString,  // CHAR / VARCHAR / STRING: the text itself, length (and UTF-8) checked
    kInt8,
    kInt16,
    kInt32,
    kInt64,
    kDouble,
    kDecimal,
    kDate,
    kTimestamp,
    kOther,  // through ValueFromText and a Value
  };

  const std::vector<DataField>& fields_;
  RowsBuilder* out_;
  uintptr_t input_begin_ = 0;
  uintptr_t input_end_ = 0;
  std::vector<Kind> kinds_;
  std::vector<int64_t> per_second_;  // of timestamp columns
};

}  // namespace fjord
