// Routing rows to (partition, bucket) exactly as Java Paimon does (spec/format.md §1.3, §6.1):
// the partition is the stored BinaryRow of the partition columns (all nullable), the bucket is
// Java's hash of the bucket-key BinaryRow modulo the fixed bucket count, or 0 for bucket-unaware
// append tables (`bucket = -1`). Dynamic-bucket primary-key tables (`bucket = -1`, §6.2) hash
// the trimmed primary key the same way and let a BucketAssigner (dynamic_bucket.h) map each
// hash to a bucket.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fjord/meta/core_options.h"
#include "fjord/schema.h"

namespace fjord {

// (stored partition BinaryRow, bucket)
using PartitionBucket = std::pair<std::string, int32_t>;

// Maps key hashes to buckets in dynamic bucket mode.
class BucketAssigner {
 public:
  virtual ~BucketAssigner() = default;
  // Replaces every key hash in `buckets` (in row order, as the rows arrive) by its row's bucket;
  // `row_partition[i]` is the index in `partitions` (stored BinaryRows) of row i's partition.
  virtual Status AssignBuckets(const std::vector<std::string>& partitions,
                               const std::vector<int32_t>& row_partition,
                               std::vector<int32_t>* buckets) = 0;
};

class RowRouter {
 public:
  // Reads `bucket` and the bucket key from `schema`. Invalid for bucket 0 or < -2; NotImplemented
  // for primary-key tables with a postponed (-2) bucket, and with a dynamic (-1) bucket when the
  // primary key does not hold every partition key (cross-partition upsert).
  static Result<RowRouter> Make(const TableSchema& schema, const CoreOptions& options);

  // `rows` holds the table's columns in schema order in the canonical Arrow form (arrow_types.h;
  // Invalid for a key column of another Arrow type). Returns, per (partition, bucket), the
  // indices of its rows in ascending order. Thread-safe. Columnar: key rows are encoded a chunk
  // at a time with one typed loop per column, bucket keys hashed from those bytes, partitions
  // deduplicated through a dictionary; nested key columns fall back to per-row Values (same
  // bytes). bench/row_router_bench.cc measures it against the row-at-a-time algorithm.
  // In dynamic bucket mode `assigner` (required; called once per call, so Route is then as
  // thread-safe as the assigner) turns the key hashes into buckets.
  Result<std::map<PartitionBucket, std::vector<int64_t>>> Route(
      const arrow::RecordBatch& rows, BucketAssigner* assigner = nullptr) const;

  // The bucket count written to manifests (`_TOTAL_BUCKETS`): N, or -1 when bucket-unaware or
  // dynamic (as Java writes it for `bucket = -1`).
  int32_t total_buckets() const { return total_buckets_; }
  // Primary-key table with `bucket = -1`: buckets come from a BucketAssigner.
  bool dynamic() const { return dynamic_; }

 private:
  RowRouter() = default;

  std::vector<int> partition_columns_;
  std::vector<DataTypePtr> partition_types_;  // nullable
  std::vector<int> bucket_columns_;
  std::vector<DataTypePtr> bucket_types_;
  int32_t total_buckets_ = -1;
  bool dynamic_ = false;
};

}  // namespace fjord
