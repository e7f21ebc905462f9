// Per-(partition, bucket) statistics of a table from its metadata alone (`fjord stats`): the LSM
// tree of the latest snapshot (files per level, level-0 files, sorted runs, total size, what the
// universal picker would compact now) and, from the retained COMPACT snapshots' delta manifests,
// the compactions committed so far (count, files and bytes removed and added). For append tables
// the backlog is the small files (below 70 % of target-file-size) a compaction would take.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/table/compaction_metrics.h"
#include "fjord/table/table.h"

namespace fjord {

struct BucketStats {
  std::string partition;       // stored BinaryRow
  std::string partition_path;  // "k=v/k2=v2", "" when unpartitioned
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

Result<TableStats> ComputeTableStats(const Table& table);

}  // namespace fjord
