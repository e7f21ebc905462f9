// Routing rows to (partition, bucket) exactly as Java Paimon does (spec/format.md §1.3, §6.1):
// the partition is the stored BinaryRow of the partition columns (all nullable), the bucket is
// Java's hash of the bucket-key BinaryRow modulo the fixed bucket count, or 0 for bucket-unaware
// append tables (`bucket = -1`). Dynamic-bucket primary-key tables are refused (their bucket
// comes from the hash index, not from a hash of the key).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fjord/meta/table_schema.h"

namespace fjord {

// (stored partition BinaryRow, bucket)
using PartitionBucket = std::pair<std::string, int32_t>;

class RowRouter {
 public:
  // Reads `bucket` and the bucket key from `schema`. Invalid for bucket 0 or < -1; NotImplemented
  // for primary-key tables with a dynamic (-1) or postponed (-2) bucket.
  static Result<RowRouter> Make(const TableSchema& schema);

  // `rows` holds the table's columns in schema order in the canonical Arrow form (arrow_types.h;
  // Invalid for a key column of another Arrow type). Returns, per (partition, bucket), the
  // indices of its rows in ascending order. Thread-safe. Columnar: key rows are encoded a chunk
  // at a time with one typed loop per column, bucket keys hashed from those bytes, partitions
  // deduplicated through a dictionary; nested key columns fall back to per-row Values (same
  // bytes). bench/row_router_bench.cc measures it against the row-at-a-time algorithm.
  Result<std::map<PartitionBucket, std::vector<int64_t>>> Route(
      const arrow::RecordBatch& rows) const;

  // The bucket count written to manifests (`_TOTAL_BUCKETS`): N, or -1 when bucket-unaware.
  int32_t total_buckets() const { return total_buckets_; }

 private:
  RowRouter() = default;

  std::vector<int> partition_columns_;
  std::vector<DataTypePtr> partition_types_;  // nullable
  std::vector<int> bucket_columns_;
  std::vector<DataTypePtr> bucket_types_;
  int32_t total_buckets_ = -1;
};

}  // namespace fjord
