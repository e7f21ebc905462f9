// Arrow input (batches of TableWrite::Write, Parquet input files) converted to a table's columns
// in their canonical Arrow form (arrow_types.h), checked: a value the column's type cannot hold is
// an error naming the row, never a wrapped, truncated or inferred value.
//
//  * integers, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP units: Arrow's safe cast (no overflow, no lost
//    fraction, no lost sub-unit digits); DOUBLE to FLOAT rounds to the nearest FLOAT but a finite
//    value beyond FLOAT's range is an error;
//  * DECIMAL from DECIMAL, FLOAT or DOUBLE: excess scale digits round HALF_UP (Java's
//    BigDecimal.setScale; a FLOAT/DOUBLE through its shortest decimal text, as Java's
//    BigDecimal.valueOf), too many integer digits is an error; a DECIMAL input whose values exceed
//    its own declared precision is refused;
//  * strings into a column of another type (except BINARY, which takes the bytes) are parsed as
//    text (text_values.h), as CSV cells are;
//  * CHAR(n)/VARCHAR(n) longer than n characters, BINARY(n)/VARBINARY(n) longer than n bytes are
//    errors (top-level columns).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"

namespace fjord {

// `array` in the canonical form of `type`. Errors are Invalid and start with "row N" (1-based in
// `array`).
Result<std::shared_ptr<arrow::Array>> CheckedToCanonical(const std::shared_ptr<arrow::Array>& array,
                                                         const DataType& type);

// The columns of `fields` taken by name from `input` and converted with CheckedToCanonical,
// followed by the input's `_row_kind` column when it has one (unchanged). Columns the input lacks
// are NULL (Invalid for NOT NULL columns); input columns the table lacks are Invalid, as is a
// NULL in a NOT NULL column. Errors start with `what` (the file, or "the batch"), then the row
// (1-based; the input's first row is row `first_row`) and the column.
Result<std::shared_ptr<arrow::RecordBatch>> InputToTableColumns(
    const std::shared_ptr<arrow::Table>& input, const std::vector<DataField>& fields,
    std::string_view what, int64_t first_row = 1);

}  // namespace fjord
