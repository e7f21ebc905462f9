// Restoring a streaming job (docs/streaming.md, "Restore"): which of its checkpointed
// committables the table already holds, whether the files of the others still exist, and where a
// job whose state directory was lost resumes from the table alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fjord/result.h"
#include "fjord/table_write.h"

namespace fjord {
class FileStoreTable;
}

namespace fjord::runtime {

// The snapshot properties a job writes with every commit.
inline constexpr const char* kPropertyJob = "fjord.job";
inline constexpr const char* kPropertyPosition = "fjord.source-position";
inline constexpr const char* kPropertyCheckpoint = "fjord.checkpoint";

// The latest snapshot of `user` still in the table, looking back from the latest snapshot.
struct UserCommit {
  // The highest identifier `user` committed (Java's filter-committed rule: an identifier below
  // it is committed).
  int64_t identifier = 0;
  // Whether that snapshot was a COMPACT one. A checkpoint commits an APPEND snapshot, then (if
  // its writers compacted) a COMPACT one: when the latest is not COMPACT, the compaction of
  // checkpoint `identifier` may still be missing, and a re-commit completes it.
  bool compact = false;
};
Result<std::optional<UserCommit>> LatestCommitOfUser(const FileStoreTable& table,
                                                     const std::string& user);

// NotFound naming the file and `source` when a file the messages add (data, changelog, index
// files, compaction output) or compact away is missing from the table. `compaction_only`: only
// the files of their compactions (the rest is committed already).
Status CheckFilesExist(const FileStoreTable& table, const CommitMessages& messages,
                       const std::string& source, bool compaction_only = false);

// Whether the messages hold a compaction (a COMPACT snapshot's worth of changes).
bool HasCompaction(const CommitMessages& messages);

struct TableResume {
  std::string commit_user;
  int64_t checkpoint_id = 0;
  std::string source_position;
  int64_t snapshot_id = 0;
};
// The latest snapshot written by job `job_name` (property kPropertyJob), as a place to resume.
Result<std::optional<TableResume>> FindResumeInTable(const FileStoreTable& table,
                                                     const std::string& job_name);

}  // namespace fjord::runtime
