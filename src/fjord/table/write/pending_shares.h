// Small batches held by a writer with several threads until together they are worth a share
// per bucket, then dealt out to the buckets at once (RowScatter, format/gather_rows.h).
//
// Every share a writer hands to a bucket's lane costs a task, hand-overs between threads and, in
// the bucket's file or buffer, per-share work: callers that write 8,192 rows at a time into
// four buckets made shares of about 2,000 rows (docs/performance.md, "Batches held before they
// are dealt out").
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "fjord/format/gather_rows.h"
#include "fjord/result.h"

namespace fjord {

class PendingShares {
 public:
  // Batches are dealt out once they hold this many rows or bytes together (a larger batch at
  // once), or when the writer needs its buffers (prepare-commit, compaction).
  static constexpr int64_t kRows = int64_t{1} << 16;
  static constexpr int64_t kBytes = int64_t{16} << 20;

  explicit PendingShares(int64_t max_rows = kRows, int64_t max_bytes = kBytes)
      : max_rows_(max_rows), max_bytes_(max_bytes) {}

  // One bucket's rows of a batch: the bucket (its writer) and the rows, ascending.
  using Group = std::pair<void*, const std::vector<int64_t>*>;

  // Holds `batch` (not copied) and each group's rows of it. Returns the batch's index among the
  // held ones (RowRef::source).
  int Add(std::shared_ptr<arrow::RecordBatch> batch, const std::vector<Group>& groups);
  bool empty() const { return sources_.empty(); }
  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }
  // Whether the held batches are worth dealing out now.
  bool full() const { return rows_ >= max_rows_ || bytes_ >= max_bytes_; }

  struct Share {
    void* bucket;
    std::vector<RowRef> refs;  // the bucket's rows, in batch order then row order
    int32_t dealt;             // index in the scatter, or -1: `refs` are whole batches
  };
  struct Dealt {
    std::shared_ptr<const std::vector<std::shared_ptr<arrow::RecordBatch>>> sources;
    // The shares that are not whole batches, to be filled (RowScatter::FillShared) by whichever
    // of their tasks runs first; null when every share is whole batches.
    std::shared_ptr<RowScatter> scatter;
    std::vector<Share> shares;  // in the order their buckets first came
  };
  // Takes what is held, each share's rows dealt out from `pool` (null: Arrow's default pool),
  // and empties the holder.
  Result<Dealt> Take(arrow::MemoryPool* pool);

 private:
  int64_t max_rows_;
  int64_t max_bytes_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> sources_;
  std::vector<Share> shares_;
  std::map<void*, size_t> share_of_;  // index into shares_
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
};

// Whether `refs` are whole batches of `sources`, each from its first row to its last.
bool WholeSources(const std::vector<std::shared_ptr<arrow::RecordBatch>>& sources,
                  const std::vector<RowRef>& refs);

}  // namespace fjord
