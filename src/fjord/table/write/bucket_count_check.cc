#include "fjord/table/write/bucket_count_check.h"

#include "fjord/table/commit/file_entry.h"
#include "fjord/table/read/scan.h"

namespace fjord {

Status CheckBucketCountUnchanged(const std::string& table_path, const std::string& partition_text,
                                 int32_t current, int32_t previous) {
  if (current == previous) return Status::OK();
  std::string what = partition_text.empty()
                         ? "table " + table_path
                         : "partition " + partition_text + " of table " + table_path;
  std::string rescale = "fjord rescale " + table_path + " --buckets " + std::to_string(current);
  if (!partition_text.empty()) rescale += " --partition " + partition_text;
  return Status::Invalid(
      "Try to write ", what, " with a new bucket num ", current,
      ", but the previous bucket num is ", previous, " (its files were written with ", previous,
      " buckets). Rescale the data first with an INSERT OVERWRITE (", rescale, ")");
}

Status BucketCountCheck::Check(const PartitionBucket& key) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest_id, table_->snapshots().LatestId());
  if (latest_id != snapshot_id_) {
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table_->snapshots().Latest());
    totals_.clear();
    snapshot_id_.reset();
    if (latest) {
      TableScan scan(table_->io(), table_->path(), table_->schema());
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
      for (const ManifestEntry& e : entries) totals_[{e.partition, e.bucket}] = e.total_buckets;
      snapshot_id_ = latest->id;
    }
  }
  auto it = totals_.find(key);
  if (it == totals_.end()) return Status::OK();
  return CheckBucketCountUnchanged(
      table_->path(), PartitionDisplay(key.first, table_->schema(), table_->core_options()),
      buckets_, it->second);
}

}  // namespace fjord
