// Snapshot expiration as a job (Table::ExpireSnapshots; `fjord expire`), the same expiration that
// runs after every commit (table_commit.h, docs/maintenance.md). Unset fields take the table's
// options: snapshot.num-retained.min/max, snapshot.time-retained, snapshot.expire.limit; and as
// after a commit, when changelog.* retention exceeds the snapshot one, the expired snapshots live
// on as long-lived changelogs, which are then expired by the changelog.* retention.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fjord {

struct ExpireOptions {
  std::optional<int32_t> retain_min;  // snapshot.num-retained.min
  std::optional<int32_t> retain_max;  // snapshot.num-retained.max
  // Only snapshots committed before this time (epoch milliseconds) may expire; replaces
  // snapshot.time-retained (Java's expire_snapshots older_than).
  std::optional<int64_t> older_than_millis;
  std::optional<int32_t> max_deletes;  // snapshot.expire.limit
  // List what would be deleted, with sizes, and delete nothing.
  bool dry_run = false;
  // The clock (tests); nullopt: the system clock.
  std::optional<int64_t> now_millis;
};

struct ExpiredFile {
  std::string path;
  int64_t size = -1;  // known in dry runs; -1 otherwise
};

struct ExpireResult {
  int64_t snapshots_expired = 0;
  int64_t changelogs_expired = 0;  // long-lived changelogs (changelog/changelog-<id>)
  std::vector<ExpiredFile> files;  // deleted (dry run: would be), snapshot files included
};

}  // namespace fjord
