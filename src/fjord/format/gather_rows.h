// Rows picked from several Arrow batches, in a given order, as one new batch: what a sort (rows
// of the pending batches in key order) and a merge (the surviving rows of several sorted runs)
// produce. Each value is copied once, straight from its source batch; Arrow's Take would need
// the sources concatenated into one batch first, a second copy of every row.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "fjord/result.h"

namespace fjord {

// A row of one of the source batches.
struct RowRef {
  int source;   // index into the sources
  int64_t row;  // row of that batch
};

// The rows `refs` point at, in that order, as one batch of `schema`; every source has `schema`'s
// columns (types equal). Fixed-width, boolean and (large) binary/string columns are copied value
// by value; other types (nested, dictionary, ...) go through Arrow's Concatenate and Take of
// the ranges used. The copied columns' buffers come from `pool` (null: Arrow's default pool).
Result<std::shared_ptr<arrow::RecordBatch>> GatherRows(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& sources,
    const std::vector<RowRef>& refs, arrow::MemoryPool* pool = nullptr);

}  // namespace fjord
