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

// The highest identifier `user` committed (Java's filter-committed rule: an identifier at or
// below it is committed), looking back from the latest snapshot; nullopt when none is found.
Result<std::optional<int64_t>> LatestCommittedIdentifier(const FileStoreTable& table,
                                                         const std::string& user);

// NotFound naming the file and `source` when a file the messages add (data, changelog, index
// files, compaction output) or compact away is missing from the table.
Status CheckFilesExist(const FileStoreTable& table, const CommitMessages& messages,
                       const std::string& source);

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
