// Subcommands of the `fjord` program. Each Add* registers one subcommand on the app; the handler
// runs after parsing and returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace fjord::cli {

using Handler = std::function<int()>;

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
