// `fjord compact`: a dedicated compaction job (TableCompaction), for tables written with
// `write-only = true` or to force a full compaction; with --follow a compaction service that
// compacts again whenever a new snapshot appears (beside a `fjord run` or Flink job writing the
// table with `write-only = true`).

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct CompactArgs {
  std::string table;
  std::string partition;  // k=v,k2=v2
  bool full = false;
  bool follow = false;
  int64_t interval_ms = 1000;
  int threads = 0;  // 0: one per core
};

std::atomic<bool> g_stop_follow{false};
extern "C" void OnFollowStopSignal(int sig) {
  g_stop_follow.store(true);
  std::signal(sig, SIG_DFL);  // a second signal kills
}

Status RunCompactOnce(const CompactArgs& a, const Table& table, const CompactionOptions& options,
                      bool quiet_when_idle, std::optional<int64_t>* snapshot);

// --follow: a compaction after every new snapshot not made by this service, until SIGINT /
// SIGTERM. A conflict with another compaction is reported and retried at the next snapshot.
Status FollowCompact(const CompactArgs& a, const Table& table, const CompactionOptions& options) {
  std::signal(SIGINT, OnFollowStopSignal);
  std::signal(SIGTERM, OnFollowStopSignal);
  std::optional<int64_t> seen;
  int64_t rounds = 0;
  int64_t conflicts = 0;
  while (!g_stop_follow.load()) {
    FJORD_ASSIGN_OR_RAISE(std::optional<SnapshotInfo> latest, table.LatestSnapshot());
    if (latest && (!seen || latest->id != *seen)) {
      std::optional<int64_t> made;
      Status st = RunCompactOnce(a, table, options, /*quiet_when_idle=*/true, &made);
      if (st.code() == StatusCode::kConflict) {
        ++conflicts;
        std::cout << "conflict, retried at the next snapshot: " << st.ToString() << std::endl;
      } else {
        FJORD_RETURN_NOT_OK(st);
      }
      ++rounds;
      seen = made ? made : latest->id;
    }
    for (int64_t waited = 0; waited < a.interval_ms && !g_stop_follow.load(); waited += 20) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::cout << "stopped after " << rounds << " rounds (" << conflicts << " conflicts)" << std::endl;
  return Status::OK();
}

Status RunCompact(const CompactArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  CompactionOptions options;
  options.full = a.full;
  options.threads = a.threads;
  FJORD_ASSIGN_OR_RAISE(options.partition, ParsePartitionSpec(a.partition));
  if (a.follow) return FollowCompact(a, *table, options);
  std::optional<int64_t> made;
  return RunCompactOnce(a, *table, options, /*quiet_when_idle=*/false, &made);
}

Status RunCompactOnce(const CompactArgs& a, const Table& table, const CompactionOptions& options,
                      bool quiet_when_idle, std::optional<int64_t>* snapshot) {
  FJORD_ASSIGN_OR_RAISE(auto job, table.NewCompaction(options));
  Result<CompactionResult> run = job->Run();
  if (!run.ok() && run.status().code() == StatusCode::kNotFound && !a.partition.empty()) {
    return Status::NotFound("no files in partition ", a.partition, " of ", a.table);
  }
  FJORD_ASSIGN_OR_RAISE(CompactionResult r, std::move(run));
  *snapshot = r.snapshot_id;
  const char* unit = r.buckets ? " buckets" : " partitions";
  if (!r.snapshot_id && r.units_compacted == 0) {
    if (!quiet_when_idle) std::cout << "nothing to compact in " << r.units_scanned << unit << "\n";
    return Status::OK();
  }
  if (table.has_primary_key()) {
    std::cout << "compacted " << r.units_compacted << " of " << r.units_scanned << " buckets ("
              << r.compactions << " compactions, " << r.bytes_in << " bytes rewritten into "
              << r.bytes_out << ")";
  } else {
    std::cout << "compacted " << r.files_in << " files into " << r.files_out << " in "
              << r.units_scanned << unit << " (" << r.compactions << " compactions, " << r.bytes_in
              << " bytes rewritten into " << r.bytes_out << ")";
  }
  if (r.snapshot_id) std::cout << " as snapshot " << *r.snapshot_id;
  std::cout << std::endl;
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
  cmd->add_flag("--follow", a->follow,
                "Keep compacting: after every new snapshot, until SIGINT / SIGTERM (a compaction "
                "service beside jobs writing with write-only = true, docs/streaming.md)");
  cmd->add_option("--threads", a->threads,
                  "Buckets (bucket-unaware append tables: rewrite tasks) compacted at once "
                  "(default 0: one per core)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--interval-ms", a->interval_ms,
                  "With --follow: how often to look for a new snapshot (default 1000)")
      ->check(CLI::Range(int64_t{10}, int64_t{3600000}));
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunCompact(*a); }); });
}

}  // namespace fjord::cli
