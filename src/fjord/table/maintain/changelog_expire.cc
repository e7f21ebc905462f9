#include "fjord/table/maintain/changelog_expire.h"

#include <algorithm>

#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/consumer.h"
#include "fjord/table/maintain/tag_ranges.h"

namespace fjord {

Result<ExpireReport> ExpireChangelogs(const FileStoreTable& table, const ExpireConfig& config,
                                      const ExpireRunOptions& run) {
  FJORD_RETURN_NOT_OK(config.Validate());
  const SnapshotManager& snapshots = table.snapshots();
  ChangelogManager changelogs(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return ExpireReport{};
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest_snapshot, snapshots.EarliestId());
  if (!earliest_snapshot) return ExpireReport{};
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest_changelog, changelogs.LatestId());
  if (!latest_changelog) return ExpireReport{};
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest_changelog, changelogs.EarliestId());
  if (!earliest_changelog) return ExpireReport{};
  int64_t older_than = NowMillis(run) - config.ChangelogTimeRetainMillis();

  int64_t min = std::max(*latest - config.ChangelogRetainMax() + 1, *earliest_changelog);
  int64_t max_exclusive = *latest - config.ChangelogRetainMin() + 1;
  ConsumerManager consumers(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> next, consumers.MinNextSnapshot());
  if (next) max_exclusive = std::min(max_exclusive, *next);
  max_exclusive = std::min(max_exclusive, *earliest_changelog + config.ChangelogMaxDeletes());
  max_exclusive = std::min(max_exclusive, *latest_changelog);  // only what changelog/ holds

  for (int64_t id = min; id <= max_exclusive; ++id) {
    Result<Snapshot> c = changelogs.Load(id);
    if (!c.ok()) {
      if (c.status().IsNotFound()) continue;
      return c.status();
    }
    if (older_than <= c->time_millis) {
      return ExpireChangelogsUntil(table, config, *earliest_changelog, id, run);
    }
  }
  return ExpireChangelogsUntil(table, config, *earliest_changelog, max_exclusive, run);
}

Result<ExpireReport> ExpireChangelogsUntil(const FileStoreTable& table, const ExpireConfig& config,
                                           int64_t earliest, int64_t end_exclusive,
                                           const ExpireRunOptions& run) {
  ExpireReport report;
  if (end_exclusive <= earliest) return report;
  const SnapshotManager& snapshots = table.snapshots();
  ChangelogManager changelogs(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(std::vector<Snapshot> tags, snapshots.TaggedSnapshots());
  FileDeletion deletion(table, config.clean_empty_directories, run.dry_run);

  std::vector<Snapshot> keep = TagsInRange(tags, earliest, end_exclusive);
  FJORD_ASSIGN_OR_RAISE(Snapshot end, changelogs.Load(end_exclusive));
  keep.push_back(std::move(end));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest_snapshot, snapshots.EarliestId());
  if (earliest_snapshot) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(*earliest_snapshot));
    keep.push_back(std::move(s));
  }
  // Unlike snapshot expiration, a failure here stops the run: every step below needs the set.
  FJORD_ASSIGN_OR_RAISE(std::set<std::string> skip_set, deletion.ManifestSkippingSet(keep, true));

  for (int64_t id = earliest; id < end_exclusive; ++id) {
    Result<Snapshot> loaded = changelogs.Load(id);
    if (!loaded.ok()) {
      if (loaded.status().IsNotFound()) continue;
      return loaded.status();
    }
    const Snapshot& c = *loaded;
    Result<DataFileSkipper> skip = deletion.SkipperForTags(tags, id);
    if (!skip.ok()) continue;  // cannot tell what the tag uses: keep this changelog
    if (c.changelog_manifest_list) {
      FJORD_RETURN_NOT_OK(deletion.DeleteAddedDataFiles(*c.changelog_manifest_list));
      FJORD_RETURN_NOT_OK(deletion.CleanUnusedManifestList(*c.changelog_manifest_list, &skip_set));
    } else {
      FJORD_ASSIGN_OR_RAISE(bool delta, deletion.ManifestListExists(c.delta_manifest_list));
      if (delta) FJORD_RETURN_NOT_OK(deletion.CleanUnusedDataFiles(c.delta_manifest_list, *skip));
      if (delta) {
        FJORD_RETURN_NOT_OK(deletion.CleanUnusedManifestList(c.delta_manifest_list, &skip_set));
      }
      FJORD_ASSIGN_OR_RAISE(bool base, deletion.ManifestListExists(c.base_manifest_list));
      if (base) {
        FJORD_RETURN_NOT_OK(deletion.CleanUnusedManifestList(c.base_manifest_list, &skip_set));
      }
    }
    FJORD_RETURN_NOT_OK(deletion.Delete(changelogs.FileOf(id)));
    ++report.expired;
  }
  FJORD_RETURN_NOT_OK(deletion.CleanEmptyDirectories());
  if (!run.dry_run) FJORD_RETURN_NOT_OK(changelogs.WriteEarliestHint(end_exclusive));
  report.begin = earliest;
  report.end = end_exclusive;
  report.deleted = deletion.TakeDeleted();
  return report;
}

}  // namespace fjord
