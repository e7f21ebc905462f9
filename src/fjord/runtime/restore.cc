#include "fjord/runtime/restore.h"

#include "fjord/file_io.h"
#include "fjord/meta/hash_index.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"

namespace fjord::runtime {

Result<std::optional<UserCommit>> LatestCommitOfUser(const FileStoreTable& table,
                                                     const std::string& user) {
  const SnapshotManager& snapshots = table.snapshots();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return std::optional<UserCommit>();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  for (int64_t id = *latest; earliest && id >= *earliest; --id) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
    if (s.commit_user == user) {
      return std::optional<UserCommit>(
          UserCommit{s.commit_identifier, s.commit_kind == CommitKind::kCompact});
    }
  }
  return std::optional<UserCommit>();
}

bool HasCompaction(const CommitMessages& messages) {
  for (const CommitMessage& m : messages.messages()) {
    if (!m.compact_before.empty() || !m.compact_after.empty() ||
        !m.compact_changelog_files.empty() || !m.compact_new_index_files.empty() ||
        !m.compact_deleted_index_files.empty()) {
      return true;
    }
  }
  return false;
}

Status CheckFilesExist(const FileStoreTable& table, const CommitMessages& messages,
                       const std::string& source, bool compaction_only) {
  FileIO* io = table.io().get();
  for (const CommitMessage& m : messages.messages()) {
    FJORD_ASSIGN_OR_RAISE(
        std::string bucket_dir,
        BucketPath(table.path(), table.schema(), table.core_options(), m.partition, m.bucket));
    auto check = [&](const std::string& path) -> Status {
      FJORD_ASSIGN_OR_RAISE(bool exists, io->Exists(path));
      if (!exists) {
        return Status::NotFound(source, ": file ", path,
                                " of a checkpointed commit is gone; refusing to commit a snapshot "
                                "that names it (restore from an earlier state or re-ingest)");
      }
      return Status::OK();
    };
    for (const auto* files : {&m.new_files, &m.changelog_files, &m.compact_before, &m.compact_after,
                              &m.compact_changelog_files}) {
      if (compaction_only && (files == &m.new_files || files == &m.changelog_files)) continue;
      for (const DataFileMeta& f : *files) {
        FJORD_RETURN_NOT_OK(
            check(f.external_path ? *f.external_path : bucket_dir + "/" + f.file_name));
      }
    }
    for (const auto* files : {&m.new_index_files, &m.compact_new_index_files}) {
      if (compaction_only && files == &m.new_index_files) continue;
      for (const IndexFileMeta& f : *files) {
        FJORD_RETURN_NOT_OK(check(
            f.external_path ? *f.external_path : table.snapshots().paths().IndexFile(f.file_name)));
      }
    }
  }
  return Status::OK();
}

Result<std::optional<TableResume>> FindResumeInTable(const FileStoreTable& table,
                                                     const std::string& job_name) {
  const SnapshotManager& snapshots = table.snapshots();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return std::optional<TableResume>();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  for (int64_t id = *latest; earliest && id >= *earliest; --id) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
    if (!s.properties) continue;
    auto job = s.properties->find(kPropertyJob);
    if (job == s.properties->end() || job->second != job_name) continue;
    auto position = s.properties->find(kPropertyPosition);
    if (position == s.properties->end()) {
      return Status::Corruption("snapshot ", id, " of job '", job_name, "' has no ",
                                kPropertyPosition, " property");
    }
    TableResume r;
    r.commit_user = s.commit_user;
    r.checkpoint_id = s.commit_identifier;
    r.source_position = position->second;
    r.snapshot_id = id;
    return std::optional<TableResume>(r);
  }
  return std::optional<TableResume>();
}

}  // namespace fjord::runtime
