// Rows picked from several Arrow batches, in a given order, as one new batch: what a sort (rows
// of the pending batches in key order) and a merge (the surviving rows of several sorted runs)
// produce. Each value is copied once, straight from its source batch; Arrow's Take would need
// the sources concatenated into one batch first, a second copy of every row.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "fjord/common/executor.h"
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

// The rows of several source batches dealt out to several new batches ("shares"), e.g. the
// buckets' shares of a writer's batches: each column of a source is read once, in order, and
// its values go to the shares they belong to. Gathering each share on its own (GatherRows) reads
// a source column once per share, nearly all of it each time when the rows are spread: with ten
// partitions, ten times the reading of one pass. The types GatherRows copies value by value are
// dealt out so; the others are gathered share by share.
class RowScatter {
 public:
  // `dest[s][r]`: the share of row r of sources[s] (0 .. shares - 1), or -1 for none. A share's
  // rows come in source order, then in row order. Every source has `schema`'s columns. Buffers
  // come from `pool` (null: Arrow's default pool), which must outlive the shares.
  static Result<std::shared_ptr<RowScatter>> Make(
      std::shared_ptr<arrow::Schema> schema,
      std::vector<std::shared_ptr<arrow::RecordBatch>> sources,
      std::vector<std::vector<int32_t>> dest, int32_t shares, arrow::MemoryPool* pool = nullptr);

  int num_columns() const;
  // Fills column `c` of every share, once (the sources' column `c` is let go after it).
  // Different columns may be filled at once, on several threads.
  Status Fill(int c);
  // Fills the columns no thread has taken yet, then waits for those others are filling: every
  // thread that needs a share calls it (SharedWork), and they fill the columns together. The
  // first error, or OK once every column is filled.
  Status FillShared() { return fill_->Join(); }
  // Share `i`, once every column has been filled.
  Result<std::shared_ptr<arrow::RecordBatch>> Share(int32_t i) const;

 private:
  RowScatter() = default;

  std::shared_ptr<arrow::Schema> schema_;
  // source_columns_[c][s]: column c of source s, until column c is filled.
  std::vector<std::vector<std::shared_ptr<arrow::ArrayData>>> source_columns_;
  std::vector<std::vector<int32_t>> dest_;
  std::vector<int64_t> rows_;  // per share
  arrow::MemoryPool* pool_ = nullptr;
  // columns_[c][i]: column c of share i, once filled.
  std::vector<std::vector<std::shared_ptr<arrow::Array>>> columns_;
  std::unique_ptr<SharedWork> fill_;  // Fill of every column, for FillShared
};

}  // namespace fjord
