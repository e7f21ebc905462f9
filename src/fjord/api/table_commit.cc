// The public TableCommit over FileStoreCommit.

#include "fjord/table.h"

#include "fjord/common/ids.h"
#include "fjord/table/commit/abort.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/message_check.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/commit_maintenance.h"

namespace fjord {

namespace {

class TableCommitImpl : public TableCommit {
 public:
  TableCommitImpl(std::shared_ptr<const FileStoreTable> table, std::string user,
                  const CommitOptions& options, std::unique_ptr<CommitMaintenance> maintenance)
      : TableCommit(user),
        table_(std::move(table)),
        options_(options),
        maintenance_(std::move(maintenance)),
        commit_(table_->io(), table_->path(), table_->schema(), user, options.dynamic_options) {
    if (options.ignore_empty_commit) commit_.set_ignore_empty_commit(*options.ignore_empty_commit);
    commit_.set_filter_committed(options.check_committed);
    commit_.set_complete_compaction(options.complete_compaction);
  }

  Result<CommitResult> Commit(const CommitMessages& messages, int64_t identifier) override {
    FJORD_RETURN_NOT_OK(Check(messages));
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id,
                          commit_.Commit(messages.messages(), identifier));
    return Maintained(Outcome(id), identifier, EndsBatchJob(identifier));
  }

  Result<CommitResult> Overwrite(const CommitMessages& messages, int64_t identifier,
                                 const std::optional<PartitionSpec>& static_partition) override {
    FJORD_RETURN_NOT_OK(Check(messages));
    std::optional<int64_t> id;
    if (static_partition) {
      // A static overwrite of exactly these partitions, whatever dynamic-partition-overwrite
      // says (as Spark's INSERT OVERWRITE ... PARTITION); an empty spec is the whole table.
      std::map<std::string, std::string> dynamic = options_.dynamic_options;
      dynamic["dynamic-partition-overwrite"] = "false";
      FileStoreCommit commit(table_->io(), table_->path(), table_->schema(), commit_user(),
                             dynamic);
      commit.set_filter_committed(options_.check_committed);
      FJORD_ASSIGN_OR_RAISE(
          id, commit.Overwrite(messages.messages(), identifier,
                               std::map<std::string, std::string>(static_partition->begin(),
                                                                  static_partition->end())));
      return Maintained(Outcome(id, commit.last_stats()), identifier, EndsBatchJob(identifier));
    }
    FJORD_ASSIGN_OR_RAISE(id, commit_.Overwrite(messages.messages(), identifier));
    return Maintained(Outcome(id), identifier, EndsBatchJob(identifier));
  }

  Result<CommitResult> DropPartitions(const std::vector<PartitionSpec>& partitions,
                                      int64_t identifier) override {
    std::vector<std::map<std::string, std::string>> specs(partitions.begin(), partitions.end());
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id, commit_.DropPartitions(specs, identifier));
    // Not a batch job's end: Java's partition drops make no batch tag.
    return Maintained(Outcome(id), identifier, false);
  }

  Result<CommitResult> Truncate(int64_t identifier) override {
    // No maintenance after a truncate, as Java's TableCommitImpl#truncateTable.
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id, commit_.Truncate(identifier));
    return Outcome(id);
  }

  Status Abort(const CommitMessages& messages) override {
    FJORD_RETURN_NOT_OK(Check(messages));
    return AbortCommitMessages(table_->io().get(), table_->path(), table_->schema(),
                               table_->core_options(), messages.messages());
  }

  Status Close() override { return maintenance_->Wait(); }

  void SetSnapshotProperties(std::map<std::string, std::string> properties) override {
    commit_.set_snapshot_properties(std::move(properties));
  }

 private:
  Status Check(const CommitMessages& messages) const {
    return CheckMessagesFitTable(messages.messages(), table_->schema(), table_->path(),
                                 "commit messages");
  }

  // A write under the batch identifier is a batch job's last commit (as Flink's batch sink).
  static bool EndsBatchJob(int64_t identifier) { return identifier == kBatchCommitIdentifier; }

  // The maintenance after a successful call; its error names what was committed.
  Result<CommitResult> Maintained(CommitResult result, int64_t identifier, bool ends_batch_job) {
    Status st = maintenance_->AfterCommit(identifier, !result.snapshots.empty(), ends_batch_job);
    if (!st.ok()) {
      std::string committed =
          result.snapshot_id ? "snapshot " + std::to_string(*result.snapshot_id) : "nothing new";
      return st.WithContext("post-commit maintenance (committed: " + committed + ")");
    }
    return result;
  }

  CommitResult Outcome(std::optional<int64_t> id) const {
    return Outcome(id, commit_.last_stats());
  }
  static CommitResult Outcome(std::optional<int64_t> id, const CommitStats& stats) {
    CommitResult r;
    r.snapshot_id = id;
    r.snapshots = stats.snapshots;
    r.attempts = stats.attempts;
    r.already_committed = stats.already_committed;
    return r;
  }

  std::shared_ptr<const FileStoreTable> table_;
  CommitOptions options_;
  std::unique_ptr<CommitMaintenance> maintenance_;
  FileStoreCommit commit_;
};

}  // namespace

Status Table::CheckCommitMessages(const CommitMessages& messages, std::string_view source) const {
  return CheckMessagesFitTable(messages.messages(), store_->schema(), store_->path(), source);
}

std::string NewCommitUser() { return RandomUuid(); }

Result<std::unique_ptr<TableCommit>> Table::NewCommit(std::string commit_user,
                                                      const CommitOptions& options) const {
  if (commit_user.empty()) return Status::Invalid("a commit needs a commit user");
  FJORD_RETURN_NOT_OK(store_->CheckOptions(OptionUse::kWrite, options.dynamic_options));
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> maintained,
                        store_->WithDynamicOptions(options.dynamic_options));
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<CommitMaintenance> maintenance,
                        CommitMaintenance::Make(std::move(maintained), commit_user));
  return std::unique_ptr<TableCommit>(
      new TableCommitImpl(store_, std::move(commit_user), options, std::move(maintenance)));
}

}  // namespace fjord
