// `fjord expire <table-dir> [--retain-min N] [--retain-max N] [--older-than TIME] [--dry-run]`:
// snapshot expiration as a job (Table::ExpireSnapshots, docs/maintenance.md). Unset flags take
// the table's snapshot.* options. The dry run lists each file that would be deleted with its
// size, then the totals.

#include <iostream>
#include <optional>
#include <string>

#include "cli_util.h"
#include "commands.h"
#include "fjord/fjord.h"
#include "time_arg.h"

namespace fjord::cli {

namespace {

struct ExpireArgs {
  std::string table;
  std::optional<int32_t> retain_min, retain_max;
  std::string older_than;
  bool dry_run = false;
};

Status RunExpire(const ExpireArgs& args) {
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<Table> table, Table::Open(args.table));
  ExpireOptions options;
  options.retain_min = args.retain_min;
  options.retain_max = args.retain_max;
  options.dry_run = args.dry_run;
  if (args.retain_min && *args.retain_min < 1) {
    return Status::Invalid("--retain-min is ", *args.retain_min, ": it must be at least 1");
  }
  if (args.retain_max && *args.retain_max < 1) {
    return Status::Invalid("--retain-max is ", *args.retain_max, ": it must be at least 1");
  }
  if (!args.older_than.empty()) {
    int64_t now = CurrentMillis();
    FJORD_ASSIGN_OR_RAISE(int64_t t, ParseTimeArg(args.older_than, now, "--older-than"));
    if (t > now) return Status::Invalid("--older-than '", args.older_than, "' lies in the future");
    options.older_than_millis = t;
  }
  FJORD_ASSIGN_OR_RAISE(ExpireResult result, table->ExpireSnapshots(options));
  int64_t bytes = 0;
  if (args.dry_run) {
    for (const ExpiredFile& f : result.files) {
      std::cout << f.size << "\t" << f.path << "\n";
      bytes += f.size > 0 ? f.size : 0;
    }
    std::cout << "would expire " << result.snapshots_expired << " snapshots, deleting "
              << result.files.size() << " files (" << bytes << " bytes)\n";
  } else {
    std::cout << "expired " << result.snapshots_expired << " snapshots";
    if (result.changelogs_expired) {
      std::cout << " and " << result.changelogs_expired << " long-lived changelogs";
    }
    std::cout << ", deleted " << result.files.size() << " files\n";
  }
  return Status::OK();
}

}  // namespace

void AddExpireCommand(CLI::App* app, Handler* handler) {
  auto args = std::make_shared<ExpireArgs>();
  CLI::App* cmd =
      app->add_subcommand("expire",
                          "Expire old snapshots and delete the files only they use (as Java's "
                          "expire_snapshots); unset flags take the table's snapshot.* options");
  cmd->add_option("table", args->table, "table directory")->required();
  cmd->add_option("--retain-min", args->retain_min,
                  "snapshots to keep at least (snapshot.num-retained.min)");
  cmd->add_option("--retain-max", args->retain_max,
                  "snapshots to keep at most (snapshot.num-retained.max)");
  cmd->add_option("--older-than", args->older_than,
                  "expire only snapshots committed before TIME: a duration before now (1d, 2h, "
                  "30s) or an ISO-8601 timestamp; replaces snapshot.time-retained");
  cmd->add_flag("--dry-run", args->dry_run,
                "list the files that would be deleted, with sizes, and delete nothing");
  cmd->callback([handler, args] { SetHandler(handler, [args] { return RunExpire(*args); }); });
}

}  // namespace fjord::cli
