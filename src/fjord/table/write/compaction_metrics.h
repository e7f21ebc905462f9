// Compaction metrics of one (partition, bucket) of a primary-key table, shared by the writer's
// runtime metrics (PrimaryKeyTableWrite::BucketMetrics) and `fjord stats`. Names follow Java's
// compaction metric group (behaviour.md §11: level-0 file count, compaction counts, input and
// output sizes, total file size) where one fits.
#pragma once

#include "fjord/table_stats.h"

#include <cstdint>
#include <map>
#include <vector>

#include "fjord/lsm/compact_task.h"
#include "fjord/lsm/levels.h"
#include "fjord/lsm/universal_compaction.h"

namespace fjord {

// Sets the tree shape and backlog fields from `levels`.
void FillLevelMetrics(const Levels& levels, const UniversalCompactionOptions& options,
                      BucketCompactionMetrics* metrics);
// Adds one finished compaction.
void AddCompaction(const CompactResult& result, int32_t output_level, int32_t max_level,
                   BucketCompactionMetrics* metrics);

}  // namespace fjord
