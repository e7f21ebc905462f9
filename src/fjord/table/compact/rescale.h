// Bucket rescale (Java Paimon's "Rescale Bucket", docs maintenance/rescale-bucket, and its
// `rescale` procedure): after the table's `bucket` option changed, the rows of chosen partitions
// are read merged at one snapshot and written again, bucketed with the new count exactly as
// writers bucket them, as ONE OVERWRITE snapshot of those partitions. The schema change itself
// (ALTER TABLE ... SET ('bucket' = 'N')) is the caller's: Table::Rescale (api) checks, alters,
// then calls these.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fjord/partition.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

// OK when `table` may be rescaled to `buckets`: a primary-key or append table with a fixed
// bucket count (bucket > 0) whose writes Fjord supports, and `buckets` > 0. Invalid otherwise,
// naming why (dynamic and bucket-unaware tables have no count to change; Java refuses changing
// `bucket` from or to -1; postpone-bucket tables are not written by Fjord).
Status CheckRescalable(const FileStoreTable& table, int64_t buckets);

// What a rescale rewrites: the latest snapshot and the partitions (stored rows) holding files in
// it that match one of the specs (every partition for no spec).
struct RescaleScope {
  int64_t snapshot_id = 0;
  std::set<std::string> partitions;
  std::vector<std::string> partition_texts;  // "k=v,..." in the order of `partitions`
  int64_t files = 0;                         // live files of those partitions
};

// Java's rescale refuses a table without snapshot ("No need to rescale") and a spec matching no
// data file; so does this (Invalid), before anything changes.
Result<RescaleScope> PlanRescale(const FileStoreTable& table,
                                 const std::vector<PartitionSpec>& partitions);

struct RescaleOutcome {
  std::optional<int64_t> snapshot_id;  // the OVERWRITE snapshot
  int64_t rows = 0;                    // rows written
  int64_t files_written = 0;
};

// Rewrites `scope` (planned on an earlier schema of the same table) with `table`'s current
// bucket count: reads the rows of its partitions merged at `scope.snapshot_id`, writes them with
// a write-only writer that ignores the previous files, and commits one OVERWRITE snapshot of
// exactly those partitions under a fresh commit user with
// `commit.strict-mode.last-safe-snapshot` = the snapshot read, as Java's rescale action does: a
// commit by someone else to a fixed bucket since then fails the rescale (Status::Conflict) and
// nothing is committed. Changelog files are not produced (an overwrite commits none).
Result<RescaleOutcome> RewriteBuckets(const FileStoreTable& table, const RescaleScope& scope);

}  // namespace fjord
