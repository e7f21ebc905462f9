// `full-compaction.delta-commits` in the primary-key writer (behaviour.md §2.6), as Java's Flink
// sink does it (GlobalFullCompactionSinkWrite): every bucket written (or compacted) since the last
// full compaction is fully compacted at a prepare-commit whose commit identifier is a multiple of
// delta-commits, or is the batch identifier (Long.MAX_VALUE: every batch commit), and that
// prepare-commit waits for the compaction. Nothing happens when no bucket was written.
//
// Java forgets the written buckets only once it sees the COMPACT snapshot of that identifier;
// Fjord forgets them once the full compaction ran. The difference cannot change which files are
// compacted: a bucket full-compacted and not written since holds one max-level run, and a full
// compaction of it picks nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "fjord/meta/core_options.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

class FullCompactionTrigger {
 public:
  // nullopt when the table has no `full-compaction.delta-commits` (then no trigger is needed).
  // Values below 1 count as 1, as in Java.
  static Result<std::optional<FullCompactionTrigger>> FromOptions(const CoreOptions& options);

  explicit FullCompactionTrigger(int32_t delta_commits) : delta_commits_(delta_commits) {}

  void Touch(const PartitionBucket& bucket) { written_.insert(bucket); }
  // The buckets to compact fully at the prepare-commit of `commit_identifier` (empty when it is
  // not due); they are forgotten.
  std::set<PartitionBucket> TakeDue(int64_t commit_identifier);

  int32_t delta_commits() const { return delta_commits_; }

 private:
  int32_t delta_commits_;
  std::set<PartitionBucket> written_;
};

}  // namespace fjord
