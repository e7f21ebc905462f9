#include "fjord/table/write/full_compaction_trigger.h"

#include <algorithm>

#include "fjord/meta/snapshot.h"

namespace fjord {

Result<std::optional<FullCompactionTrigger>> FullCompactionTrigger::FromOptions(
    const Options& options) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> delta,
                        options.GetInt("full-compaction.delta-commits"));
  std::optional<FullCompactionTrigger> trigger;
  bool full_changelog = options.GetOr("changelog-producer", "none") == "full-compaction";
  if (!delta && !full_changelog) return trigger;
  int64_t d = std::max<int64_t>(1, delta.value_or(1));
  if (d > INT32_MAX) {
    return Status::Invalid("option 'full-compaction.delta-commits' is too large: ", d);
  }
  trigger.emplace(static_cast<int32_t>(d));
  return trigger;
}

std::set<PartitionBucket> FullCompactionTrigger::TakeDue(int64_t commit_identifier) {
  bool due = commit_identifier == Snapshot::kBatchCommitIdentifier ||
             commit_identifier % delta_commits_ == 0;
  if (!due || written_.empty()) return {};
  return std::exchange(written_, {});
}

}  // namespace fjord
