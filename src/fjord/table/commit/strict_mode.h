// `commit.strict-mode.last-safe-snapshot` (Java's StrictModeChecker): a committer that read the
// table at a snapshot and must not lose what others commit after it (the rescale job reads a
// partition, then overwrites it) gives up when another user committed something it would
// silently drop.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "fjord/file_io.h"
#include "fjord/meta/snapshot.h"

namespace fjord {

// Checks the snapshots after `last_safe` up to `latest` (inclusive) before `commit_user`
// commits a snapshot of `kind` on top of `latest`: a COMPACT or OVERWRITE snapshot of another
// user, or (when `kind` is OVERWRITE) another user's APPEND snapshot that added or deleted files
// of real buckets (>= 0), is Status::Conflict naming both snapshots and the option. Snapshots of
// `commit_user` are skipped. A snapshot that cannot be read (expired meanwhile) is an error.
Status CheckStrictMode(const std::shared_ptr<FileIO>& io, const std::string& table_root,
                       const std::string& format, const std::string& commit_user, int64_t last_safe,
                       int64_t latest, CommitKind kind);

}  // namespace fjord
