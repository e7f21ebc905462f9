// The `fjord` command-line program.

#include <iostream>

#include "commands.h"
#include "fjord/file_io.h"
#include "fjord/version.h"

namespace {

int PrintVersion() {
  std::cout << "fjord " << fjord::FjordVersion() << "\n";
  std::cout << "arrow " << fjord::ArrowRuntimeVersion() << " (built against "
            << fjord::ArrowBuildVersion() << ")\n";
  std::cout << "features";
  for (const std::string& f : fjord::CompiledFeatures()) std::cout << " " << f;
  std::cout << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fjord: a native engine for Apache Paimon tables"};
  app.require_subcommand(1);
  fjord::cli::Handler handler;

  app.add_subcommand("version", "Print the Fjord and Arrow versions and the compiled features")
      ->callback([&handler] { handler = PrintVersion; });
  fjord::cli::AddOptionsCommand(&app, &handler);
  fjord::cli::AddTableCommands(&app, &handler);
  fjord::cli::AddCatalogCommands(&app, &handler);
  fjord::cli::AddWriteCommand(&app, &handler);
  fjord::cli::AddCommitCommand(&app, &handler);
  fjord::cli::AddCompactCommand(&app, &handler);
  fjord::cli::AddStatsCommand(&app, &handler);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int rc = handler ? handler() : 0;
  fjord::FileIO::ShutdownFileSystems();
  return rc;
}
