// Rollback of a table to a snapshot, a tag or a point in time (Java's rollback_to,
// rollback_to_timestamp; behaviour.md §8.4), as Java Paimon 1.2+ does it: the target becomes the
// latest snapshot; newer snapshots, newer long-lived changelogs and tags of newer snapshots are
// deleted; rolling back to a tag whose snapshot has expired writes that snapshot again. Data files,
// manifests and index files of the discarded snapshots are left to orphan clean-up
// (fjord/orphan_files.h), as Java 1.2+ leaves them. docs/maintenance.md says more.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/consumers.h"
#include "fjord/result.h"

namespace fjord {

class Table;

// Exactly one of the three.
struct RollbackOptions {
  std::optional<int64_t> snapshot_id;  // a snapshot, or the snapshot of a tag when it expired
  std::optional<std::string> tag;
  // The latest snapshot committed at or before this time (epoch milliseconds).
  std::optional<int64_t> timestamp_millis;
};

struct RollbackResult {
  int64_t snapshot_id = 0;                  // the latest snapshot now
  bool snapshot_recreated = false;          // written again from the tag
  std::vector<int64_t> snapshots_deleted;   // descending
  std::vector<int64_t> changelogs_deleted;  // long-lived changelogs, descending
  std::vector<std::string> tags_deleted;    // sorted
  // Consumers whose next snapshot lies beyond the new latest + 1: a streaming reader with such a
  // consumer would wait for that id and skip what is committed before it (Java leaves them too);
  // reset them with ResetConsumer.
  std::vector<ConsumerEntry> consumers_ahead;
};

// Invalid, with nothing changed, unless exactly one target is given; NotFound for a missing tag,
// a snapshot that neither exists nor is tagged ("Rollback snapshot 'N' doesn't exist."), or a
// time before every snapshot. A crash part-way leaves every remaining snapshot and tag readable,
// and running the same rollback again finishes it.
Result<RollbackResult> RollbackTable(const Table& table, const RollbackOptions& options);

}  // namespace fjord
