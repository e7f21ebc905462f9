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

#include "fjord/partition.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/compaction_metrics.h"
#include "fjord/table_stats.h"

namespace fjord {

// Only the buckets of the partitions matching `partition` (all when empty); Invalid for a spec
// that does not fit the partition columns.
Result<TableStats> ComputeTableStats(const FileStoreTable& table,
                                     const PartitionSpec& partition = {});

}  // namespace fjord
