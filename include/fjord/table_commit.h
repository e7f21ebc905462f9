// Committing commit messages as snapshots (Java Paimon's FileStoreCommit): the second phase of a
// write. A (commit user, identifier) pair is committed at most once, so a committer that retries
// after a crash or an unknown outcome never commits twice. Concurrent committers (threads or
// processes, Fjord or Java) race for the next snapshot id; the loser retries on the new latest
// snapshot with backoff (`commit.max-retries`, `commit.timeout`, ...). docs/storage.md says what
// is guaranteed.
//
// Thread safety: a TableCommit is not thread-safe; give each thread its own (they may commit to
// the same table at the same time).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fjord/partition.h"
#include "fjord/result.h"
#include "fjord/table_write.h"

namespace fjord {

// A fresh random commit user (a UUID), for one-off jobs that need no idempotency across runs.
std::string NewCommitUser();

struct CommitOptions {
  // Options overriding the table's for this committer (e.g. `commit.max-retries`).
  std::map<std::string, std::string> dynamic_options;
  // Whether a commit without files creates no snapshot. nullopt: `snapshot.ignore-empty-commit`,
  // else true. Streaming writers that want a snapshot per checkpoint set false, as Flink does.
  std::optional<bool> ignore_empty_commit;
  // Whether a commit first looks for this user's identifier among the snapshots. Set false only
  // for a user that cannot have committed before (a fresh random UUID): the look-up walks the
  // history when the user has none.
  bool check_committed = true;
  // Whether a retry completes a commit of which only the APPEND snapshot landed: when this
  // user's latest snapshot is the APPEND (or OVERWRITE) of the identifier and the messages
  // compact, the missing COMPACT snapshot is committed. Java counts the identifier as committed
  // (the compaction's output is orphaned), which is right when every writer is rebuilt from the
  // table after a failure; a committer whose writers live on and build on the compaction (the
  // streaming runtime, docs/streaming.md) sets it. Needs `check_committed`.
  bool complete_compaction = false;
};

// What the last call did.
struct CommitResult {
  std::optional<int64_t> snapshot_id;  // the last snapshot created; nullopt when none was
  std::vector<int64_t> snapshots;      // every snapshot created, in order
  bool already_committed = false;      // the (user, identifier) pair was committed before
  int attempts = 0;                    // tries at creating a snapshot (> snapshots: lost races)
};

class TableCommit {
 public:
  virtual ~TableCommit() = default;

  const std::string& commit_user() const { return commit_user_; }

  // Commits `messages` under `identifier`: their new files as one APPEND snapshot (an OVERWRITE
  // when they delete files), then their compactions as one COMPACT snapshot. Nothing to commit,
  // or a pair committed before, creates nothing (`already_committed` tells which). A conflict
  // with a concurrent commit (compactions of the same files, changed bucket count) is
  // Status::Conflict naming partition, bucket and file, and nothing of it is committed; so is
  // giving up after `commit.max-retries` lost races.
  virtual Result<CommitResult> Commit(const CommitMessages& messages, int64_t identifier) = 0;

  // Replaces data with `messages` as one OVERWRITE snapshot:
  //  * `static_partition` nullopt: with `dynamic-partition-overwrite` (default true) on a
  //    partitioned table, the partitions the new rows are in; otherwise the whole table;
  //  * a spec: exactly the partitions matching it (some or all partition columns; empty = the
  //    whole table), whatever `dynamic-partition-overwrite` says; new rows outside them are
  //    Invalid and nothing is committed.
  // Prepare the messages with WriteOptions::for_overwrite. Idempotent as Commit.
  virtual Result<CommitResult> Overwrite(const CommitMessages& messages, int64_t identifier,
                                         const std::optional<PartitionSpec>& static_partition) = 0;
  // Deletes every partition matching one of `partitions` (an OVERWRITE snapshot of nothing).
  virtual Result<CommitResult> DropPartitions(const std::vector<PartitionSpec>& partitions,
                                              int64_t identifier) = 0;
  // Deletes every row of the table.
  virtual Result<CommitResult> Truncate(int64_t identifier) = 0;
  // Gives up `messages` (prepared, never to be committed): deletes the files they add (new data,
  // changelog and index files, a compaction's output), as Java's TableCommit#abort, keeping files
  // a compaction only moved to another level (they are committed). Commits nothing.
  virtual Status Abort(const CommitMessages& messages) = 0;

  // Post-commit maintenance (docs/maintenance.md): after each of the calls above succeeds, unless
  // the table or the committer is `write-only`, the committer expires consumers
  // (`consumer.expiration-time`), snapshots (`snapshot.*`) and long-lived changelogs
  // (`changelog.*`), as Java Paimon's commit does, also when the call created no snapshot. By
  // default this runs inside the call, whose error it then is (the commit itself stays in);
  // with `snapshot.expire.execution-mode = async` it runs on a background thread and its error
  // comes back from the next call or from Close. Close waits for that thread; the destructor
  // does too, dropping the error.
  virtual Status Close() = 0;

  // Properties written into the `properties` map of every snapshot the next calls create (empty:
  // none), e.g. a streaming job's source position (docs/streaming.md).
  virtual void SetSnapshotProperties(std::map<std::string, std::string> properties) = 0;

 protected:
  explicit TableCommit(std::string user) : commit_user_(std::move(user)) {}

 private:
  std::string commit_user_;
};

}  // namespace fjord
