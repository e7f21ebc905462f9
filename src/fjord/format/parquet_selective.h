// Internal to format/: flat Parquet columns decoded value by value through parquet-cpp's column
// readers, keeping only the rows a selection names. The late materialization of a filtered read
// (FileReadOptions::row_filter): the filter's columns are decoded first, the others then only at
// the kept rows, their values taken straight from the decompressed pages (strings from the page
// or dictionary bytes) instead of every value copied into Arrow arrays and most of them dropped.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/result.h"

namespace parquet {
class ColumnDescriptor;
class ColumnReader;
}  // namespace parquet

namespace fjord {

// Whether a top-level column of `type` stored as `column` (a leaf) is decoded here: not nested,
// not repeated, and BOOLEAN, TINYINT, SMALLINT, INT, DATE, TIME (INT32), BIGINT (INT64), FLOAT,
// DOUBLE, CHAR, VARCHAR, BINARY or VARBINARY (BYTE_ARRAY) stored in its own physical type,
// TIMESTAMP and TIMESTAMP_LTZ stored as INT64 in their canonical unit (arrow_types.h), DECIMAL as
// INT32, INT64 or FIXED_LEN_BYTE_ARRAY of its own precision and scale.
bool SelectiveDecodable(const parquet::ColumnDescriptor& column, const DataType& type);

// One column of one row group, read front to back.
class SelectiveColumn {
 public:
  virtual ~SelectiveColumn() = default;
  // The next `n` rows' values, those whose `keep` byte is not 0 (`kept` of them), or all `n`
  // when `keep` is null; in the canonical Arrow type of the column's type (arrow_types.h).
  virtual Result<std::shared_ptr<arrow::Array>> Read(int64_t n, const uint8_t* keep,
                                                     int64_t kept) = 0;
  // Passes over the next `n` rows.
  virtual Status Skip(int64_t n) = 0;
};

// `reader` is the row group's reader of the leaf `column` (SelectiveDecodable).
Result<std::unique_ptr<SelectiveColumn>> MakeSelectiveColumn(
    std::shared_ptr<parquet::ColumnReader> reader, const parquet::ColumnDescriptor& column,
    const DataType& type, arrow::MemoryPool* pool);

}  // namespace fjord
