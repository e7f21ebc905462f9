// Rollback (behaviour.md §8.4; Java Paimon 1.2+'s Table#rollbackTo and RollbackHelper): the target
// snapshot becomes the latest; snapshots, long-lived changelogs and tags newer than it are
// deleted; a tag whose snapshot has expired has that snapshot written again (without the log
// offsets, as Java's Tag#trimToSnapshot). Data files,
// manifests, manifest lists and index files of what is discarded stay for orphan clean-up (Java
// 1.0-1.1 deleted them; 1.2+ does not).
//
// Java's order (LATEST hint, newer snapshots, changelogs, tags, then the re-created snapshot)
// leaves a table without any snapshot when it stops between deleting the newer snapshots and
// writing the tagged one. Fjord writes the tagged snapshot first, then the LATEST hint, then
// deletes newer snapshots from the newest down, then newer long-lived changelogs, then the tags of
// newer snapshots, then the EARLIEST hint: stopped anywhere, every file left is readable, and
// running the rollback again finishes it (the result is Java's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

struct RollbackTarget {
  std::optional<int64_t> snapshot_id;
  std::optional<std::string> tag;
  std::optional<int64_t> timestamp_millis;
};

struct RollbackOutcome {
  int64_t snapshot_id = 0;
  bool snapshot_recreated = false;
  std::vector<int64_t> snapshots_deleted;   // descending
  std::vector<int64_t> changelogs_deleted;  // descending
  std::vector<std::string> tags_deleted;    // sorted
  // Consumers (id, next snapshot) whose next snapshot lies beyond the new latest + 1.
  std::vector<std::pair<std::string, int64_t>> consumers_ahead;
};

// Invalid unless exactly one target is set; NotFound for a missing tag, a snapshot that neither
// exists nor is tagged, or a time before every snapshot.
Result<RollbackOutcome> Rollback(const FileStoreTable& table, const RollbackTarget& target);

}  // namespace fjord
