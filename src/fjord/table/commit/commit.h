// Committing files: commit messages become manifest entries, manifest files, base and delta
// manifest lists and an atomically created snapshot (spec/format.md §8, behaviour.md §5), as
// Java Paimon 1.4's FileStoreCommitImpl does:
//  * idempotency: a (commit user, identifier) pair is committed at most once;
//  * concurrency: a lost race for the next snapshot id is retried with exponential backoff and
//    jitter (`commit.min-retry-wait`, `commit.max-retry-wait`, `commit.max-retries`,
//    `commit.timeout`); the base list is rebuilt from the new latest snapshot, the delta
//    manifests already written are reused;
//  * conflicts: COMPACT and OVERWRITE commits (and APPENDs that delete files, which become
//    OVERWRITE) are checked against the latest snapshot (conflict_check.h) and fail with
//    Status::Conflict; appends never conflict with appends; with
//    `commit.strict-mode.last-safe-snapshot` every commit first checks what other users
//    committed since that snapshot (strict_mode.h);
//  * overwrite: static, dynamic (`dynamic-partition-overwrite`) and whole-table overwrite,
//    truncate and drop partition, as OVERWRITE snapshots;
//  * manifest merging (`manifest.merge-min-count`, `manifest.target-file-size`,
//    `manifest.full-compaction-threshold-size`, manifest_merge.h) keeps the number of manifests a
//    snapshot references bounded.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot.h"
#include "fjord/options.h"
#include "fjord/schema.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {

// What a writer hands the committer for one (partition, bucket): Java's CommitMessageImpl with
// its data increment (new and deleted files, changelog files, new and deleted index files) and
// compact increment (the files a compaction replaced and wrote, its changelog and index files).
struct CommitMessage {
  std::string partition;  // stored BinaryRow of the partition values
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  // Data increment.
  std::vector<DataFileMeta> new_files;
  std::vector<DataFileMeta> deleted_files;
  std::vector<DataFileMeta> changelog_files;
  std::vector<IndexFileMeta> new_index_files;
  std::vector<IndexFileMeta> deleted_index_files;
  // Compact increment.
  std::vector<DataFileMeta> compact_before;
  std::vector<DataFileMeta> compact_after;
  std::vector<DataFileMeta> compact_changelog_files;
  std::vector<IndexFileMeta> compact_new_index_files;
  std::vector<IndexFileMeta> compact_deleted_index_files;
};

// What the last call did; for tests, benchmarks and logs.
struct CommitStats {
  std::vector<int64_t> snapshots;  // snapshot ids created, in order
  int attempts = 0;                // tries at creating a snapshot, over all snapshots
  int64_t manifests_merged = 0;    // manifests written by merging base manifests
  bool already_committed = false;  // the (user, identifier) pair was committed before
};

// Not thread-safe: give every thread its own committer (they may share the FileIO and commit to
// the same table concurrently, as may other processes).
class FileStoreCommit {
 public:
  // `dynamic_options` override the table's options for this committer (the dynamic layer, e.g.
  // commit.max-retries for one job or dynamic-partition-overwrite for one overwrite).
  FileStoreCommit(std::shared_ptr<FileIO> io, std::string table_root, TableSchema schema,
                  std::string commit_user, std::map<std::string, std::string> dynamic_options = {});

  // Commits `messages` under (commit user, `identifier`), as Java's commit(): the data
  // increments as one APPEND snapshot (OVERWRITE, with conflict checks, when they delete files),
  // then the compact increments as one COMPACT snapshot (conflict-checked). With `kind` =
  // kCompact everything goes into a single COMPACT snapshot (none if there are no files).
  // Returns the id of the last snapshot created, or nullopt when none was: this user already
  // committed this identifier (or a later one), so a retry is a no-op; or there was nothing to
  // commit and empty commits are ignored. With set_complete_compaction, a retry after only the
  // APPEND snapshot of this identifier landed (this user's latest snapshot) commits the COMPACT
  // snapshot that is missing. A
  // conflict is Status::Conflict and nothing of it is committed; so is giving up after
  // `commit.max-retries` lost races (or `commit.timeout`).
  Result<std::optional<int64_t>> Commit(const std::vector<CommitMessage>& messages,
                                        int64_t identifier, CommitKind kind = CommitKind::kAppend);

