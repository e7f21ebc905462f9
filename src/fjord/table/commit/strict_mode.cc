#include "fjord/table/commit/strict_mode.h"

#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {

Status CheckStrictMode(const std::shared_ptr<FileIO>& io, const std::string& table_root,
                       const std::string& format, const std::string& commit_user, int64_t last_safe,
                       int64_t latest, CommitKind kind) {
  constexpr const char* kOption = "commit.strict-mode.last-safe-snapshot";
  TablePaths paths{table_root};
  SnapshotManager snapshots(io, table_root);
  for (int64_t id = last_safe + 1; id <= latest; ++id) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
    if (s.commit_user == commit_user) continue;
    if (s.commit_kind == CommitKind::kCompact || s.commit_kind == CommitKind::kOverwrite) {
      return Status::Conflict("When trying to commit snapshot ", latest + 1, ", commit user ",
                              commit_user, " has found a ", CommitKindName(s.commit_kind),
                              " snapshot (id: ", id, ") by another user ", s.commit_user,
                              ". Giving up committing as ", kOption, " is set.");
    }
    if (s.commit_kind == CommitKind::kAppend && kind == CommitKind::kOverwrite) {
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestFileMeta> delta,
          ReadManifestList(io.get(), paths.ManifestFile(s.delta_manifest_list), format));
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestEntry> entries,
          ReadMergedEntries(io.get(), paths, format, delta, PartitionFilter::All()));
      for (const ManifestEntry& e : entries) {
        if (e.bucket < 0) continue;
        return Status::Conflict("When trying to commit snapshot ", latest + 1, ", commit user ",
                                commit_user, " has found a APPEND snapshot (id: ", id,
                                ") by another user ", s.commit_user,
                                " which committed files to fixed bucket. Giving up committing as ",
                                kOption, " is set.");
      }
    }
  }
  return Status::OK();
}

}  // namespace fjord
