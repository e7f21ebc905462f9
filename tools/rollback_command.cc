// `fjord rollback <table-dir> --snapshot N | --tag NAME | --timestamp TIME`: Java's rollback_to
// and rollback_to_timestamp procedures (fjord/table_rollback.h).

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "commands.h"
#include "fjord/fjord.h"
#include "time_arg.h"

namespace fjord::cli {

namespace {

struct RollbackArgs {
  std::string table;
  std::optional<int64_t> snapshot;
  std::string tag;
  std::string timestamp;
};

template <typename T>
std::string JoinIds(const std::vector<T>& ids) {
  std::string out;
  for (const T& id : ids) {
    if (!out.empty()) out += ", ";
    if constexpr (std::is_same_v<T, std::string>) {
      out += id;
    } else {
      out += std::to_string(id);
    }
  }
  return out;
}

Status RunRollback(const RollbackArgs& args) {
  RollbackOptions options;
  options.snapshot_id = args.snapshot;
  if (!args.tag.empty()) options.tag = args.tag;
  if (!args.timestamp.empty()) {
    FJORD_ASSIGN_OR_RAISE(options.timestamp_millis,
                          ParseTimeArg(args.timestamp, CurrentMillis(), "--timestamp"));
  }
  int given =
      (options.snapshot_id ? 1 : 0) + (options.tag ? 1 : 0) + (options.timestamp_millis ? 1 : 0);
  if (given != 1) {
    return Status::Invalid("give exactly one of --snapshot, --tag and --timestamp");
  }
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<Table> table, Table::Open(args.table));
  FJORD_ASSIGN_OR_RAISE(RollbackResult r, RollbackTable(*table, options));
  std::cout << "rolled back to snapshot " << r.snapshot_id;
  if (r.snapshot_recreated) std::cout << " (written again from its tag)";
  std::cout << "\n";
  if (!r.snapshots_deleted.empty()) {
    std::cout << "deleted snapshots " << JoinIds(r.snapshots_deleted) << "\n";
  }
  if (!r.changelogs_deleted.empty()) {
    std::cout << "deleted long-lived changelogs " << JoinIds(r.changelogs_deleted) << "\n";
  }
  if (!r.tags_deleted.empty()) std::cout << "deleted tags " << JoinIds(r.tags_deleted) << "\n";
  if (!r.snapshots_deleted.empty() || !r.tags_deleted.empty()) {
    std::cout << "the data files only they used stay until `fjord orphans " << args.table
              << "` removes them\n";
  }
  for (const ConsumerEntry& c : r.consumers_ahead) {
    std::cerr << "warning: consumer '" << c.id << "' waits for snapshot " << c.next_snapshot
              << ", beyond the new latest " << r.snapshot_id
              << ": a stream resuming with it would skip what is committed before that; "
                 "`fjord consumer reset "
              << args.table << " " << c.id << " --next-snapshot " << r.snapshot_id
              << "` makes it read snapshot " << r.snapshot_id
              << " again, without --next-snapshot it is deleted\n";
  }
  return Status::OK();
}

}  // namespace

void AddRollbackCommand(CLI::App* app, Handler* handler) {
  auto args = std::make_shared<RollbackArgs>();
  CLI::App* cmd = app->add_subcommand(
      "rollback",
      "Roll a table back to a snapshot, a tag or a time (as Java's rollback_to): newer "
      "snapshots, long-lived changelogs and tags are deleted; their data files are left for "
      "`fjord orphans`");
  cmd->add_option("table", args->table, "table directory")->required();
  cmd->add_option("--snapshot", args->snapshot,
                  "the snapshot id (an expired one that a tag holds is written again)");
  cmd->add_option("--tag", args->tag, "the tag name (its snapshot is written again if expired)");
  cmd->add_option("--timestamp", args->timestamp,
                  "the latest snapshot committed at or before TIME: a duration before now (1d, "
                  "2h, 30s) or an ISO-8601 timestamp");
  cmd->callback([handler, args] { SetHandler(handler, [args] { return RunRollback(*args); }); });
}

}  // namespace fjord::cli
