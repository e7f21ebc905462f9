// Incremental queries (behaviour.md §7.4, Java's IncrementalDeltaStartingScanner): the changes of
// the snapshots after `start` up to and including `end`, in delta mode (the files APPEND
// snapshots added) or changelog mode (the changelog files of every snapshot but OVERWRITEs),
// read unmerged with their row kinds, snapshot after snapshot.
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
};

// The range incremental-between (snapshot ids) or incremental-between-timestamp name, with
// incremental-between-scan-mode (auto: delta for changelog-producer none, else changelog).
// NotImplemented for tag ranges, incremental-to-auto-tag and the diff mode; Invalid for a range
// outside the snapshots that exist (Java's message) or a bad value. nullopt: nothing to read.
Result<std::optional<IncrementalRange>> ResolveIncremental(const SnapshotManager& snapshots,
                                                           const Options& options,
                                                           const CoreOptions& core);

// The splits of `range`: per (partition, bucket), the files of each snapshot in snapshot order,
// as streaming splits.
Result<ScanPlan> PlanIncremental(const TableScan& scan, const SnapshotManager& snapshots,
                                 const IncrementalRange& range, const Predicate* filter);

}  // namespace fjord
