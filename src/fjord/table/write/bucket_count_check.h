// Java's bucket-count check of a writer (AbstractFileStoreWrite#scanExistingFileMetas): when a
// writer opens a (partition, bucket) that holds files in the latest snapshot, those files must
// have been written with the writer's bucket count. A table whose `bucket` changed refuses
// writers of the old count on rescaled partitions and writers of the new count on partitions not
// rescaled yet, until an overwrite (fjord rescale) rewrites them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fjord/table/file_store_table.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

// OK when the counts agree; else Invalid with Java's words ("Try to write partition ... with a
// new bucket num N, but the previous bucket num is M"), naming the table, the partition
// (`partition_text`, "" for an unpartitioned table) and the `fjord rescale` that fixes it.
Status CheckBucketCountUnchanged(const std::string& table_path, const std::string& partition_text,
                                 int32_t current, int32_t previous);

class BucketCountCheck {
 public:
  // `table` must outlive the check; `buckets` is the writer's count (`_TOTAL_BUCKETS` it writes).
  BucketCountCheck(const FileStoreTable* table, int32_t buckets)
      : table_(table), buckets_(buckets) {}

  // What the writer restored: the total bucket count of the files of each (partition, bucket) at
  // snapshot `snapshot_id` (nullopt: the table had no snapshot).
  void Restored(std::optional<int64_t> snapshot_id, std::map<PartitionBucket, int32_t> totals) {
    snapshot_id_ = snapshot_id;
    totals_ = std::move(totals);
  }

  // Checks `key` as Java does when it creates the writer of a bucket: against the latest
  // snapshot, read again only when it is not the one restored (one LATEST look-up otherwise).
  Status Check(const PartitionBucket& key);

 private:
  const FileStoreTable* table_;
  int32_t buckets_;
  std::optional<int64_t> snapshot_id_;
  std::map<PartitionBucket, int32_t> totals_;
};

}  // namespace fjord
