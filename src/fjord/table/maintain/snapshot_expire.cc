#include "fjord/table/maintain/snapshot_expire.h"

#include <algorithm>
#include <chrono>

#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/consumer.h"
#include "fjord/table/maintain/tag_ranges.h"

namespace fjord {

int64_t NowMillis(const ExpireRunOptions& run) {
  if (run.now_millis) return *run.now_millis;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<ExpireReport> ExpireSnapshots(const FileStoreTable& table, const ExpireConfig& config,
                                     const ExpireRunOptions& run) {
  FJORD_RETURN_NOT_OK(config.Validate());
  const SnapshotManager& snapshots = table.snapshots();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return ExpireReport{};
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  if (!earliest) return ExpireReport{};
  // now >= 0, so this cannot overflow even for the "forever" default of a bare config.
  int64_t older_than = NowMillis(run) - config.snapshot_time_retain_millis;

  int64_t min = std::max(*latest - config.snapshot_retain_max + 1, *earliest);
  int64_t max_exclusive = *latest - config.snapshot_retain_min + 1;
  if (!config.consumer_changelog_only) {
    ConsumerManager consumers(table.io(), table.path());
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> next, consumers.MinNextSnapshot());
    if (next) max_exclusive = std::min(max_exclusive, *next);
  }
  max_exclusive = std::min(max_exclusive, *earliest + config.snapshot_max_deletes);

  for (int64_t id = min; id < max_exclusive; ++id) {
    Result<Snapshot> s = snapshots.Load(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;  // expired by another process meanwhile
      return s.status();
    }
    if (older_than <= s->time_millis) {
      return ExpireSnapshotsUntil(table, config, *earliest, id, run);
    }
  }
  return ExpireSnapshotsUntil(table, config, *earliest, max_exclusive, run);
}

Result<ExpireReport> ExpireSnapshotsUntil(const FileStoreTable& table, const ExpireConfig& config,
                                          int64_t earliest, int64_t end_exclusive,
                                          const ExpireRunOptions& run) {
  const SnapshotManager& snapshots = table.snapshots();
  const TablePaths& paths = snapshots.paths();
  const FileStoreTable& t = table;
  ExpireReport report;
  if (end_exclusive <= earliest) {
    // Nothing to expire; write the hint so that the next look finds the earliest directly.
    FJORD_ASSIGN_OR_RAISE(bool hint, t.io()->Exists(paths.EarliestHint()));
    if (!hint && !run.dry_run)
      FJORD_RETURN_NOT_OK(t.io()->Overwrite(paths.EarliestHint(), std::to_string(earliest)));
    return report;
  }

  std::vector<Snapshot> including_end;
  for (int64_t id = earliest; id <= end_exclusive; ++id) {
    Result<Snapshot> s = snapshots.Load(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;
      return s.status();
    }
    including_end.push_back(std::move(*s));
  }
  if (including_end.empty()) return report;
  const int64_t begin = including_end.front().id;
  const bool decoupled = config.ChangelogDecoupled();
  const bool produce_changelog =
      table.core_options().changelog_producer() != ChangelogProducer::kNone;

  FJORD_ASSIGN_OR_RAISE(std::vector<Snapshot> tags, snapshots.TaggedSnapshots());
  FileDeletion deletion(table, config.clean_empty_directories, run.dry_run);

  // 1. Data files deleted by the snapshots in (begin, end]: last used by the one before.
  for (const Snapshot& s : including_end) {
    if (s.id == begin) continue;
    Result<DataFileSkipper> skip = deletion.SkipperForTags(tags, s.id);
    if (!skip.ok()) continue;  // cannot tell what the tag uses: keep this snapshot's files
    DataFileSkipper skipper = *skip;
    if (decoupled && !produce_changelog) {
      // The level-0 files written by APPEND commits are the long-lived changelog: changelog
      // expiration deletes them.
      skipper = [inner = *skip](const ManifestEntry& e) {
        return inner(e) ||
               e.file.file_source.value_or(0) == static_cast<int32_t>(FileSource::kAppend);
      };
    }
    FJORD_RETURN_NOT_OK(deletion.CleanUnusedDataFiles(s.delta_manifest_list, skipper));
  }

  // 2. Changelog files of the expired snapshots (not `end`'s).
  if (!decoupled) {
    for (const Snapshot& s : including_end) {
      if (s.id == end_exclusive || !s.changelog_manifest_list) continue;
      FJORD_RETURN_NOT_OK(deletion.DeleteAddedDataFiles(*s.changelog_manifest_list));
    }
  }

  // 3. Emptied bucket and partition directories.
  FJORD_RETURN_NOT_OK(deletion.CleanEmptyDirectories());

  // 4. Manifests, index files and statistics no longer used.
  if (including_end.back().id != end_exclusive) {  // `end` is gone: stop here
    report.deleted = deletion.TakeDeleted();
    return report;
  }
  std::vector<Snapshot> keep = TagsInRange(tags, begin, end_exclusive);
  keep.push_back(including_end.back());
  Result<std::set<std::string>> skip_set = deletion.ManifestSkippingSet(keep, false);
  if (skip_set.ok()) {
    for (const Snapshot& s : including_end) {
      if (s.id == end_exclusive) continue;
      if (!decoupled || produce_changelog) {
        FJORD_RETURN_NOT_OK(deletion.CleanUnusedManifestList(s.base_manifest_list, &*skip_set));
        FJORD_RETURN_NOT_OK(deletion.CleanUnusedManifestList(s.delta_manifest_list, &*skip_set));
      }
      if (!decoupled && s.changelog_manifest_list) {
        FJORD_RETURN_NOT_OK(
            deletion.CleanUnusedManifestList(*s.changelog_manifest_list, &*skip_set));
      }
      FJORD_RETURN_NOT_OK(deletion.CleanUnusedIndexManifest(s, *skip_set));
      FJORD_RETURN_NOT_OK(deletion.CleanUnusedStatistics(s, *skip_set));
    }
  }

  // 5. The snapshot files (kept as long-lived changelogs when decoupled), then the hint.
  ChangelogManager changelogs(table.io(), table.path());
  for (const Snapshot& s : including_end) {
    if (s.id == end_exclusive) continue;
    if (run.dry_run) {
      FJORD_RETURN_NOT_OK(deletion.Delete(paths.SnapshotFile(s.id)));
      continue;
    }
    if (decoupled) FJORD_RETURN_NOT_OK(changelogs.Commit(s));
    FJORD_RETURN_NOT_OK(deletion.Delete(paths.SnapshotFile(s.id)));
    ++report.expired;
  }
  if (run.dry_run) {
    report.expired = static_cast<int64_t>(including_end.size()) - 1;
  } else {
    FJORD_RETURN_NOT_OK(t.io()->Overwrite(paths.EarliestHint(), std::to_string(end_exclusive)));
  }
  report.begin = begin;
  report.end = end_exclusive;
  report.deleted = deletion.TakeDeleted();
  return report;
}

}  // namespace fjord
