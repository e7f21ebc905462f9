// Subcommands of the `fjord` program. Each Add* registers one subcommand on the app; the handler
// runs after parsing and returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <string>

#include "fjord/status.h"

namespace fjord::cli {

using Handler = std::function<int()>;

// Makes `*handler` run `run` (returning Status): 0 when it succeeds, else the error on stderr as
// "fjord: <error>" and exit code 1.
template <typename Run>
void SetHandler(Handler* handler, Run run) {
  *handler = [run] {
    Status st = run();
    if (st.ok()) return 0;
    std::cerr << "fjord: " << st.ToString() << "\n";
    return 1;
  };
}

// Adds `--partition k=v[,k2=v2]` (one form for every command, fjord/partition.h), described as
// "<what> ...". The value is parsed by ParsePartitionSpec where the command runs.
template <typename Target>
CLI::Option* AddPartitionOption(CLI::App* cmd, Target* target, const std::string& what) {
  return cmd->add_option(
      "--partition", *target,
      what +
          " k=v[,k2=v2] (some or all partition columns; values as their column's type: "
          "DATE yyyy-mm-dd or its day number, TIMESTAMP yyyy-mm-ddThh:mm:ss, "
          "__DEFAULT_PARTITION__ for NULL, %2C for a comma)");
}

// `fjord options [--markdown]`: the option registry.
void AddOptionsCommand(CLI::App* app, Handler* handler);
// `fjord cat`, `snapshots`, `schema`, `files`.
void AddTableCommands(CLI::App* app, Handler* handler);
// `fjord db create|list|drop`, `fjord table create|alter|list|drop|options`.
void AddCatalogCommands(CLI::App* app, Handler* handler);
// `fjord tail` (streaming reads).
void AddTailCommand(CLI::App* app, Handler* handler);
// `fjord write`.
void AddWriteCommand(CLI::App* app, Handler* handler);
// `fjord commit` (messages of `fjord write --prepare-to`).
void AddCommitCommand(CLI::App* app, Handler* handler);

// `fjord compact` (dedicated compaction of a primary-key table).
void AddCompactCommand(CLI::App* app, Handler* handler);
void AddStatsCommand(CLI::App* app, Handler* handler);
// `fjord expire-partitions` (Java's expire_partitions procedure).
void AddExpirePartitionsCommand(CLI::App* app, Handler* handler);
// `fjord tag create|delete|list`.
void AddTagCommand(CLI::App* app, Handler* handler);
// `fjord rescale` (bucket rescale: ALTER of `bucket`, then an OVERWRITE of the partitions).
void AddRescaleCommand(CLI::App* app, Handler* handler);
// `fjord consumer list|reset|clear` (reset_consumer, clear_consumers).
void AddConsumerCommand(CLI::App* app, Handler* handler);
// `fjord expire` (snapshot expiration as a job).
void AddExpireCommand(CLI::App* app, Handler* handler);
// `fjord orphans` (Java's remove_orphan_files procedure).
void AddOrphansCommand(CLI::App* app, Handler* handler);
// `fjord rollback` (Java's rollback_to and rollback_to_timestamp procedures).
void AddRollbackCommand(CLI::App* app, Handler* handler);
// `fjord run` (streaming jobs, fjord/job.h).
void AddRunCommand(CLI::App* app, Handler* handler);
// `fjord doctor` (what usually goes wrong with a table, and the fixes).
void AddDoctorCommand(CLI::App* app, Handler* handler);

}  // namespace fjord::cli
