#include "fjord/runtime/shared_assigner.h"

namespace fjord::runtime {

Result<std::shared_ptr<SharedBucketAssigner>> SharedBucketAssigner::Make(
    const FileStoreTable& table) {
  const CoreOptions& core = table.core_options();
  FJORD_ASSIGN_OR_RAISE(DynamicBucketOptions options, DynamicBucketOptions::FromOptions(core));
  auto assigner = std::make_unique<DynamicBucketAssigner>(table.io(), table.path(),
                                                          core.manifest_format(), options);
  return std::shared_ptr<SharedBucketAssigner>(new SharedBucketAssigner(std::move(assigner)));
}

Status SharedBucketAssigner::AssignBuckets(const std::vector<std::string>& partitions,
                                           const std::vector<int32_t>& row_partition,
                                           std::vector<int32_t>* buckets) {
  std::lock_guard<std::mutex> lock(mu_);
  return assigner_->AssignBuckets(partitions, row_partition, buckets);
}

Result<CommitMessages> SharedBucketAssigner::PrepareCommit() {
  std::lock_guard<std::mutex> lock(mu_);
  FJORD_ASSIGN_OR_RAISE(std::vector<HashIndexChange> changes, assigner_->PrepareCommit());
  std::vector<CommitMessage> messages;
  AddHashIndexChanges(changes, /*total_buckets=*/-1, &messages);
  return CommitMessages(std::move(messages));
}

}  // namespace fjord::runtime
