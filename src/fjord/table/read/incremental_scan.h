// Incremental queries (behaviour.md §7.4): the changes of the snapshots after `start` up to and
// including `end`, in delta mode (the files APPEND snapshots added) or changelog mode (the
// changelog files of every snapshot but OVERWRITEs), read unmerged with their row kinds, snapshot
// after snapshot (Java's IncrementalDeltaStartingScanner); or, in diff mode and between tags, the
// difference of the data of two snapshots (Java's IncrementalDiffStartingScanner): per bucket the
// files of each side that the other does not hold, both merged and compared key by key.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fjord/expr/predicate.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/options.h"
#include "fjord/table/read/scan.h"

namespace fjord {

struct IncrementalRange {
  int64_t start = 0;  // exclusive
  int64_t end = 0;    // inclusive
  ScanKind kind = ScanKind::kDelta;
  // Diff mode: the two snapshots (of tags, or the snapshots themselves) whose data is compared;
  // start and end are then their ids.
  std::optional<Snapshot> diff_from;
  std::optional<Snapshot> diff_to;
};

// The range incremental-between (two tags, or snapshot ids), incremental-between-timestamp or
// incremental-to-auto-tag name, with incremental-between-scan-mode (auto: delta for
// changelog-producer none, else changelog; diff) and incremental-between-tag-to-snapshot, as
// Java resolves them: two tags are compared by their data (diff) unless tag-to-snapshot reads
// the changes between their snapshots; an auto tag is compared with the auto tag of the latest
// period before it. Invalid for a range outside the snapshots that exist, an end before the
// start, bucket counts that differ between the two sides of a diff, or a bad value. nullopt:
// nothing to read (no snapshot, equal ends, a missing auto tag or no earlier one).
Result<std::optional<IncrementalRange>> ResolveIncremental(const SnapshotManager& snapshots,
                                                           const Options& options,
                                                           const CoreOptions& core);

// The splits of `range`: per (partition, bucket), the files of each snapshot in snapshot order,
// as streaming splits; for a diff, per (partition, bucket) present on either side the files of
// each side not on the other (same name and level), as diff splits.
Result<ScanPlan> PlanIncremental(const TableScan& scan, const SnapshotManager& snapshots,
                                 const IncrementalRange& range, const Predicate* filter);

}  // namespace fjord
