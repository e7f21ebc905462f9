// `fjord cat`, `fjord snapshots`, `fjord schema`, `fjord files`: reading tables.

#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>

#include "cli_util.h"
#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct CatArgs {
  std::string table;
  std::optional<int64_t> snapshot;
  std::optional<int64_t> timestamp;
  std::optional<std::string> tag;
  std::string columns;
  std::string where;
  std::string partition;  // k=v[,k2=v2]
  std::string format = "jsonl";
  std::vector<std::string> options;  // -o key=value
  int threads = 0;                   // 0: one per core
  bool split_order = false;          // rows in split order, as one thread reads them
};

Result<ReadBuilder> SelectedRead(const Table& table, const CatArgs& args) {
  ReadBuilder read = table.NewRead();
  FJORD_ASSIGN_OR_RAISE(auto options, ParseKeyValues(args.options));
  read.WithOptions(std::move(options));
  if (args.snapshot) read.AtSnapshot(*args.snapshot);
  if (args.timestamp) read.AtTimestamp(*args.timestamp);
  if (args.tag) read.AtTag(*args.tag);
  FJORD_ASSIGN_OR_RAISE(PartitionSpec partition, ParsePartitionSpec(args.partition));
  read.Partition(std::move(partition));
  read.WithThreads(args.threads);
  read.InSplitOrder(args.split_order);
  return read;
}

Status RunCat(const CatArgs& args) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(args.table));
  FJORD_ASSIGN_OR_RAISE(RowTextFormat format, ParseRowTextFormat(args.format));
  FJORD_ASSIGN_OR_RAISE(ReadBuilder read, SelectedRead(*table, args));
  read.Where(args.where).Select(SplitList(args.columns));
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<TableReader> reader, read.Open());
  struct ArrowSchema schema;
  FJORD_RETURN_NOT_OK(reader->ExportSchema(&schema));
  FJORD_ASSIGN_OR_RAISE(auto writer,
                        RowTextWriter::Make(format, reader->fields(), &schema, &std::cout));
  while (true) {
    struct ArrowArray batch;
    FJORD_RETURN_NOT_OK(reader->Next(&batch));
    if (batch.release == nullptr) break;
    FJORD_RETURN_NOT_OK(writer->Write(&batch));
  }
  return writer->Finish();
}

Status RunSnapshots(const std::string& path) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(path));
  FJORD_ASSIGN_OR_RAISE(std::vector<SnapshotInfo> snapshots, table->Snapshots());
  std::printf("%-8s %-6s %-10s %-24s %-12s %-12s %-20s %s\n", "id", "schema", "kind", "time",
              "total_rows", "delta_rows", "identifier", "commit_user");
  for (const SnapshotInfo& s : snapshots) {
    std::printf("%-8lld %-6lld %-10s %-24s %-12lld %-12lld %-20lld %s\n",
                static_cast<long long>(s.id), static_cast<long long>(s.schema_id),
                s.commit_kind.c_str(), FormatEpochMillis(s.time_millis).c_str(),
                static_cast<long long>(s.total_record_count.value_or(-1)),
                static_cast<long long>(s.delta_record_count.value_or(-1)),
                static_cast<long long>(s.commit_identifier), s.commit_user.c_str());
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<TagInfo> tags, table->Tags());
  for (const TagInfo& t : tags) {
    std::printf("tag %s -> snapshot %lld\n", t.name.c_str(), static_cast<long long>(t.snapshot.id));
  }
  return Status::OK();
}

Status RunSchema(const std::string& path) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(path));
  std::cout << table->schema().ToJson() << "\n";
  return Status::OK();
}

Status RunFiles(const CatArgs& args) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(args.table));
  FJORD_ASSIGN_OR_RAISE(ReadBuilder read, SelectedRead(*table, args));
  FJORD_ASSIGN_OR_RAISE(ReadPlan plan, read.Plan());
  std::printf("%-24s %-6s %-5s %-8s %-10s %-24s %-24s %s\n", "partition", "bucket", "level", "rows",
              "size", "min_key", "max_key", "file");
  for (const PlannedFile& f : plan.files) {
    std::printf("%-24s %-6d %-5d %-8lld %-10lld %-24s %-24s %s\n",
                PartitionColumn(f.partition).c_str(), f.bucket, f.level,
                static_cast<long long>(f.row_count), static_cast<long long>(f.file_size),
                f.min_key.c_str(), f.max_key.c_str(), f.file_name.c_str());
  }
  return Status::OK();
}

void AddSelectorOptions(CLI::App* cmd, CatArgs* args) {
  AddPartitionOption(cmd, &args->partition, "Only the partitions matching");
  auto* snap = cmd->add_option("--snapshot", args->snapshot, "Read at this snapshot id");
  auto* ts = cmd->add_option("--timestamp", args->timestamp,
                             "Read the latest snapshot committed at or before MILLIS (epoch ms)");
  auto* tag = cmd->add_option("--tag", args->tag, "Read the snapshot of this tag");
  cmd->add_option("-o,--option", args->options,
                  "Read option key=value (scan.mode, scan.snapshot-id, scan.tag-name, ...); "
                  "repeatable");
  snap->excludes(ts)->excludes(tag);
  ts->excludes(tag);
}

}  // namespace

void AddTableCommands(CLI::App* app, Handler* handler) {
  auto cat_args = std::make_shared<CatArgs>();
  auto* cat = app->add_subcommand("cat", "Print the rows of a table");
  cat->add_option("table", cat_args->table, "Table directory")->required();
  AddSelectorOptions(cat, cat_args.get());
  cat->add_option("--columns", cat_args->columns, "Comma-separated columns to print");
  cat->add_option("--where", cat_args->where, "Filter, e.g. \"id > 5 AND name = 'x'\"");
  cat->add_option("--format", cat_args->format, "jsonl (canonical), csv or table")
      ->check(CLI::IsMember({"jsonl", "csv", "table"}));
  cat->add_option("--threads", cat_args->threads,
                  "Splits read at once (default 0: one per core); the rows of a key keep "
                  "their order")
      ->check(CLI::NonNegativeNumber);
  cat->add_flag("--split-order", cat_args->split_order,
                "Rows in split order, as one thread reads them (slower with several threads)");
  cat->callback(
      [handler, cat_args] { SetHandler(handler, [cat_args] { return RunCat(*cat_args); }); });

  auto path = std::make_shared<std::string>();
  auto* snapshots = app->add_subcommand("snapshots", "List the snapshots and tags of a table");
  snapshots->add_option("table", *path, "Table directory")->required();
  snapshots->callback(
      [handler, path] { SetHandler(handler, [path] { return RunSnapshots(*path); }); });

  auto* schema = app->add_subcommand("schema", "Print the latest schema of a table");
  schema->add_option("table", *path, "Table directory")->required();
  schema->callback([handler, path] { SetHandler(handler, [path] { return RunSchema(*path); }); });

  auto files_args = std::make_shared<CatArgs>();
  auto* files = app->add_subcommand("files", "List the live data files of a table");
  files->add_option("table", files_args->table, "Table directory")->required();
  AddSelectorOptions(files, files_args.get());
  files->callback([handler, files_args] {
    SetHandler(handler, [files_args] { return RunFiles(*files_args); });
  });
}

}  // namespace fjord::cli
