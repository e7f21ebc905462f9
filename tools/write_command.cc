// `fjord write`: rows from a file into a table, committed as one snapshot (or only prepared, for a
// later `fjord commit`).

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct WriteArgs {
  std::string table;
  std::string input;
  std::string format = "jsonl";
  std::string csv_null;
  std::string commit_user;
  std::optional<int64_t> commit_id;
  bool overwrite = false;
  std::optional<std::string> partition;  // static overwrite: "k=v,..."
  std::string prepare_to;
  int threads = 0;  // 0: one per core
};

Status RunWrite(const WriteArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(InputFormat format, ParseInputFormat(a.format));
  std::optional<PartitionSpec> static_partition;
  if (a.partition) {
    FJORD_ASSIGN_OR_RAISE(static_partition, ParsePartitionSpec(*a.partition));
    FJORD_RETURN_NOT_OK(table->CheckPartitionSpec(*static_partition));  // before writing files
  }
  InputOptions input_options;
  input_options.csv_null = a.csv_null;
  input_options.threads = a.threads;  // the writer's threads decode the Parquet input's columns
  FJORD_ASSIGN_OR_RAISE(auto input,
                        InputFileReader::Open(a.input, format, table->schema(), input_options));
  WriteOptions write_options;
  write_options.for_overwrite = a.overwrite;
  write_options.threads = a.threads;
  FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite(write_options));
  int64_t identifier = a.commit_id.value_or(kBatchCommitIdentifier);
  FJORD_RETURN_NOT_OK(WriteInputFile(*table, *input, *writer, identifier));
  // The identifier decides full-compaction.delta-commits (a batch write: every commit).
  FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer->PrepareCommit(identifier));
  // Rows read from the input, including those ignore-delete dropped.
  int64_t rows = writer->metrics().records_written + writer->metrics().records_dropped;
  if (!a.prepare_to.empty()) {
    // Phase one only: the data files are written, `fjord commit` makes them visible.
    FJORD_ASSIGN_OR_RAISE(std::string bytes, messages.Serialize());
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> out, FileIO::Open(a.prepare_to));
    FJORD_RETURN_NOT_OK(out->Overwrite(a.prepare_to, bytes));  // whole or not at all
    std::cout << "prepared " << rows << " rows in " << messages.size() << " commit messages to "
              << a.prepare_to << " (not committed)\n";
    return Status::OK();
  }
  CommitOptions commit_options;
  commit_options.check_committed = !a.commit_user.empty();  // a fresh UUID has committed nothing
  std::string user = a.commit_user.empty() ? NewCommitUser() : a.commit_user;
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit(user, commit_options));
  FJORD_ASSIGN_OR_RAISE(CommitResult result,
                        a.overwrite ? commit->Overwrite(messages, identifier, static_partition)
                                    : commit->Commit(messages, identifier));
  if (result.snapshot_id) {
    std::cout << (a.overwrite ? "overwrote with " : "committed ") << rows << " rows as snapshot "
              << *result.snapshot_id;
    int lost = result.attempts - static_cast<int>(result.snapshots.size());
    if (lost > 0) std::cout << " (after losing " << lost << " race(s) for a snapshot id)";
    std::cout << "\n";
  } else if (result.already_committed) {
    std::cout << "commit " << identifier << " of user " << user
              << " was already committed; nothing added\n";
  } else {
    std::cout << "nothing to commit (no rows" << (a.overwrite ? " in a dynamic overwrite" : "")
              << ")\n";
  }
  return Status::OK();
}

}  // namespace

void AddWriteCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<WriteArgs>();
  auto* cmd = app->add_subcommand("write", "Append rows from a file to a table (one commit)");
  cmd->footer(
      "Every value is converted exactly to its column's type or the write fails naming the file, "
      "the line (jsonl, csv) or row (parquet) and the column, with nothing committed: no "
      "wrapping, no type inference, DECIMAL scale rounded HALF_UP as Java (docs/writing.md).");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--input", a->input, "Input file")->required();
  cmd->add_option("--format", a->format, "jsonl (canonical, as `fjord cat` prints), csv or parquet")
      ->check(CLI::IsMember({"jsonl", "csv", "parquet"}));
  cmd->add_option("--csv-null", a->csv_null,
                  "CSV: the unquoted field text that means NULL (default: the empty field; a "
                  "quoted field, \"\" included, is never NULL)");
  cmd->add_option("--commit-user", a->commit_user, "Commit user (default: a new UUID)");
  cmd->add_option("--commit-id", a->commit_id,
                  "Commit identifier; a (user, id) pair is committed at most once");
  auto* overwrite = cmd->add_flag(
      "--overwrite", a->overwrite,
      "Replace data instead of appending: the partitions of the new rows (dynamic-partition-"
      "overwrite, the default), or the whole table when unpartitioned or with --partition ''");
  AddPartitionOption(cmd, &a->partition,
                     "With --overwrite: replace exactly the partitions matching ('' = the whole "
                     "table; rows outside them are an error):")
      ->needs(overwrite);
  cmd->add_option("--threads", a->threads,
                  "Buckets and partitions written at once, and a Parquet input's columns decoded "
                  "at once (default 0: one per core)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--prepare-to", a->prepare_to,
                  "Write the data files and their commit messages to this file, without "
                  "committing (then: fjord commit --messages)")
      ->excludes("--commit-user", "--commit-id", "--overwrite");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunWrite(*a); }); });
}

}  // namespace fjord::cli
