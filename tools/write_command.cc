// `fjord write`: append rows from a file to a table and commit them as one snapshot.

#include <arrow/api.h>
#include <arrow/csv/api.h>
#include <arrow/io/api.h>
#include <parquet/arrow/reader.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "fjord/common/ids.h"
#include "fjord/format/row_json_reader.h"
#include "fjord/table/append_write.h"
#include "fjord/table/commit.h"
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

Status RunWrite(const WriteArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  std::vector<int8_t> kinds;
  FJORD_ASSIGN_OR_RAISE(auto rows, ReadInput(a, table->schema(), &kinds));
  std::vector<CommitMessage> messages;
  if (table->schema().primary_keys.empty()) {
    FJORD_ASSIGN_OR_RAISE(auto writer, AppendTableWrite::Create(table.get()));
    FJORD_RETURN_NOT_OK(writer->Write(rows));
    FJORD_ASSIGN_OR_RAISE(messages, writer->PrepareCommit());
  } else {
    FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(table.get()));
    FJORD_RETURN_NOT_OK(writer->Write(rows, kinds));
    FJORD_ASSIGN_OR_RAISE(messages, writer->PrepareCommit());
  }
  std::string user = a.commit_user.empty() ? RandomUuid() : a.commit_user;
  int64_t identifier = a.commit_id.value_or(Snapshot::kBatchCommitIdentifier);
  FileStoreCommit commit(table->io(), table->path(), table->schema(), user);
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> snapshot, commit.Commit(messages, identifier));
  if (snapshot) {
    std::cout << "committed " << rows->num_rows() << " rows as snapshot " << *snapshot << "\n";
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
  cmd->callback([handler, a] {
    *handler = [a] {
      Status st = RunWrite(*a);
      if (!st.ok()) {
        std::cerr << "fjord: " << st.ToString() << "\n";
        return 1;
      }
      return 0;
    };
  });
}

}  // namespace fjord::cli
