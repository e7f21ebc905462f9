// Snapshot expiration (behaviour.md §8.2-8.3; Java's ExpireSnapshotsImpl): which snapshots go,
// and the files only they used.
//
// Picking: with latest and earliest the current ids, min = max(latest - retain-max + 1,
// earliest); the end (exclusive) is latest - retain-min + 1, lowered to the smallest consumer's
// next snapshot (unless consumer.changelog-only) and to earliest + snapshot.expire.limit. The
// first snapshot from min on that is younger than time-retained ends the range early.
//
// Deleting [earliest, end), in Java's order: (1) data files deleted by each snapshot in
// (earliest, end] unless the nearest tag below it holds them (an error reading that tag skips the
// snapshot's data files); (2) changelog files of the expired snapshots, unless the changelog is
// decoupled; (3) emptied directories (snapshot.clean-empty-directories); (4) manifest lists,
// manifests, index manifests, index files and statistics not used by snapshot `end` or a tag in
// the range (an error building that set skips this step); (5) each snapshot file (with a
// decoupled changelog, first written as changelog/changelog-<id>), then the EARLIEST hint.
//
// Crash safety: a run interrupted anywhere leaves every snapshot from `end` on whole (nothing it
// uses is deleted) and the snapshots being expired in place, possibly missing files; running
// expiration again deletes what is left. Files an interrupted run could no longer find (a
// manifest list deleted before a crash) are left for orphan clean-up.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/expire_config.h"
#include "fjord/table/maintain/file_deletion.h"

namespace fjord {

struct ExpireReport {
  int64_t expired = 0;                // snapshots (or changelogs) expired
  std::optional<int64_t> begin, end;  // the range [begin, end) expired, when any
  std::vector<DeletedFile> deleted;   // every file deleted (dry run: that would be), in order
};

struct ExpireRunOptions {
  bool dry_run = false;
  std::optional<int64_t> now_millis;  // the clock; nullopt: the system clock
};

// Expires snapshots of `table` as `config` says.
Result<ExpireReport> ExpireSnapshots(const FileStoreTable& table, const ExpireConfig& config,
                                     const ExpireRunOptions& run = {});
// Expires exactly [earliest, end_exclusive) (Java's expireUntil); snapshots that are gone are
// skipped.
Result<ExpireReport> ExpireSnapshotsUntil(const FileStoreTable& table, const ExpireConfig& config,
                                          int64_t earliest, int64_t end_exclusive,
                                          const ExpireRunOptions& run = {});

int64_t NowMillis(const ExpireRunOptions& run);

}  // namespace fjord
