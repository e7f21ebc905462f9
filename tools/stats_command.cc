// `fjord stats <table-dir> [--json]`: per partition and bucket, the LSM tree of the latest
// snapshot and the compactions recorded in the retained COMPACT snapshots (table/table_stats.h);
// for append tables the small-file backlog. Metric names follow Java's compaction metrics
// (behaviour.md §11) where one fits: level0FileCount, totalFileSize, compactionCompletedCount,
// compactionInputSize, compactionOutputSize.

#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include "cli_util.h"
#include "commands.h"

#include "fjord/fjord.h"

namespace fjord::cli {

using Json = nlohmann::ordered_json;

namespace {

struct StatsArgs {
  std::string table;
  std::string partition;  // k=v[,k2=v2]
  bool json = false;
};

Json BucketJson(const BucketStats& b, bool primary_key) {
  Json j = Json::object();
  j["partition"] = b.partition_text;
  j["bucket"] = b.bucket;
  j["files"] = b.files;
  j["rows"] = b.rows;
  const BucketCompactionMetrics& m = b.lsm;
  auto history = [&] {
    j["compactionCompletedCount"] = m.compactions;
    j["compactionInputFiles"] = m.files_in;
    j["compactionInputSize"] = m.bytes_in;
    j["compactionOutputFiles"] = m.files_out;
    j["compactionOutputSize"] = m.bytes_out;
  };
  if (!primary_key) {
    j["smallFiles"] = b.small_files;
    j["smallFileBytes"] = b.small_bytes;
    history();
    return j;
  }
  Json levels = Json::object();
  for (const auto& [level, n] : m.files_per_level) levels[std::to_string(level)] = n;
  j["filesPerLevel"] = levels;
  j["level0FileCount"] = m.level0_files;
  j["sortedRuns"] = m.sorted_runs;
  j["totalFileSize"] = m.total_file_size;
  j["backlogBytes"] = m.backlog_bytes;
  j["backlogFiles"] = m.backlog_files;
  j["runsAboveTrigger"] = m.runs_above_trigger;
  j["fullCompactionCount"] = m.full_compactions;
  history();
  return j;
}

void PrintText(const TableStats& s) {
  std::cout << (s.primary_key ? "primary-key" : "append") << " table, snapshot " << *s.snapshot_id
            << ", " << s.buckets.size() << " buckets; history from " << s.snapshots_read
            << " retained snapshots (" << s.compact_snapshots << " COMPACT)\n";
  auto partition = [](const BucketStats& b) { return PartitionColumn(b.partition_text); };
  if (!s.primary_key) {
    std::cout << std::left << std::setw(24) << "partition" << std::right << std::setw(7) << "bucket"
              << std::setw(8) << "files" << std::setw(12) << "rows" << std::setw(12)
              << "small-files" << std::setw(13) << "small-bytes" << std::setw(10) << "compacts"
              << std::setw(13) << "bytes-in" << std::setw(13) << "bytes-out\n";
    for (const BucketStats& b : s.buckets) {
      std::cout << std::left << std::setw(24) << partition(b) << std::right << std::setw(7)
                << b.bucket << std::setw(8) << b.files << std::setw(12) << b.rows << std::setw(12)
                << b.small_files << std::setw(13) << b.small_bytes << std::setw(10)
                << b.lsm.compactions << std::setw(13) << b.lsm.bytes_in << std::setw(13)
                << b.lsm.bytes_out << "\n";
    }
    return;
  }
  std::cout << std::left << std::setw(24) << "partition" << std::right << std::setw(7) << "bucket"
            << std::setw(7) << "files" << std::setw(5) << "L0" << std::setw(6) << "runs"
            << std::setw(13) << "bytes" << std::setw(13) << "backlog" << std::setw(10) << "compacts"
            << std::setw(13) << "bytes-in" << std::setw(13) << "bytes-out"
            << "  files-per-level\n";
  for (const BucketStats& b : s.buckets) {
    const BucketCompactionMetrics& m = b.lsm;
    std::string per_level;
    for (const auto& [level, n] : m.files_per_level) {
      if (!per_level.empty()) per_level += " ";
      per_level += "L" + std::to_string(level) + ":" + std::to_string(n);
    }
    std::cout << std::left << std::setw(24) << partition(b) << std::right << std::setw(7)
              << b.bucket << std::setw(7) << b.files << std::setw(5) << m.level0_files
              << std::setw(6) << m.sorted_runs << std::setw(13) << m.total_file_size
              << std::setw(13) << m.backlog_bytes << std::setw(10) << m.compactions << std::setw(13)
              << m.bytes_in << std::setw(13) << m.bytes_out << "  "
              << (per_level.empty() ? "-" : per_level) << "\n";
  }
}

Status RunStats(const StatsArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(PartitionSpec partition, ParsePartitionSpec(a.partition));
  FJORD_ASSIGN_OR_RAISE(TableStats s, table->Stats(partition));
  if (a.json) {
    Json j = Json::object();
    j["table"] = a.table;
    j["primaryKey"] = s.primary_key;
    j["snapshot"] = s.snapshot_id ? Json(*s.snapshot_id) : Json(nullptr);
    j["snapshotsRead"] = s.snapshots_read;
    j["compactSnapshots"] = s.compact_snapshots;
    Json buckets = Json::array();
    for (const BucketStats& b : s.buckets) buckets.push_back(BucketJson(b, s.primary_key));
    j["buckets"] = buckets;
    std::cout << j.dump(2) << "\n";
    return Status::OK();
  }
  if (!s.snapshot_id) {
    std::cout << "no snapshot: the table is empty\n";
    return Status::OK();
  }
  PrintText(s);
  return Status::OK();
}

}  // namespace

void AddStatsCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<StatsArgs>();
  auto* cmd = app->add_subcommand(
      "stats", "Per partition and bucket: LSM levels, sorted runs, sizes, compaction history");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_flag("--json", a->json, "Print JSON instead of a table");
  AddPartitionOption(cmd, &a->partition, "Only the partitions matching");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunStats(*a); }); });
}

}  // namespace fjord::cli
