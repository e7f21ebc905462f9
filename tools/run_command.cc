// `fjord run JOB.yaml [--bounded]`: a streaming job (fjord/job.h, docs/streaming.md).

#include <unistd.h>
#include <atomic>

#include <csignal>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "fjord/job.h"

namespace fjord::cli {

namespace {

std::atomic<bool> g_stop_job{false};

// The first SIGINT / SIGTERM stops the job with a final checkpoint; a second one kills it (the
// next run resumes at the last completed checkpoint, exactly as after a crash).
extern "C" void OnJobStopSignal(int sig) {
  g_stop_job.store(true);
  std::signal(sig, SIG_DFL);
}

struct RunArgs {
  std::string job;
  bool bounded = false;
  bool check = false;
};

Status RunRun(const RunArgs& a) {
  if (a.check) {
    FJORD_RETURN_NOT_OK(CheckJob(a.job));
    std::cout << a.job << ": ok\n";
    return Status::OK();
  }
  std::signal(SIGINT, OnJobStopSignal);
  std::signal(SIGTERM, OnJobStopSignal);
  JobRunOptions options;
  options.bounded = a.bounded;
  options.stop = &g_stop_job;
  options.log = &std::cout;
  if (::isatty(STDOUT_FILENO)) options.progress = &std::cout;
  FJORD_ASSIGN_OR_RAISE(JobRunSummary s, RunJob(a.job, options));
  std::cout << "job done: resumed from " << s.restored_from;
  if (s.restored_checkpoint > 0) std::cout << " (checkpoint " << s.restored_checkpoint << ")";
  std::cout << ", " << s.recommitted << " re-committed, " << s.already_committed
            << " already committed, " << s.rows_read << " rows read, " << s.checkpoints_completed
            << " checkpoints, " << s.commit_failures << " commit failures, last checkpoint "
            << s.last_checkpoint << "\n";
  return Status::OK();
}

}  // namespace

void AddRunCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<RunArgs>();
  auto* cmd = app->add_subcommand("run", "Run a streaming job described by a YAML file");
  cmd->footer(
      "Reads the job's source, writes the rows through parallel writers and commits a snapshot "
      "per checkpoint; restarted after a crash it resumes at its last checkpoint, exactly once. "
      "SIGINT / SIGTERM stop it with a final checkpoint (docs/streaming.md).");
  cmd->add_option("job", a->job, "Job file (YAML: source, sink, pipeline)")->required();
  cmd->add_flag("--bounded", a->bounded,
                "Consume what the source holds now, take a final checkpoint and exit");
  cmd->add_flag("--check", a->check, "Check the job file and its table, run nothing");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunRun(*a); }); });
}

}  // namespace fjord::cli
