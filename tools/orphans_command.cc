// `fjord orphans`: Java's `remove_orphan_files` procedure (fjord/orphan_files.h). Prints each
// file deleted (or, with --dry-run, that would be) with its size, then the counts and bytes.

#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "fjord/fjord.h"
#include "time_arg.h"

namespace fjord::cli {

namespace {

struct OrphansArgs {
  std::string table;
  std::string older_than;
  bool dry_run = false;
};

Status RunOrphans(const OrphansArgs& a) {
  OrphanFilesOptions o;
  o.dry_run = a.dry_run;
  if (!a.older_than.empty()) {
    FJORD_ASSIGN_OR_RAISE(o.older_than_millis,
                          ParseTimeArg(a.older_than, CurrentMillis(), "--older-than"));
  }
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(OrphanFilesResult r, RemoveOrphanFiles(*table, o));
  for (const OrphanFilesResult::File& f : r.files) {
    std::cout << f.size << "\t" << f.path << "\n";
  }
  std::cerr << (a.dry_run ? "dry run: " : "") << r.files.size() << " orphan file(s), " << r.bytes
            << " bytes" << (a.dry_run ? " would be deleted" : " deleted");
  if (!a.dry_run) std::cerr << ", " << r.directories.size() << " empty directory(ies) removed";
  std::cerr << "\n";
  return Status::OK();
}

}  // namespace

void AddOrphansCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<OrphansArgs>();
  auto* cmd = app->add_subcommand(
      "orphans",
      "Delete the files no snapshot, tag or long-lived changelog uses (remove_orphan_files)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--older-than", a->older_than,
                  "Only files older than this: a duration before now (1d, 2h, 30s) or an "
                  "ISO-8601 timestamp (2026-11-26T03:00:00, local time unless Z or +hh:mm); "
                  "must lie in the past; default 1d");
  cmd->add_flag("--dry-run", a->dry_run, "List the files with their sizes, delete nothing");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunOrphans(*a); }); });
}

}  // namespace fjord::cli
