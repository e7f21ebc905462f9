// Rollback to a snapshot, a tag or a time, in the crash-safe order rollback.h describes.

#include "fjord/table/maintain/rollback.h"

#include <algorithm>

#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/consumer.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/maintain/tags.h"

namespace fjord {

namespace {

struct Resolved {
  Snapshot snapshot;
  bool from_tag = false;  // the snapshot file may have to be written again
};

Result<Resolved> FromTag(const FileStoreTable& table, const std::string& name) {
  FJORD_ASSIGN_OR_RAISE(TagEntry tag, LoadTagEntry(table, name));
  return Resolved{std::move(tag.snapshot), true};
}

Result<Resolved> Resolve(const FileStoreTable& table, const RollbackTarget& target) {
  int given =
      (target.snapshot_id ? 1 : 0) + (target.tag ? 1 : 0) + (target.timestamp_millis ? 1 : 0);
  if (given != 1) {
    return Status::Invalid("rollback takes exactly one of a snapshot, a tag or a timestamp (",
                           given, " given)");
  }
  const SnapshotManager& snapshots = table.snapshots();
  if (target.tag) return FromTag(table, *target.tag);
  if (target.timestamp_millis) {
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> s,
                          snapshots.LatestAtOrBefore(*target.timestamp_millis));
    if (!s) {
      return Status::NotFound("no snapshot of ", table.path(), " was committed at or before ",
                              *target.timestamp_millis, " ms");
    }
    return Resolved{std::move(*s), false};
  }
  int64_t id = *target.snapshot_id;
  Result<Snapshot> s = snapshots.Load(id);
  if (s.ok()) return Resolved{std::move(*s), false};
  if (!s.status().IsNotFound()) return s.status();
  // Java: an expired snapshot that a tag still holds is rolled back to as that tag (the first
  // of its tags).
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(table));
  for (TagEntry& t : tags) {
    if (t.snapshot.id == id) return Resolved{std::move(t.snapshot), true};
  }
  return Status::NotFound("Rollback snapshot '", id, "' doesn't exist.");
}

// Deletes the long-lived changelogs newer than `id`, after moving their LATEST hint below them.
Result<std::vector<int64_t>> DeleteNewerChangelogs(const FileStoreTable& table, int64_t id) {
  ChangelogManager changelogs(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, changelogs.ListIds());
  std::vector<int64_t> newer;
  for (int64_t c : ids) {
    if (c > id) newer.push_back(c);
  }
  if (newer.empty()) return newer;
  // Java's hint: the target when older changelogs remain, else -1 (none is known).
  int64_t hint = ids.front() <= id ? id : -1;
  FJORD_RETURN_NOT_OK(table.io()->Overwrite(changelogs.LatestHint(), std::to_string(hint)));
  std::reverse(newer.begin(), newer.end());
  for (int64_t c : newer) FJORD_RETURN_NOT_OK(table.io()->Delete(changelogs.FileOf(c)));
  return newer;
}

}  // namespace

Result<RollbackOutcome> Rollback(const FileStoreTable& table, const RollbackTarget& target) {
  FJORD_ASSIGN_OR_RAISE(Resolved resolved, Resolve(table, target));
  const Snapshot& snapshot = resolved.snapshot;
  const int64_t id = snapshot.id;
  const TablePaths& paths = table.snapshots().paths();
  FileIO* io = table.io().get();
  RollbackOutcome out;
  out.snapshot_id = id;

  // 1. The tagged snapshot, written again when it has expired, before anything is deleted.
  if (resolved.from_tag) {
    // Java's Tag#trimToSnapshot keeps every field but the log offsets.
    Snapshot trimmed = snapshot;
    trimmed.log_offsets.reset();
    Status created = io->CreateIfAbsent(paths.SnapshotFile(id), trimmed.ToJson());
    if (created.ok()) {
      out.snapshot_recreated = true;
    } else if (!created.IsAlreadyExists()) {
      return created.WithContext("writing snapshot ", id, " of the tag again");
    }
  }
  // 2. The LATEST hint, then 3. the newer snapshots, newest first.
  FJORD_RETURN_NOT_OK(io->Overwrite(paths.LatestHint(), std::to_string(id)));
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, table.snapshots().ListIds());
  for (auto it = ids.rbegin(); it != ids.rend() && *it > id; ++it) {
    FJORD_RETURN_NOT_OK(io->Delete(paths.SnapshotFile(*it)));
    out.snapshots_deleted.push_back(*it);
  }
  // 4. Newer long-lived changelogs.
  FJORD_ASSIGN_OR_RAISE(out.changelogs_deleted, DeleteNewerChangelogs(table, id));
  // 5. Tags of newer snapshots (only their files: what they kept is left to orphan clean-up).
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(table));
  for (const TagEntry& t : tags) {
    if (t.snapshot.id <= id) continue;
    FJORD_RETURN_NOT_OK(io->Delete(paths.TagFile(t.name)));
    out.tags_deleted.push_back(t.name);
  }
  // 6. The EARLIEST hint, when it names a snapshot above the target.
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> hint, ReadIdHint(io, paths.EarliestHint()));
  if (hint && *hint > id) {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, table.snapshots().EarliestId());
    FJORD_RETURN_NOT_OK(io->Overwrite(paths.EarliestHint(), std::to_string(earliest.value_or(id))));
  }
  // Consumers waiting beyond the new latest would skip what is committed next.
  ConsumerManager consumers(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(auto all, consumers.List());
  for (const auto& [name, next] : all) {
    if (next > id + 1) out.consumers_ahead.emplace_back(name, next);
  }
  return out;
}

}  // namespace fjord
