// Subcommands of the `fjord` program. Each Add* registers one subcommand on the app; the handler
// runs after parsing and returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>

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

// `fjord options [--markdown]`: the option registry.
void AddOptionsCommand(CLI::App* app, Handler* handler);
// `fjord cat`, `snapshots`, `schema`, `files`.
void AddTableCommands(CLI::App* app, Handler* handler);
// `fjord db create|list|drop`, `fjord table create|alter|list|drop|options`.
void AddCatalogCommands(CLI::App* app, Handler* handler);
// `fjord write`.
void AddWriteCommand(CLI::App* app, Handler* handler);
// `fjord commit` (messages of `fjord write --prepare-to`).
void AddCommitCommand(CLI::App* app, Handler* handler);

// `fjord compact` (dedicated compaction of a primary-key table).
void AddCompactCommand(CLI::App* app, Handler* handler);
void AddStatsCommand(CLI::App* app, Handler* handler);

}  // namespace fjord::cli
