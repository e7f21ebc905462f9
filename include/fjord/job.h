// Streaming jobs (docs/streaming.md): `fjord run JOB.yaml` reads a source, routes its rows by
// (partition, bucket) to parallel writers, takes periodic checkpoints that drive the table's
// two-phase commit (TableWrite::PrepareCommit, then TableCommit::Commit with identifier = the
// checkpoint id) and, after any crash, resumes exactly where the last completed checkpoint left
// it: no row lost, none twice.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "fjord/result.h"

namespace fjord {

struct JobRunOptions {
  // Consume what the source holds now, take a final checkpoint and return.
  bool bounded = false;
  // Set (e.g. by a SIGINT / SIGTERM handler) to stop with a final checkpoint.
  const std::atomic<bool>* stop = nullptr;
  // Progress lines (restores, checkpoints); null: none.
  std::ostream* log = nullptr;
  // A terminal: one status line rewritten twice a second (rows, checkpoint, snapshot), instead of
  // a line per checkpoint in `log`.
  std::ostream* progress = nullptr;
};

struct JobRunSummary {
  // Where the job resumed: "fresh", "state-dir" (its latest checkpoint) or "table" (the source
  // position in the properties of the job's latest snapshot, the state directory being empty).
  std::string restored_from;
  int64_t restored_checkpoint = 0;    // 0 when fresh
  int64_t recommitted = 0;            // restored committables that made a snapshot now
  int64_t already_committed = 0;      // restored committables found committed before the crash
  int64_t rows_read = 0;              // from the source, in this run
  int64_t checkpoints_completed = 0;  // in this run
  int64_t commit_failures = 0;        // commits that failed and stayed pending
  int64_t last_checkpoint = 0;        // the id of the last completed checkpoint
};

// Runs the job described by the YAML file at `job_file` until the source ends (bounded), `stop`
// is set, or an error (a bad job file names the file, line and key; a source row that does not
// fit the table names the source file, line and column).
Result<JobRunSummary> RunJob(const std::string& job_file, const JobRunOptions& options);

// Parses and checks the job file (and that its table can be written) without running it.
Status CheckJob(const std::string& job_file);

}  // namespace fjord
