// The `fjord` command-line program.

#include <iostream>
#include <string>

#include "commands.h"
#include "fjord/file_io.h"
#include "fjord/memory_pool.h"
#include "fjord/version.h"

namespace {

int PrintVersion() {
  std::cout << "fjord " << fjord::FjordVersion() << "\n";
  std::cout << "arrow " << fjord::ArrowRuntimeVersion() << " (built against "
            << fjord::ArrowBuildVersion() << ")\n";
  std::cout << "memory pool " << fjord::ArrowMemoryPoolName() << "\n";
  std::cout << "features";
  for (const std::string& f : fjord::CompiledFeatures()) std::cout << " " << f;
  std::cout << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  fjord::PreferJemallocMemoryPool();
  CLI::App app{"fjord: a native engine for Apache Paimon tables"};
  app.require_subcommand(1);
  fjord::cli::Handler handler;

  app.add_subcommand("version", "Print the Fjord and Arrow versions and the compiled features")
      ->callback([&handler] { handler = PrintVersion; });
  fjord::cli::AddOptionsCommand(&app, &handler);
  fjord::cli::AddTableCommands(&app, &handler);
  fjord::cli::AddTailCommand(&app, &handler);
  fjord::cli::AddCatalogCommands(&app, &handler);
  fjord::cli::AddWriteCommand(&app, &handler);
  fjord::cli::AddCommitCommand(&app, &handler);
  fjord::cli::AddCompactCommand(&app, &handler);
  fjord::cli::AddStatsCommand(&app, &handler);
  fjord::cli::AddExpirePartitionsCommand(&app, &handler);
  fjord::cli::AddTagCommand(&app, &handler);
  fjord::cli::AddRescaleCommand(&app, &handler);
  fjord::cli::AddConsumerCommand(&app, &handler);
  fjord::cli::AddExpireCommand(&app, &handler);
  fjord::cli::AddOrphansCommand(&app, &handler);
  fjord::cli::AddRollbackCommand(&app, &handler);
  fjord::cli::AddRunCommand(&app, &handler);
  fjord::cli::AddDoctorCommand(&app, &handler);

  // An unknown command is named as such, with the list of known ones (CLI11 alone would only say
  // that an argument was not expected).
  if (argc > 1 && argv[1][0] != '-') {
    std::string name = argv[1];
    std::string known;
    bool found = false;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      found = found || sub->check_name(name);
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::cerr << "fjord: unknown command '" << name << "'; the commands are: " << known
                << "\nRun 'fjord --help' for more.\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int rc = handler ? handler() : 0;
  fjord::FileIO::ShutdownFileSystems();
  return rc;
}
