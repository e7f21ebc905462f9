// The key-to-bucket assigner of a job on a dynamic-bucket table (`bucket = -1` with a primary
// key), as Flink's Paimon sink runs one: the source thread assigns every row's key a bucket before
// the rows are routed by (partition, bucket) to the writer threads, which only look the keys up
// (TableWriteOptions::assigner); at each checkpoint barrier the source thread takes the hash index
// files of the keys assigned since the last one, so a checkpoint's index covers exactly the keys
// of its rows. One assigner for the whole job, as Java's with `dynamic-bucket.assigner-parallelism`
// = 1: a key keeps its bucket whatever writer thread writes it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fjord/table/file_store_table.h"
#include "fjord/table/write/dynamic_bucket.h"
#include "fjord/table_write.h"

namespace fjord::runtime {

class SharedBucketAssigner : public BucketAssigner {
 public:
  // `table` with the job's sink options applied (dynamic-bucket.target-row-num, ...).
  static Result<std::shared_ptr<SharedBucketAssigner>> Make(const FileStoreTable& table);

  // Thread-safe.
  Status AssignBuckets(const std::vector<std::string>& partitions,
                       const std::vector<int32_t>& row_partition,
                       std::vector<int32_t>* buckets) override;

  // Writes the index files of the buckets that got new keys since the last call and returns them
  // as commit messages (one per bucket, no data files).
  Result<CommitMessages> PrepareCommit();

 private:
  explicit SharedBucketAssigner(std::unique_ptr<DynamicBucketAssigner> assigner)
      : assigner_(std::move(assigner)) {}

  std::mutex mu_;
  std::unique_ptr<DynamicBucketAssigner> assigner_;
};

}  // namespace fjord::runtime
