// The lifecycle test (issue 15 point 8; docs/testing.md, "Lifecycle test"): seeded random
// histories of one table each (lifecycle_run.h) interleaving commits with post-commit expiration,
// writer and dedicated compactions, manual and automatic tags, rollbacks, consumers, expiration
// jobs and orphan clean-up on a fake clock, checked after every step against the model; every
// third run also crashes each maintenance operation at every I/O step and retries it.
//
// Usage: fjord_lifecycle_test [--runs N] [--crash-runs M] [--seconds S] [--seed BASE]
//                             [--steps K] [--crash-steps K] [--scratch DIR] [--verbose]
//        fjord_lifecycle_test --replay SEED --kind pk|append [--crash] [--steps K] [--verbose]
// Runs alternate primary-key and append tables; run i uses seed BASE + i. It stops after N plain
// and M crash runs or S seconds (wall clock), whichever comes first, and prints the counts. A
// failure prints the seed, the table and the steps, and the line that replays the run; exit 1.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "lifecycle_run.h"

namespace {

using fjord::lifecycle::Failure;
using fjord::lifecycle::Run;
using fjord::lifecycle::RunOptions;
using fjord::lifecycle::Stats;

struct Args {
  int64_t runs = 12;
  int64_t crash_runs = 4;
  double seconds = 60;
  uint64_t seed = 20261202;
  int steps = 40;
  int crash_steps = 18;
  std::string scratch;
  bool verbose = false;
  bool replay = false;
  bool pk = true;
  bool crash = false;
};

bool Parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--runs") {
      a->runs = std::stoll(value());
    } else if (arg == "--crash-runs") {
      a->crash_runs = std::stoll(value());
    } else if (arg == "--seconds") {
      a->seconds = std::stod(value());
    } else if (arg == "--seed") {
      a->seed = std::stoull(value());
    } else if (arg == "--steps") {
      a->steps = std::stoi(value());
    } else if (arg == "--crash-steps") {
      a->crash_steps = std::stoi(value());
    } else if (arg == "--scratch") {
      a->scratch = value();
    } else if (arg == "--verbose") {
      a->verbose = true;
    } else if (arg == "--replay") {
      a->replay = true;
      a->seed = std::stoull(value());
    } else if (arg == "--kind") {
      std::string k = value();
      if (k != "pk" && k != "append") return false;
      a->pk = k == "pk";
    } else if (arg == "--crash") {
      a->crash = true;
    } else {
      std::cerr << "unknown argument " << arg << "\n";
      return false;
    }
  }
  return true;
}

// One run; false (after printing everything needed to replay it) when a check failed.
bool OneRun(const RunOptions& o, Stats* stats) {
  std::unique_ptr<Run> run;
  try {
    run = std::make_unique<Run>(o, stats);
    run->Execute();
    return true;
  } catch (const Failure& f) {
    std::cerr << "FAILED: seed " << o.seed << " (" << (o.primary_key ? "pk" : "append")
              << (o.crash ? ", crash" : "") << "), table "
              << (run ? run->config().Describe() : "not made") << "\n"
              << f.what() << "\nsteps:\n"
              << (run ? run->Trace() : "") << "replay: fjord_lifecycle_test --replay " << o.seed
              << " --kind " << (o.primary_key ? "pk" : "append") << (o.crash ? " --crash" : "")
              << " --steps " << o.steps << " --verbose\n";
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, &a)) return 2;
  Stats stats;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  RunOptions base;
  base.scratch = a.scratch;
  base.verbose = a.verbose;
  if (a.replay) {
    RunOptions o = base;
    o.seed = a.seed;
    o.primary_key = a.pk;
    o.crash = a.crash;
    o.steps = a.steps;
    if (!OneRun(o, &stats)) return 1;
    std::cout << "replayed seed " << a.seed << ": " << stats.steps << " steps, "
              << stats.crash_points << " crash points\n";
    return 0;
  }
  std::cout << "lifecycle: base seed " << a.seed << std::endl;
  int64_t plain = 0, crashed = 0;
  for (uint64_t i = 0; plain < a.runs || crashed < a.crash_runs; ++i) {
    if (i > 0 && elapsed() > a.seconds) break;
    // Every third run crashes, while crash runs remain; plain runs fill the rest.
    bool crash = crashed < a.crash_runs && (plain >= a.runs || i % 3 == 2);
    RunOptions o = base;
    o.seed = a.seed + i;
    o.primary_key = i % 2 == 0;
    o.crash = crash;
    o.steps = crash ? a.crash_steps : a.steps;
    if (!OneRun(o, &stats)) return 1;
    ++(crash ? crashed : plain);
  }
  std::cout << "lifecycle: " << stats.runs << " runs (" << plain << " plain, " << crashed
            << " with crashes), " << stats.steps << " steps, " << stats.snapshot_reads
            << " snapshot reads, " << stats.tag_reads << " tag reads, " << stats.orphans_deleted
            << " orphans deleted, " << stats.final_files
            << " files matched with the reachable set at the ends (" << stats.kept_for_changelogs
            << " of them named only by long-lived changelogs)\n";
  std::cout << "lifecycle: " << stats.crash_ops << " maintenance operations crashed at every I/O "
            << "step, " << stats.crash_points << " crash points, each checked and retried\n";
  std::cout << "lifecycle: steps by kind:";
  for (const auto& [kind, n] : stats.ops) std::cout << " " << kind << " " << n << ";";
  std::cout << "\nlifecycle: " << static_cast<int64_t>(elapsed()) << " s\n";
  if (stats.runs == 0) return 1;
  return 0;
}
