// Dedicated compaction of append tables (`fjord compact`, behaviour.md §2.8): the coordinator that
// plans bucket-unaware compaction, and the job that compacts a whole table over its latest
// snapshot. The in-writer pieces (queues, rewriting) are in table/write/append_compact.h.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fjord/table/commit/commit.h"
#include "fjord/table/write/append_compact.h"
#include "fjord/table/write/append_file_writer.h"

namespace fjord {

class FileStoreTable;

// Java's AppendCompactCoordinator for bucket-unaware tables: collects small files per partition
// and plans compaction tasks from them.
class UnawareCompactCoordinator {
 public:
  struct Task {
    std::string partition;            // stored BinaryRow
    std::vector<DataFileMeta> files;  // in the order they are rewritten (by size, as Java)
  };
  // Java's ages: a partition whose files stay unpacked for more than kCompactAge rounds has them
  // all compacted; one idle for more than kRemoveAge rounds is forgotten.
  static constexpr int kCompactAge = 5;
  static constexpr int kRemoveAge = 10;

  explicit UnawareCompactCoordinator(AppendCompactOptions options) : options_(options) {}

  // Java's shouldCompact: smaller than compaction_file_size.
  bool ShouldCompact(const DataFileMeta& file) const {
    return file.file_size < options_.compaction_file_size;
  }
  // Adds the small files among `files` (the same file twice counts once) and resets the
  // partition's age.
  void AddFiles(const std::string& partition, const std::vector<DataFileMeta>& files);
  // One planning round over every partition (in partition order). `full` (Fjord's `fjord compact
  // --full`; Java has no full mode for these tables) also compacts a remainder of fewer than
  // min_file_num files, as long as it has at least two: what aging would do after 5 rounds.
  std::vector<Task> Plan(bool full = false);

  // Files waiting, per partition (for tests).
  std::map<std::string, std::vector<DataFileMeta>> Waiting() const;

 private:
  struct Partition {
    std::vector<DataFileMeta> files;
    int age = 0;
  };
  std::vector<std::vector<DataFileMeta>> Pack(Partition& p, bool full) const;

  AppendCompactOptions options_;
  std::map<std::string, Partition> partitions_;
};

// Dedicated compaction of an append table (`fjord compact`), over the latest snapshot:
//  * fixed buckets: every bucket with files (in partitions `partition_filter` accepts; null =
//    all) is compacted once, as Java's compact action feeds it to its writer: the best-effort
//    pick, or with `full` Java's full compaction;
//  * bucket-unaware: the coordinator scans the small files (compaction.file-num-limit at a time)
//    and plans after each batch, as Java's batch compact job does; every task is rewritten.
// Returns the commit messages (compact increments only) for FileStoreCommit; the files are
// written, nothing is committed. The rewrites run at once on up to `threads` threads (0: one per
// core); when one fails, the files the others wrote are deleted. NotImplemented for primary-key
// tables and for the features CheckAppendCompactionSupported refuses.
Result<std::vector<CommitMessage>> CompactAppendTable(
    const FileStoreTable& table, const std::function<bool(const std::string&)>& partition_filter,
    bool full, AppendCompactMetrics* metrics, int threads = 0);

}  // namespace fjord
