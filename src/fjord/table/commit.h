// Committing new files: commit messages become manifest entries, a manifest file, base and delta
// manifest lists and an atomically created snapshot (spec/format.md §8.2, behaviour.md §5).
// This is the single-committer path with Java's idempotency rule; conflict detection for
// concurrent compactions and overwrite commits build on it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot.h"
#include "fjord/meta/table_schema.h"

namespace fjord {

// What a writer hands the committer for one (partition, bucket).
struct CommitMessage {
  std::string partition;  // stored BinaryRow of the partition values
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  std::vector<DataFileMeta> new_files;
  std::vector<DataFileMeta> deleted_files;
  // Compaction of this (partition, bucket): files it replaced and files it produced (an upgraded
  // file appears in both, at its old and its new level). Committed as a COMPACT snapshot after
  // the APPEND snapshot of new_files.
  std::vector<DataFileMeta> compact_before;
  std::vector<DataFileMeta> compact_after;
};

class FileStoreCommit {
 public:
  FileStoreCommit(std::shared_ptr<FileIO> io, std::string table_root, TableSchema schema,
                  std::string commit_user);

  // Commits `messages` as one snapshot under (commit user, identifier). Returns the new snapshot
  // id, or nullopt when this user already committed this identifier (or a later one): retrying a
  // commit is a no-op. A lost race for the next snapshot id is retried up to
  // `commit.max-retries` times.
  Result<std::optional<int64_t>> Commit(const std::vector<CommitMessage>& messages,
                                        int64_t identifier, CommitKind kind = CommitKind::kAppend);

 private:
  Result<bool> AlreadyCommitted(int64_t identifier) const;
  Result<int64_t> TryCommitOnce(const std::vector<ManifestEntry>& entries, int64_t identifier,
                                CommitKind kind, const std::optional<Snapshot>& latest);
  Result<ManifestFileMeta> WriteManifest(const std::vector<ManifestEntry>& entries);

  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
  std::string commit_user_;
};

}  // namespace fjord
