// The public TableCommit over FileStoreCommit.

#include "fjord/table.h"

#include "fjord/common/ids.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/message_check.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/partition_expire.h"
#include "fjord/table/maintain/tag_auto_create.h"

namespace fjord {

namespace {

class TableCommitImpl : public TableCommit {
 public:
  TableCommitImpl(std::shared_ptr<const FileStoreTable> table, std::string user,
                  const CommitOptions& options, std::unique_ptr<PartitionExpire> partition_expire,
                  std::unique_ptr<TagMaintenance> tags)
      : TableCommit(user),
        table_(std::move(table)),
        options_(options),
        commit_(table_->io(), table_->path(), table_->schema(), user, options.dynamic_options),
        partition_expire_(std::move(partition_expire)),
        tags_(std::move(tags)) {
    if (options.ignore_empty_commit) commit_.set_ignore_empty_commit(*options.ignore_empty_commit);
    commit_.set_filter_committed(options.check_committed);
  }

  Result<CommitResult> Commit(const CommitMessages& messages, int64_t identifier) override {
    FJORD_RETURN_NOT_OK(Check(messages));
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id,
                          commit_.Commit(messages.messages(), identifier));
    CommitResult result = Outcome(id);
    FJORD_RETURN_NOT_OK(Maintain(identifier));
    return result;
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
      CommitResult result = Outcome(id, commit.last_stats());
      FJORD_RETURN_NOT_OK(Maintain(identifier));
      return result;
    }
    FJORD_ASSIGN_OR_RAISE(id, commit_.Overwrite(messages.messages(), identifier));
    CommitResult result = Outcome(id);
    FJORD_RETURN_NOT_OK(Maintain(identifier));
    return result;
  }

  Result<CommitResult> DropPartitions(const std::vector<PartitionSpec>& partitions,
                                      int64_t identifier) override {
    std::vector<std::map<std::string, std::string>> specs(partitions.begin(), partitions.end());
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id, commit_.DropPartitions(specs, identifier));
    return Outcome(id);
  }

  Result<CommitResult> Truncate(int64_t identifier) override {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id, commit_.Truncate(identifier));
    return Outcome(id);
  }

 private:
  // Java's post-commit maintenance (TableCommitImpl#maintain), synchronously: for now partition
  // expiration when due, then automatic tags and tag time expiration. Its failure is the commit
  // call's (the commit itself stays), as in Java.
  Status Maintain(int64_t identifier) {
    if (partition_expire_) {
      Result<std::optional<std::vector<ExpiredPartition>>> expired =
          partition_expire_->ExpireIfDue(LocalDateTime::Now(), identifier);
      if (!expired.ok()) {
        return expired.status().WithContext("the commit of identifier ", identifier,
                                            " succeeded, then partition expiration failed");
      }
    }
    if (tags_) {
      Status st = tags_->Run(LocalDateTime::Now());
      if (!st.ok()) {
        return st.WithContext("the commit of identifier ", identifier,
                              " succeeded, then tag maintenance failed");
      }
    }
    return Status::OK();
  }

  Status Check(const CommitMessages& messages) const {
    return CheckMessagesFitTable(messages.messages(), table_->schema(), table_->path(),
                                 "commit messages");
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
  FileStoreCommit commit_;
  std::unique_ptr<PartitionExpire> partition_expire_;  // null: none (or write-only)
  std::unique_ptr<TagMaintenance> tags_;               // null: none (or write-only)
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
  // Partition expiration and tag maintenance at commit maintenance, unless write-only (as Java's
  // table commit).
  std::unique_ptr<PartitionExpire> partition_expire;
  std::unique_ptr<TagMaintenance> tags;
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table,
                        store_->WithDynamicOptions(options.dynamic_options));
  if (!table->core_options().write_only()) {
    FJORD_ASSIGN_OR_RAISE(partition_expire, PartitionExpire::Make(table, commit_user));
    FJORD_ASSIGN_OR_RAISE(tags, TagMaintenance::Make(table));
  }
  return std::unique_ptr<TableCommit>(new TableCommitImpl(
      store_, std::move(commit_user), options, std::move(partition_expire), std::move(tags)));
}

}  // namespace fjord
