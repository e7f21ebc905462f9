// What a table's metadata says about its compaction state (`fjord stats`, Table::Stats): per
// (partition, bucket) the LSM tree of the latest snapshot (files per level, level-0 files, sorted
// runs, size, what Java's universal picker would compact now) and the compactions the retained
// COMPACT snapshots record; for append tables the small-file backlog. Writers report the same
// per-bucket metrics at run time. Names follow Java's compaction metric group where one fits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fjord {

// Compaction metrics of one (partition, bucket) of a primary-key table.
struct BucketCompactionMetrics {
  // The shape of the LSM tree.
  int32_t level0_files = 0;  // Java: level0FileCount
  int32_t sorted_runs = 0;   // level-0 files + non-empty levels >= 1
  std::map<int32_t, int32_t> files_per_level;
  int64_t total_file_size = 0;  // Java: totalFileSize
  // Backlog: what Java's universal picker would compact now (0 when nothing), and how many sorted
  // runs exceed num-sorted-run.compaction-trigger.
  int64_t backlog_bytes = 0;
  int32_t backlog_files = 0;
  int32_t runs_above_trigger = 0;
  // Finished compactions (Java: compactionCompletedCount). Input/output sizes count every file
  // the compactions removed/added, upgraded files included, as Java's compactionInputSize /
  // compactionOutputSize do; rewritten bytes count only files read and rewritten.
  int64_t compactions = 0;
  int64_t files_in = 0;
  int64_t files_out = 0;
  int64_t bytes_in = 0;
  int64_t bytes_out = 0;
  int64_t rewritten_bytes = 0;
  int64_t upgraded_files = 0;
  int64_t total_millis = 0;
  int64_t last_millis = 0;
  int64_t full_compactions = 0;  // compactions whose output was the highest level
  bool running = false;          // a compaction of this bucket is in flight
};

struct BucketStats {
  std::string partition;  // stored BinaryRow
  // "k=v,k2=v2" as every command prints partitions and `--partition` takes them
  // (fjord/partition.h); "" when unpartitioned.
  std::string partition_text;
  int32_t bucket = 0;
  int64_t files = 0;
  int64_t rows = 0;  // sum of the files' row counts (before merging)
  // Primary-key tables: tree shape and backlog from the latest snapshot. All tables: compactions,
  // files and bytes in/out from the COMPACT snapshots (an upgraded file counts as removed and
  // added, as in Java's compaction sizes). Durations are not recorded in metadata and stay 0.
  BucketCompactionMetrics lsm;
  // Append tables: files below 70 % of target-file-size, and their bytes.
  int64_t small_files = 0;
  int64_t small_bytes = 0;
};

struct TableStats {
  bool primary_key = false;
  std::optional<int64_t> snapshot_id;  // the latest snapshot; none for an empty table
  int64_t snapshots_read = 0;          // retained snapshots looked at for history
  int64_t compact_snapshots = 0;       // of which COMPACT
  std::vector<BucketStats> buckets;    // by partition path, then bucket
};

}  // namespace fjord
