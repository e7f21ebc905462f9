// `fjord expire-partitions`: Java's `expire_partitions` procedure (fjord/partition_expire.h):
// drops the partitions older than the expiration time, one partition per line on stdout, or
// "No expired partitions." as the procedure answers.

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct ExpirePartitionsArgs {
  std::string table;
  std::string expiration_time;
  std::string formatter;
  std::string pattern;
  std::string strategy;
  std::optional<int32_t> max_expires;
  std::string now;
  bool dry_run = false;
};

std::optional<std::string> NonEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

Status RunExpirePartitions(const ExpirePartitionsArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  PartitionExpireOptions o;
  o.expiration_time = NonEmpty(a.expiration_time);
  o.timestamp_formatter = NonEmpty(a.formatter);
  o.timestamp_pattern = NonEmpty(a.pattern);
  o.strategy = NonEmpty(a.strategy);
  o.max_expires = a.max_expires;
  o.now = NonEmpty(a.now);
  o.dry_run = a.dry_run;
  FJORD_ASSIGN_OR_RAISE(PartitionExpireResult r, ExpirePartitions(*table, o));
  if (r.partitions.empty()) {
    std::cout << "No expired partitions.\n";
    return Status::OK();
  }
  for (const std::string& p : r.partitions) std::cout << p << "\n";
  if (a.dry_run) {
    std::cerr << "dry run: " << r.partitions.size() << " partitions would be dropped\n";
  } else {
    std::cerr << "dropped " << r.partitions.size() << " partitions in " << r.snapshots.size()
              << " OVERWRITE snapshot(s)";
    for (int64_t id : r.snapshots) std::cerr << " " << id;
    std::cerr << "\n";
  }
  return Status::OK();
}

}  // namespace

void AddExpirePartitionsCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<ExpirePartitionsArgs>();
  auto* cmd = app->add_subcommand(
      "expire-partitions", "Drop the partitions older than an expiration time (expire_partitions)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--expiration-time", a->expiration_time,
                  "Age after which a partition is dropped (\"7 d\", \"12 h\"); default the "
                  "table's partition.expiration-time");
  cmd->add_option("--timestamp-formatter", a->formatter,
                  "Java DateTimeFormatter pattern of the partition time (yyyyMMdd, "
                  "yyyy-MM-dd HH:mm:ss, ...); default the table's");
  cmd->add_option("--timestamp-pattern", a->pattern,
                  "How the time text is built from partition columns ('$dt $hour:00:00'); "
                  "default the table's, else the first partition column");
  cmd->add_option("--strategy", a->strategy,
                  "values-time (the partition values) or update-time (newest file)")
      ->check(CLI::IsMember({"values-time", "update-time"}));
  cmd->add_option("--max-expires", a->max_expires, "Most partitions dropped by this run")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--now", a->now,
                  "Take this local date-time as now (yyyy-MM-ddTHH:mm:ss; default the clock)");
  cmd->add_flag("--dry-run", a->dry_run, "List the partitions, drop nothing");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunExpirePartitions(*a); }); });
}

}  // namespace fjord::cli
