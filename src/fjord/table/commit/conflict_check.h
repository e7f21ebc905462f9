// Conflict detection for commits that rewrite or remove files (spec/format.md §8.3,
// behaviour.md §5.4, Java's ConflictDetection): run for COMPACT and OVERWRITE snapshots (an
// APPEND that deletes files is committed as OVERWRITE). Plain appends are never checked: they
// cannot conflict with each other. A conflict is not retried; the committer gives up with
// Status::Conflict, as Java fails the job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot.h"
#include "fjord/schema.h"

namespace fjord {

struct ConflictContext {
  std::string commit_user;       // who is committing
  std::string base_commit_user;  // who made the latest snapshot
  int64_t base_snapshot_id = 0;  // the latest snapshot the check ran against
};

// `base`: the live entries of the partitions this commit touches, in the latest snapshot (what
// ReadMergedEntries returns); `delta`: this commit's entries. Checks, in Java's order:
//  1. total buckets: within a partition every entry with total buckets > 0 agrees (not for
//     OVERWRITE, which may change the bucket count);
//  2. the delta alone folds cleanly (no file added twice, none deleted then re-added);
//  3. base + delta fold cleanly and leave no DELETE: every file the commit deletes is still live
//     ("File deletion conflicts detected");
//  4. primary-key tables: in every (partition, bucket, level >= 1) the files' key ranges do not
//     overlap ("LSM conflicts detected").
// Conflict errors name the file(s), partition and bucket, and both commit users. `options` are
// the schema's.
Status CheckConflicts(const std::vector<ManifestEntry>& base,
                      const std::vector<ManifestEntry>& delta, CommitKind kind,
                      const TableSchema& schema, const CoreOptions& options,
                      const ConflictContext& context);

}  // namespace fjord
