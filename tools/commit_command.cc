// `fjord commit`: the second phase of a two-phase write. Commits the messages that one or more
// `fjord write --prepare-to FILE` runs prepared, as one snapshot under (commit user, commit id).

#include <iostream>
#include <memory>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct CommitArgs {
  std::string table;
  std::vector<std::string> messages;
  std::string commit_user;
  std::optional<int64_t> commit_id;
};

Status RunCommit(const CommitArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  CommitMessages messages;
  for (const std::string& path : a.messages) {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> io, FileIO::Open(path));
    Result<std::string> bytes = io->ReadFile(path);
    if (!bytes.ok()) return bytes.status().WithContext("commit messages");
    FJORD_ASSIGN_OR_RAISE(CommitMessages decoded, CommitMessages::Deserialize(*bytes, path));
    // Messages prepared for another table would name files it does not have.
    FJORD_RETURN_NOT_OK(table->CheckCommitMessages(decoded, path));
    messages.Append(decoded);
  }
  CommitOptions options;
  options.check_committed = !a.commit_user.empty();  // a fresh UUID has committed nothing
  std::string user = a.commit_user.empty() ? NewCommitUser() : a.commit_user;
  int64_t identifier = a.commit_id.value_or(kBatchCommitIdentifier);
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit(user, options));
  FJORD_ASSIGN_OR_RAISE(CommitResult result, commit->Commit(messages, identifier));
  if (result.snapshot_id) {
    std::cout << "committed " << messages.size() << " messages (" << messages.new_file_count()
              << " new files, " << messages.new_row_count() << " rows) as snapshot "
              << *result.snapshot_id << "\n";
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
