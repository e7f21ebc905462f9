// How Paimon types live in Arrow memory inside Fjord (the "canonical" Arrow form):
//   BOOLEAN bool, TINYINT..BIGINT int8..int64, FLOAT float32, DOUBLE float64,
//   DECIMAL(p,s) decimal128(p,s), CHAR/VARCHAR utf8, BINARY/VARBINARY binary, DATE date32,
//   TIME time32[ms], TIMESTAMP(p) timestamp[ms|us|ns] by p (<=3, <=6, >6), TIMESTAMP_LTZ the same
//   with time zone "UTC", ARRAY list, MULTISET map<element, int32>, MAP map, ROW struct.
// Every reader converts to this form, so the layers above handle one representation.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <vector>

#include "fjord/data_type.h"

namespace fjord {

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& type);
Result<std::shared_ptr<arrow::Field>> ToArrowField(const DataField& field);
Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const std::vector<DataField>& fields);

// Registers Arrow's compute kernels (Arrow 21+ keeps them in libarrow_compute). Idempotent and
// thread-safe; every code path that calls arrow::compute runs it first.
void EnsureArrowCompute();

// Casts `array` to the canonical Arrow type of `type` (a no-op when it already has it).
Result<std::shared_ptr<arrow::Array>> ToCanonical(const std::shared_ptr<arrow::Array>& array,
                                                  const DataType& type);

}  // namespace fjord
