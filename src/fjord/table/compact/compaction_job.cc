#include "fjord/table/compact/compaction_job.h"

#include <optional>
#include <vector>

#include "fjord/common/ids.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/compact/append_compact_job.h"
#include "fjord/table/write/primary_key_write.h"

namespace fjord {

namespace {

Result<std::optional<int64_t>> CommitCompaction(const FileStoreTable& table,
                                                const std::vector<CommitMessage>& messages,
                                                const CompactionOptions& options) {
  FileStoreCommit commit(table.io(), table.path(), table.schema(), RandomUuid(),
                         options.dynamic_options);
  commit.set_filter_committed(false);  // a fresh user has committed nothing
  return commit.Commit(messages, Snapshot::kBatchCommitIdentifier);
}

Result<CompactionResult> CompactAppend(const FileStoreTable& table,
                                       const PartitionFilter& partitions,
                                       const CompactionOptions& options) {
  Status bad_partition;
  auto filter = [&](const std::string& partition) {
    Result<bool> m = partitions.Contains(partition);
    if (!m.ok() && bad_partition.ok()) bad_partition = m.status();
    return m.ok() && *m;
  };
  AppendCompactMetrics m;
  FJORD_ASSIGN_OR_RAISE(std::vector<CommitMessage> messages,
                        CompactAppendTable(table, filter, options.full, &m, options.threads));
  FJORD_RETURN_NOT_OK(bad_partition);
  CompactionResult result;
  result.buckets = table.core_options().bucket() != -1;
  if (!partitions.is_all() && m.scanned == 0 && result.buckets) {
    return Status::NotFound("no files in the partitions matching the spec in ", table.path());
  }
  result.units_scanned = m.scanned;
  result.units_compacted = static_cast<int64_t>(messages.size());
  result.compactions = m.compactions;
  result.files_in = m.files_in;
  result.files_out = m.files_out;
  result.bytes_in = m.bytes_in;
  result.bytes_out = m.bytes_out;
  if (messages.empty()) return result;
  FJORD_ASSIGN_OR_RAISE(result.snapshot_id, CommitCompaction(table, messages, options));
  return result;
}

Result<CompactionResult> CompactPrimaryKey(const FileStoreTable& table,
                                           const PartitionFilter& partitions,
                                           const CompactionOptions& options) {
  TableWriteOptions write_options;
  write_options.dynamic_options = options.dynamic_options;
  write_options.dynamic_options["write-only"] = "false";
  write_options.threads = options.threads;
  FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(&table, write_options));
  FJORD_ASSIGN_OR_RAISE(std::vector<PartitionBucket> buckets, writer->LiveBuckets());
  CompactionResult result;
  std::vector<PartitionBucket> chosen;
  for (const PartitionBucket& b : buckets) {
    FJORD_ASSIGN_OR_RAISE(bool match, partitions.Contains(b.first));
    if (match) chosen.push_back(b);
  }
  result.units_scanned = static_cast<int64_t>(chosen.size());
  // The buckets compact at once on the writer's threads.
  FJORD_RETURN_NOT_OK(writer->CompactBuckets(chosen, options.full));
  if (!partitions.is_all() && result.units_scanned == 0) {
    return Status::NotFound("no files in the partitions matching the spec in ", table.path());
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<CommitMessage> messages, writer->PrepareCommit());
  const TableWriteMetrics& m = writer->metrics();
  result.units_compacted = static_cast<int64_t>(messages.size());
  result.compactions = m.compactions;
  result.bytes_in = m.compaction_bytes_in;
  result.bytes_out = m.compaction_bytes_out;
  for (const CommitMessage& message : messages) {
    result.files_in += static_cast<int64_t>(message.compact_before.size());
    result.files_out += static_cast<int64_t>(message.compact_after.size());
  }
  if (messages.empty()) return result;
  FJORD_ASSIGN_OR_RAISE(result.snapshot_id, CommitCompaction(table, messages, options));
  return result;
}

}  // namespace

Result<CompactionResult> RunCompactionJob(const FileStoreTable& table,
                                          const CompactionOptions& options) {
  FJORD_ASSIGN_OR_RAISE(
      PartitionFilter partitions,
      PartitionFilter::OfSpecs({options.partition}, table.schema(), table.core_options()));
  if (table.schema().primary_keys.empty()) return CompactAppend(table, partitions, options);
  return CompactPrimaryKey(table, partitions, options);
}

}  // namespace fjord
