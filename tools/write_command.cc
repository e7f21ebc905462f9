// `fjord write`: append rows from a file to a table and commit them as one snapshot.

#include <arrow/api.h>
#include <arrow/csv/api.h>
#include <arrow/io/api.h>
#include <parquet/arrow/reader.h>

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.h"
#include "fjord/common/ids.h"
#include "fjord/format/row_json_reader.h"
#include "fjord/table/append_write.h"
#include "fjord/table/commit.h"
#include "fjord/table/commit_message_codec.h"
#include "fjord/table/primary_key_write.h"
#include "fjord/table/table.h"

namespace fjord::cli {

namespace {

struct WriteArgs {
  std::string table;
  std::string input;
  std::string format = "jsonl";
  std::string commit_user;
  std::optional<int64_t> commit_id;
  bool overwrite = false;
  std::optional<std::string> partition;  // static overwrite: "k=v,..."
  std::string prepare_to;
};

// The rows of the input file, and for JSON lines each row's kind (empty for other formats: a
// `_row_kind` column, if any, then carries the kinds).
Result<std::shared_ptr<arrow::Table>> ReadInput(const WriteArgs& a, const TableSchema& schema,
                                                std::vector<int8_t>* kinds) {
  if (a.format == "jsonl") {
    std::ifstream in(a.input, std::ios::binary);
    if (!in) return Status::NotFound("cannot open input ", a.input);
    std::stringstream buffer;
    buffer << in.rdbuf();
    FJORD_ASSIGN_OR_RAISE(JsonLinesBatch batch,
                          ParseJsonLines(buffer.str(), schema.fields, a.input));
    if (schema.primary_keys.empty()) {
      for (int8_t k : batch.row_kinds) {
        if (k != 0) {
          return Status::Invalid(a.input, ": append tables take only +I rows (", a.table,
                                 " has no primary key)");
        }
      }
    }
    *kinds = std::move(batch.row_kinds);
    return batch.rows;
  }
  auto file = arrow::io::ReadableFile::Open(a.input);
  if (!file.ok())
    return Status::NotFound("cannot open input ", a.input, ": ", file.status().message());
  if (a.format == "parquet") {
    auto reader = parquet::arrow::OpenFile(*file, arrow::default_memory_pool());
    if (!reader.ok()) return Status::Invalid(a.input, ": ", reader.status().message());
    auto table = (*reader)->ReadTable();
    if (!table.ok()) return Status::Invalid(a.input, ": ", table.status().message());
    return *table;
  }
  auto reader = arrow::csv::TableReader::Make(
      arrow::io::default_io_context(), *file, arrow::csv::ReadOptions::Defaults(),
      arrow::csv::ParseOptions::Defaults(), arrow::csv::ConvertOptions::Defaults());
  if (!reader.ok()) return Status::Invalid(a.input, ": ", reader.status().message());
  auto table = (*reader)->Read();
  if (!table.ok()) return Status::Invalid(a.input, ": ", table.status().message());
  return *table;
}

// "k1=v1,k2=v2" (values as in partition paths); "" is the empty spec.
Result<std::map<std::string, std::string>> ParsePartitionSpec(const std::string& text) {
  std::map<std::string, std::string> spec;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("--partition takes k=v[,k=v...], got '", text, "'");
    }
    spec[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return spec;
}

Status RunWrite(const WriteArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  std::vector<int8_t> kinds;
  FJORD_ASSIGN_OR_RAISE(auto rows, ReadInput(a, table->schema(), &kinds));
  std::vector<CommitMessage> messages;
  if (table->schema().primary_keys.empty()) {
    // An overwrite compacts none of the files it replaces (Java's ignorePreviousFiles).
    FJORD_ASSIGN_OR_RAISE(
        auto writer, AppendTableWrite::Create(table.get(), {.ignore_previous_files = a.overwrite}));
    FJORD_RETURN_NOT_OK(writer->Write(rows));
    FJORD_ASSIGN_OR_RAISE(messages, writer->PrepareCommit());
  } else {
    FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(table.get()));
    FJORD_RETURN_NOT_OK(writer->Write(rows, kinds));
    // The identifier decides full-compaction.delta-commits (a batch write: every commit).
    FJORD_ASSIGN_OR_RAISE(
        messages,
        writer->PrepareCommit(true, a.commit_id.value_or(Snapshot::kBatchCommitIdentifier)));
  }
  if (!a.prepare_to.empty()) {
    // Phase one only: the data files are written, `fjord commit` makes them visible.
    FJORD_ASSIGN_OR_RAISE(std::string bytes, EncodeCommitMessages(messages));
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> out, FileIO::Open(a.prepare_to));
    FJORD_RETURN_NOT_OK(out->Overwrite(a.prepare_to, bytes));  // whole or not at all
    std::cout << "prepared " << rows->num_rows() << " rows in " << messages.size()
              << " commit messages to " << a.prepare_to << " (not committed)\n";
    return Status::OK();
  }
  std::string user = a.commit_user.empty() ? RandomUuid() : a.commit_user;
  int64_t identifier = a.commit_id.value_or(Snapshot::kBatchCommitIdentifier);
  std::map<std::string, std::string> dynamic, static_partition;
  if (a.partition) {
    // A static overwrite of the named partitions, whatever dynamic-partition-overwrite says (as
    // Spark's INSERT OVERWRITE ... PARTITION); an empty spec overwrites the whole table.
    dynamic["dynamic-partition-overwrite"] = "false";
    FJORD_ASSIGN_OR_RAISE(static_partition, ParsePartitionSpec(*a.partition));
  }
  FileStoreCommit commit(table->io(), table->path(), table->schema(), user, dynamic);
  commit.set_filter_committed(!a.commit_user.empty());  // a fresh UUID has committed nothing
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> snapshot,
                        a.overwrite ? commit.Overwrite(messages, identifier, static_partition)
                                    : commit.Commit(messages, identifier));
  if (snapshot) {
    std::cout << (a.overwrite ? "overwrote with " : "committed ") << rows->num_rows()
              << " rows as snapshot " << *snapshot;
    int lost =
        commit.last_stats().attempts - static_cast<int>(commit.last_stats().snapshots.size());
    if (lost > 0) std::cout << " (after losing " << lost << " race(s) for a snapshot id)";
    std::cout << "\n";
  } else if (messages.empty()) {
    std::cout << "nothing to commit (no rows" << (a.overwrite ? " in a dynamic overwrite" : "")
              << ")\n";
  } else {
    std::cout << "commit " << identifier << " of user " << user
              << " was already committed; nothing added\n";
  }
  return Status::OK();
}

}  // namespace

void AddWriteCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<WriteArgs>();
  auto* cmd = app->add_subcommand("write", "Append rows from a file to a table (one commit)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--input", a->input, "Input file")->required();
  cmd->add_option("--format", a->format, "jsonl (canonical, as `fjord cat` prints), csv or parquet")
      ->check(CLI::IsMember({"jsonl", "csv", "parquet"}));
  cmd->add_option("--commit-user", a->commit_user, "Commit user (default: a new UUID)");
  cmd->add_option("--commit-id", a->commit_id,
                  "Commit identifier; a (user, id) pair is committed at most once");
  auto* overwrite = cmd->add_flag(
      "--overwrite", a->overwrite,
      "Replace data instead of appending: the partitions of the new rows (dynamic-partition-"
      "overwrite, the default), or the whole table when unpartitioned or with --partition ''");
  cmd->add_option("--partition", a->partition,
                  "With --overwrite: replace exactly the partitions matching k=v[,k=v...] (some "
                  "or all partition columns; '' = the whole table); rows outside are an error")
      ->needs(overwrite);
  cmd->add_option("--prepare-to", a->prepare_to,
                  "Write the data files and their commit messages to this file, without "
                  "committing (then: fjord commit --messages)")
      ->excludes("--commit-user", "--commit-id", "--overwrite");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunWrite(*a); }); });
}

}  // namespace fjord::cli
