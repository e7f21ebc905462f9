#include "fjord/table/write/full_compaction_trigger.h"

#include <algorithm>

#include "fjord/meta/snapshot.h"

namespace fjord {

Result<std::optional<FullCompactionTrigger>> FullCompactionTrigger::FromOptions(
    const CoreOptions& options) {
  std::optional<int32_t> delta = options.full_compaction_delta_commits();
  std::optional<FullCompactionTrigger> trigger;
  bool full_changelog = options.changelog_producer() == ChangelogProducer::kFullCompaction;
  if (!delta && !full_changelog) return trigger;
  // Without delta-commits, the full-compaction changelog producer compacts at every commit.
  trigger.emplace(std::max(1, delta.value_or(1)));
  return trigger;
}

std::set<PartitionBucket> FullCompactionTrigger::TakeDue(int64_t commit_identifier) {
  bool due = commit_identifier == Snapshot::kBatchCommitIdentifier ||
             commit_identifier % delta_commits_ == 0;
  if (!due || written_.empty()) return {};
  return std::exchange(written_, {});
}

}  // namespace fjord
