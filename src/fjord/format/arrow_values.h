// Conversion between single Arrow values (canonical form, arrow_types.h) and fjord::Value, for
// the row-at-a-time paths: merge functions over a few records, statistics, literals.
#pragma once

#include <arrow/type_fwd.h>

#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

// The value at `index` of `array` (canonical Arrow type of `type`).
Result<Value> ValueFromArrow(const arrow::Array& array, int64_t index, const DataType& type);

// A decimal's unscaled value as Arrow's 128-bit decimal.
arrow::Decimal128 ToDecimal128(Int128 unscaled);

// Units per second of a timestamp Arrow type (1, 1000, 10^6 or 10^9).
int64_t UnitsPerSecond(const arrow::DataType& timestamp_type);

// `ts` in units of which `per_second` make a second (UnitsPerSecond), rounded down.
int64_t TimestampToUnits(const Timestamp& ts, int64_t per_second);

// Appends `value` to `builder` (created for the canonical Arrow type of `type`).
Status AppendValueToBuilder(arrow::ArrayBuilder* builder, const Value& value, const DataType& type);

}  // namespace fjord