  // Overwrites with `messages` (their data increments; a compact increment follows as a COMPACT
  // snapshot), as Java's overwritePartition():
  //  * partitioned table and `dynamic-partition-overwrite` (default true): the partitions the new
  //    files are in are replaced; no new files means nothing is deleted and no snapshot made;
  //  * otherwise the partitions matching `static_partition` (column -> value as in partition
  //    paths, possibly a prefix of the partition columns; `partition.default-name` for NULL) are
  //    replaced, and new files outside them are an error (Invalid); an empty map replaces the
  //    whole table.
  // The OVERWRITE snapshot deletes every live file in scope (buckets >= 0), their index files,
  // then adds the new files (on primary-key tables moved to the highest level when
  // `overwrite-upgrade` allows, as Java does). Same idempotency and return value as Commit.
  Result<std::optional<int64_t>> Overwrite(
      const std::vector<CommitMessage>& messages, int64_t identifier,
      const std::map<std::string, std::string>& static_partition = {});
  // Overwrites exactly `partitions` (stored partition rows; ignored for an unpartitioned table,
  // which is replaced whole) with `messages`, whatever `dynamic-partition-overwrite` says: one
  // OVERWRITE snapshot even when `messages` add nothing. A new file outside them is Invalid.
  // Used by the bucket rescale, which rewrites a chosen set of partitions.
  Result<std::optional<int64_t>> OverwritePartitions(const std::vector<CommitMessage>& messages,
                                                     int64_t identifier,
                                                     std::set<std::string> partitions);
  // Overwrites of nothing: every partition matching one of `partitions`; the whole table.
  Result<std::optional<int64_t>> DropPartitions(
      const std::vector<std::map<std::string, std::string>>& partitions, int64_t identifier);
  Result<std::optional<int64_t>> Truncate(int64_t identifier);

  // Java's ignoreEmptyCommit: when true, a Commit without new or deleted files creates no APPEND
  // snapshot. Default: the option `snapshot.ignore-empty-commit`, else true (batch writes, and a
  // compaction commit is then only its COMPACT snapshot); streaming writers that want a snapshot
  // per checkpoint set false, as Flink does.
  void set_ignore_empty_commit(bool ignore) { ignore_empty_commit_ = ignore; }
  // Whether a commit first looks for this user's identifier among the snapshots (the
  // filter-committed rule; default true). Set false only for a user that cannot have committed
  // before, such as a fresh random UUID: the look-up walks back through every snapshot when the
  // user has none, a cost that grows with the table's history. Java's batch commits skip it too.
  void set_filter_committed(bool filter) { filter_committed_ = filter; }
  // Whether a retry completes a commit of which only the data snapshot landed
  // (CommitOptions::complete_compaction; default false, Java's rule).
  void set_complete_compaction(bool complete) { complete_compaction_ = complete; }
  // Properties written into every snapshot the next calls create (the snapshot's optional
  // `properties` map; empty: none). The streaming runtime records its source position there.
  void set_snapshot_properties(std::map<std::string, std::string> properties) {
    snapshot_properties_ = std::move(properties);
  }
  const CommitStats& last_stats() const { return stats_; }
  const Options& options() const { return options_; }

  // The changes of one snapshot. Public for the helpers in commit.cc only.
  struct Changes {
    std::vector<ManifestEntry> table_files;
    std::vector<ManifestEntry> changelog_files;
    // Index files added and deleted, applied to the latest snapshot's index manifest as Java's
    // index manifest handler does (index_manifest_combine.h).
    std::vector<IndexManifestEntry> index_files;
  };
  using ChangesProvider = std::function<Result<Changes>(const std::optional<Snapshot>& latest)>;

 private:
  struct UserCommit {
    int64_t identifier = 0;
    CommitKind kind = CommitKind::kAppend;
  };
  // The latest snapshot of this commit user still in the table (nullopt also when filtering is
  // off): the filter-committed rule's identifier, and whether it was a COMPACT snapshot.
  Result<std::optional<UserCommit>> LatestOfUser() const;
  Result<bool> AlreadyCommitted(int64_t identifier) const;
  // Creates one snapshot of `kind` from the changes `provide` computes against the latest
  // snapshot, retrying lost races. `fixed` when the changes do not depend on the latest snapshot
  // (then their manifests are written once and reused).
  Result<int64_t> TryCommit(const ChangesProvider& provide, bool fixed, int64_t identifier,
                            CommitKind kind, bool detect_conflicts);
  // Overwrite and OverwritePartitions: `static_scope` replaced by the data increments of
  // `messages` (a new file outside it is Invalid naming `scope_text`); null: the partitions of
  // the new files (dynamic overwrite).
  Result<std::optional<int64_t>> OverwriteIn(const std::vector<CommitMessage>& messages,
                                             int64_t identifier,
                                             const PartitionFilter* static_scope,
                                             const std::string& scope_text);
  // An OVERWRITE snapshot replacing the live files in `scope` and their index files with
  // `new_files` and `new_index`, then a COMPACT snapshot of `compact` if any.
  Result<std::optional<int64_t>> OverwriteScoped(std::vector<ManifestEntry> new_files,
                                                 std::vector<IndexManifestEntry> new_index,
                                                 Changes compact, int64_t identifier,
                                                 const PartitionFilter& scope);

  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
  std::string commit_user_;
  Options options_;
  Result<CoreOptions> core_options_;  // options_, parsed; an error fails every commit
  std::optional<bool> ignore_empty_commit_;
  bool filter_committed_ = true;
  bool complete_compaction_ = false;
  std::map<std::string, std::string> snapshot_properties_;
  // `commit.strict-mode.last-safe-snapshot`: the snapshots after it are checked before each
  // commit (strict_mode.h), then it moves to the latest snapshot checked.
  std::optional<int64_t> strict_safe_snapshot_;
  CommitStats stats_;
};

}  // namespace fjord
