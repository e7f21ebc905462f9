// The durable state of a streaming job in its `state-dir` (docs/streaming.md): one file per
// completed checkpoint, `checkpoints/checkpoint-<id>`, written to a temporary name, synced and
// renamed (so a crash leaves the previous checkpoint or the new one, never half of one), the last
// few kept; `commit-user`, the job's commit user, created once and never replaced; `committed`,
// the last checkpoint id committed to the table.
//
// A checkpoint file holds the checkpoint id, the commit user, the job name, the source position
// at the barrier and every committable not yet known to be committed (its checkpoint id, the
// source position it ends at and, per table of the job, its serialized CommitMessages). Its bytes
// are versioned and end with a CRC-32: a torn, truncated or damaged file is refused naming it,
// never skipped (falling back to an older checkpoint would re-read rows already committed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord::runtime {

struct PendingCommit {
  int64_t checkpoint_id = 0;
  std::string source_position;  // where the source stood at this checkpoint's barrier
  // Per table (its name in the job; "" for the one table of a plain job), the serialized
  // CommitMessages (CommitMessages::Serialize). Tables without anything to commit are left out.
  std::map<std::string, std::string> tables;
};

struct CheckpointState {
  int64_t checkpoint_id = 0;
  std::string commit_user;
  std::string job_name;
  std::string source_position;
  std::vector<PendingCommit> pending;  // ascending checkpoint ids; the last is this checkpoint's
};

std::string EncodeCheckpoint(const CheckpointState& state);
// Corruption naming `source` for anything that is not a whole, undamaged checkpoint.
Result<CheckpointState> DecodeCheckpoint(std::string_view bytes, std::string_view source);

class CheckpointStore {
 public:
  explicit CheckpointStore(std::string state_dir, int retained = 3)
      : dir_(std::move(state_dir)), retained_(retained) {}

  // Creates the directories.
  Status Init() const;
  // The latest checkpoint, or nullopt when there is none. The latest file damaged is an error.
  Result<std::optional<CheckpointState>> LoadLatest() const;
  // Writes `state` atomically and durably, then removes all but the last `retained` checkpoints
  // (and leftover temporary files).
  Status Save(const CheckpointState& state) const;

  // `committed`: the last checkpoint id known committed to the table, written (atomically) after
  // each successful commit. The table's snapshots of the job's commit user say the same as long
  // as one of them is retained; once expiration removed all of them (a job stopped while others
  // kept committing) this file is what keeps a restore from committing the last checkpoint again.
  Status MarkCommitted(int64_t checkpoint_id) const;
  Result<std::optional<int64_t>> LoadCommitted() const;

  // The job's commit user: the one stored, else `fresh` stored now (atomically).
  Result<std::string> CommitUser(const std::string& fresh) const;
  Result<std::optional<std::string>> StoredCommitUser() const;

  std::string CheckpointPath(int64_t id) const;

 private:
  std::string dir_;
  int retained_;
};

}  // namespace fjord::runtime
