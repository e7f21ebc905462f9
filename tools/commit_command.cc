// `fjord commit`: the second phase of a two-phase write. Commits the messages that one or more
// `fjord write --prepare-to FILE` runs prepared, as one snapshot under (commit user, commit id).

#include <iostream>
#include <memory>

#include "commands.h"
#include "fjord/common/ids.h"
#include "fjord/format/binary_row.h"
#include "fjord/table/commit.h"
#include "fjord/table/commit_message_codec.h"
#include "fjord/table/table.h"

namespace fjord::cli {

namespace {

struct CommitArgs {
  std::string table;
  std::vector<std::string> messages;
  std::string commit_user;
  std::optional<int64_t> commit_id;
};

// Messages prepared for another table would make a snapshot that names files it does not have:
// refuse what cannot belong to this table (partition arity, bucket numbers).
Status CheckMessagesFitTable(const std::vector<CommitMessage>& messages, const Table& table,
                             const std::string& source) {
  const TableSchema& schema = table.schema();
  std::vector<DataTypePtr> types;
  for (const DataField& f : schema.FieldsByName(schema.partition_keys)) {
    types.push_back(f.type->WithNullable(true));
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    const CommitMessage& m = messages[i];
    Result<std::vector<Value>> partition = DecodeStoredBinaryRow(m.partition, types);
    if (!partition.ok()) {
      return Status::Invalid(
          source, ": message ", i, " does not fit table ", table.path(),
          " (its partition is not a row of the partition keys: ", partition.status().message(),
          "); were the messages prepared for "
          "another table?");
    }
    if (m.total_buckets > 0 && (m.bucket < 0 || m.bucket >= m.total_buckets)) {
      return Status::Invalid(source, ": message ", i, " names bucket ", m.bucket, " of ",
                             m.total_buckets);
    }
  }
  return Status::OK();
}

Status RunCommit(const CommitArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  std::vector<CommitMessage> messages;
  int64_t files = 0, rows = 0;
  for (const std::string& path : a.messages) {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> io, FileIO::Open(path));
    Result<std::string> bytes = io->ReadFile(path);
    if (!bytes.ok()) {
      return bytes.status().WithContext("commit messages");
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<CommitMessage> decoded, DecodeCommitMessages(*bytes, path));
    FJORD_RETURN_NOT_OK(CheckMessagesFitTable(decoded, *table, path));
    for (CommitMessage& m : decoded) {
      files += static_cast<int64_t>(m.new_files.size());
      for (const DataFileMeta& f : m.new_files) rows += f.row_count;
      messages.push_back(std::move(m));
    }
  }
  std::string user = a.commit_user.empty() ? RandomUuid() : a.commit_user;
  int64_t identifier = a.commit_id.value_or(Snapshot::kBatchCommitIdentifier);
  FileStoreCommit commit(table->io(), table->path(), table->schema(), user);
  commit.set_filter_committed(!a.commit_user.empty());  // a fresh UUID has committed nothing
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> snapshot, commit.Commit(messages, identifier));
  if (snapshot) {
    std::cout << "committed " << messages.size() << " messages (" << files << " new files, " << rows
              << " rows) as snapshot " << *snapshot << "\n";
  } else {
    std::cout << "commit " << identifier << " of user " << user
              << " was already committed; nothing added\n";
  }
  return Status::OK();
}

}  // namespace

void AddCommitCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<CommitArgs>();
  auto* cmd = app->add_subcommand(
      "commit", "Commit messages prepared by `fjord write --prepare-to` (one snapshot)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--messages", a->messages,
                  "Commit-message file (repeat to commit several writers' messages together)")
      ->required();
  cmd->add_option("--commit-user", a->commit_user, "Commit user (default: a new UUID)");
  cmd->add_option("--commit-id", a->commit_id,
                  "Commit identifier; a (user, id) pair is committed at most once");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunCommit(*a); }); });
}

}  // namespace fjord::cli
