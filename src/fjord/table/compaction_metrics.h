// Compaction metrics of one (partition, bucket) of a primary-key table, shared by the writer's
// runtime metrics (PrimaryKeyTableWrite::BucketMetrics) and `fjord stats`. Names follow Java's
// compaction metric group (behaviour.md §11: level-0 file count, compaction counts, input and
// output sizes, total file size) where one fits.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "fjord/lsm/compact_task.h"
#include "fjord/lsm/levels.h"
#include "fjord/lsm/universal_compaction.h"

namespace fjord {

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

// Sets the tree shape and backlog fields from `levels`.
void FillLevelMetrics(const Levels& levels, const UniversalCompactionOptions& options,
                      BucketCompactionMetrics* metrics);
// Adds one finished compaction.
void AddCompaction(const CompactResult& result, int32_t output_level, int32_t max_level,
                   BucketCompactionMetrics* metrics);

}  // namespace fjord
