// Orphan file clean-up (Java's `remove_orphan_files` procedure, behaviour.md §8.5): deletes the
// files under a table's directory that no snapshot, tag or long-lived changelog reaches and that
// are older than a time, including stray temporary files, then the emptied data directories
// (docs/maintenance.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"

namespace fjord {

class Table;

struct OrphanFilesOptions {
  // Only files modified before this time (milliseconds since the epoch) are candidates; it must
  // lie in the past. Default (unset): now minus one day, as Java's.
  std::optional<int64_t> older_than_millis;
  // List what would be deleted, delete nothing.
  bool dry_run = false;
};

struct OrphanFilesResult {
  struct File {
    std::string path;
    int64_t size = 0;
    int64_t mtime_millis = 0;
  };
  std::vector<File> files;               // deleted (or that would be), sorted by path
  int64_t bytes = 0;                     // their total size
  std::vector<std::string> directories;  // empty directories deleted
};

// Invalid when the time is not in the past; an error, with none of the unused files deleted,
// when a snapshot, tag, changelog, manifest list or manifest cannot be read (a missing one
// counts as absent, as Java's); NotImplemented for a table with branches.
Result<OrphanFilesResult> RemoveOrphanFiles(const Table& table, const OrphanFilesOptions& options);

}  // namespace fjord
