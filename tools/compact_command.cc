// `fjord compact`: a dedicated compaction job (TableCompaction), for tables written with
// `write-only = true` or to force a full compaction.

#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct CompactArgs {
  std::string table;
  std::string partition;  // k=v,k2=v2
  bool full = false;
};

Status RunCompact(const CompactArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  CompactionOptions options;
  options.full = a.full;
  FJORD_ASSIGN_OR_RAISE(options.partition, ParsePartitionSpec(a.partition));
  FJORD_ASSIGN_OR_RAISE(auto job, table->NewCompaction(options));
  Result<CompactionResult> run = job->Run();
  if (!run.ok() && run.status().code() == StatusCode::kNotFound && !a.partition.empty()) {
    return Status::NotFound("no files in partition ", a.partition, " of ", a.table);
  }
  FJORD_ASSIGN_OR_RAISE(CompactionResult r, std::move(run));
  const char* unit = r.buckets ? " buckets" : " partitions";
  if (!r.snapshot_id && r.units_compacted == 0) {
    std::cout << "nothing to compact in " << r.units_scanned << unit << "\n";
    return Status::OK();
  }
  if (table->has_primary_key()) {
    std::cout << "compacted " << r.units_compacted << " of " << r.units_scanned << " buckets ("
              << r.compactions << " compactions, " << r.bytes_in << " bytes rewritten into "
              << r.bytes_out << ")";
  } else {
    std::cout << "compacted " << r.files_in << " files into " << r.files_out << " in "
              << r.units_scanned << unit << " (" << r.compactions << " compactions, " << r.bytes_in
              << " bytes rewritten into " << r.bytes_out << ")";
  }
  if (r.snapshot_id) std::cout << " as snapshot " << *r.snapshot_id;
  std::cout << "\n";
  return Status::OK();
}

}  // namespace

void AddCompactCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<CompactArgs>();
  auto* cmd = app->add_subcommand("compact", "Compact a table (dedicated compaction)");
  cmd->add_option("table", a->table, "Table directory")->required();
  AddPartitionOption(cmd, &a->partition, "Only the partitions matching");
  cmd->add_flag("--full", a->full,
                "Full compaction: primary keys, every file of each bucket into the highest level; "
                "fixed-bucket append tables, Java's full compaction of each bucket; "
                "bucket-unaware append tables, also partitions with fewer than "
                "compaction.min.file-num small files (at least two)");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunCompact(*a); }); });
}

}  // namespace fjord::cli
