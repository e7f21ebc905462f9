#include "fjord/table/maintain/file_deletion.h"

#include <algorithm>

#include "fjord/meta/partition_path.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {

FileDeletion::FileDeletion(const FileStoreTable& table, bool clean_empty_directories, bool dry_run)
    : table_(table),
      clean_empty_directories_(clean_empty_directories),
      dry_run_(dry_run),
      manifest_format_(table.core_options().manifest_format()) {}

Status FileDeletion::Delete(const std::string& path) {
  if (!deleted_set_.insert(path).second) return Status::OK();
  DeletedFile f{path, -1};
  if (dry_run_) {
    Result<FileStatus> st = table_.io()->GetStatus(path);
    if (!st.ok()) {
      if (st.status().IsNotFound()) return Status::OK();  // gone already: nothing to delete
      return st.status();
    }
    f.size = st->size;
  } else {
    FJORD_RETURN_NOT_OK(table_.io()->Delete(path));
  }
  deleted_.push_back(std::move(f));
  return Status::OK();
}

Result<std::string> FileDeletion::BucketDir(const std::string& partition, int32_t bucket) {
  auto key = std::make_pair(partition, bucket);
  auto it = bucket_dirs_.find(key);
  if (it != bucket_dirs_.end()) return it->second;
  FJORD_ASSIGN_OR_RAISE(std::string dir, BucketPath(table_.path(), table_.schema(),
                                                    table_.core_options(), partition, bucket));
  bucket_dirs_.emplace(key, dir);
  return dir;
}

Result<std::string> FileDeletion::DataFilePath(const ManifestEntry& e) {
  if (e.file.external_path) return *e.file.external_path;
  FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(e.partition, e.bucket));
  return JoinPath(dir, e.file.file_name);
}

Result<std::vector<ManifestFileMeta>> FileDeletion::TryReadManifestList(const std::string& list) {
  Result<std::vector<ManifestFileMeta>> metas = ReadManifestList(
      table_.io().get(), table_.snapshots().paths().ManifestFile(list), manifest_format_);
  if (!metas.ok() && metas.status().IsNotFound()) return std::vector<ManifestFileMeta>();
  return metas;
}

Result<std::vector<ManifestEntry>> FileDeletion::ReadManifest(const ManifestFileMeta& m) {
  return ReadManifestFile(table_.io().get(), table_.snapshots().paths().ManifestFile(m.file_name),
                          manifest_format_);
}

Result<bool> FileDeletion::ManifestListExists(const std::string& list) {
  return table_.io()->Exists(table_.snapshots().paths().ManifestFile(list));
}

Result<DataFileSkipper> FileDeletion::SkipperForTags(const std::vector<Snapshot>& tags,
                                                     int64_t id) {
  // The nearest tag strictly below `id`.
  auto it = std::lower_bound(tags.begin(), tags.end(), id,
                             [](const Snapshot& s, int64_t v) { return s.id < v; });
  if (it == tags.begin()) return DataFileSkipper([](const ManifestEntry&) { return false; });
  const Snapshot& tag = *std::prev(it);
  if (cached_tag_ != tag.id) {
    cached_tag_.reset();
    cached_tag_files_.clear();
    std::vector<ManifestFileMeta> manifests;
    for (const std::string* list : {&tag.base_manifest_list, &tag.delta_manifest_list}) {
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestFileMeta> metas,
          ReadManifestList(table_.io().get(), table_.snapshots().paths().ManifestFile(*list),
                           manifest_format_));
      manifests.insert(manifests.end(), metas.begin(), metas.end());
    }
    EntryMerger merger;
    for (const ManifestFileMeta& m : manifests) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, ReadManifest(m));
      FJORD_RETURN_NOT_OK(merger.AddAll(std::move(entries), m.file_name));
    }
    for (ManifestEntry& e : merger.Take()) {
      cached_tag_files_.insert(DataFileKey{std::move(e.partition), e.bucket, e.file.file_name});
    }
    cached_tag_ = tag.id;
  }
  return DataFileSkipper([this](const ManifestEntry& e) {
    return cached_tag_files_.count(DataFileKey{e.partition, e.bucket, e.file.file_name}) > 0;
  });
}

Status FileDeletion::CleanUnusedDataFiles(const std::string& manifest_list,
                                          const DataFileSkipper& skip) {
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> manifests,
                        TryReadManifestList(manifest_list));
  // path -> (entry, extra file paths). A DELETE is only a candidate: an ADD of the same path
  // in the same delta (an upgrade to another level) keeps the file.
  std::map<std::string, std::pair<ManifestEntry, std::vector<std::string>>> to_delete;
  for (const ManifestFileMeta& m : manifests) {
    Result<std::vector<ManifestEntry>> entries = ReadManifest(m);
    if (!entries.ok()) {
      // Gone: an interrupted run deleted this list's files before its manifests.
      if (entries.status().IsNotFound()) return Status::OK();
      return entries.status();
    }
    for (ManifestEntry& e : *entries) {
      FJORD_ASSIGN_OR_RAISE(std::string path, DataFilePath(e));
      if (e.kind == FileKind::kAdd) {
        to_delete.erase(path);
        continue;
      }
      std::vector<std::string> extra;
      std::string dir = ParentPath(path);
      for (const std::string& f : e.file.extra_files) extra.push_back(JoinPath(dir, f));
      to_delete[path] = {std::move(e), std::move(extra)};
    }
  }
  for (auto& [path, item] : to_delete) {
    if (skip(item.first)) continue;
    FJORD_RETURN_NOT_OK(Delete(path));
    for (const std::string& f : item.second) FJORD_RETURN_NOT_OK(Delete(f));
    deletion_buckets_[item.first.partition].insert(item.first.bucket);
  }
  return Status::OK();
}

Status FileDeletion::DeleteAddedDataFiles(const std::string& manifest_list) {
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> manifests,
                        TryReadManifestList(manifest_list));
  for (const ManifestFileMeta& m : manifests) {
    Result<std::vector<ManifestEntry>> entries = ReadManifest(m);
    if (!entries.ok()) {
      if (entries.status().IsNotFound()) continue;  // deleted by an interrupted run
      return entries.status();
    }
    for (const ManifestEntry& e : *entries) {
      if (e.kind != FileKind::kAdd) continue;
      FJORD_ASSIGN_OR_RAISE(std::string path, DataFilePath(e));
      FJORD_RETURN_NOT_OK(Delete(path));
      deletion_buckets_[e.partition].insert(e.bucket);
    }
  }
  return Status::OK();
}

Result<std::set<std::string>> FileDeletion::ManifestSkippingSet(
    const std::vector<Snapshot>& snapshots, bool tolerate_missing_lists) {
  std::set<std::string> skip;
  const TablePaths& paths = table_.snapshots().paths();
  for (const Snapshot& s : snapshots) {
    for (const std::string* list : {&s.base_manifest_list, &s.delta_manifest_list}) {
      if (tolerate_missing_lists) {
        FJORD_ASSIGN_OR_RAISE(bool exists, ManifestListExists(*list));
        if (!exists) continue;
      }
      skip.insert(*list);
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestFileMeta> metas,
          ReadManifestList(table_.io().get(), paths.ManifestFile(*list), manifest_format_));
      for (const ManifestFileMeta& m : metas) skip.insert(m.file_name);
    }
    if (s.index_manifest) {
      bool read = true;
      if (tolerate_missing_lists) {
        FJORD_ASSIGN_OR_RAISE(read, table_.io()->Exists(paths.ManifestFile(*s.index_manifest)));
      }
      if (read) {
        skip.insert(*s.index_manifest);
        FJORD_ASSIGN_OR_RAISE(
            std::vector<IndexManifestEntry> index,
            ReadIndexManifest(table_.io().get(), paths.ManifestFile(*s.index_manifest),
                              manifest_format_));
        for (const IndexManifestEntry& e : index) skip.insert(e.file_name);
      }
    }
    if (s.statistics) skip.insert(*s.statistics);
  }
  return skip;
}

Status FileDeletion::CleanUnusedManifestList(const std::string& list, std::set<std::string>* skip) {
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> manifests, TryReadManifestList(list));
  const TablePaths& paths = table_.snapshots().paths();
  // The manifests first, the list last: a run interrupted in between finds the list again.
  for (const ManifestFileMeta& m : manifests) {
    if (skip->insert(m.file_name).second)
      FJORD_RETURN_NOT_OK(Delete(paths.ManifestFile(m.file_name)));
  }
  if (skip->count(list) == 0) FJORD_RETURN_NOT_OK(Delete(paths.ManifestFile(list)));
  return Status::OK();
}

Status FileDeletion::CleanUnusedIndexManifest(const Snapshot& snapshot,
                                              const std::set<std::string>& skip) {
  if (!snapshot.index_manifest) return Status::OK();
  const TablePaths& paths = table_.snapshots().paths();
  Result<std::vector<IndexManifestEntry>> index = ReadIndexManifest(
      table_.io().get(), paths.ManifestFile(*snapshot.index_manifest), manifest_format_);
  if (!index.ok()) {
    if (index.status().IsNotFound()) return Status::OK();  // deleted for another snapshot
    return index.status();
  }
  for (const IndexManifestEntry& e : *index) {
    if (skip.count(e.file_name)) continue;
    FJORD_RETURN_NOT_OK(Delete(e.external_path ? *e.external_path : paths.IndexFile(e.file_name)));
  }
  if (!skip.count(*snapshot.index_manifest)) {
    FJORD_RETURN_NOT_OK(Delete(paths.ManifestFile(*snapshot.index_manifest)));
  }
  return Status::OK();
}

Status FileDeletion::CleanUnusedStatistics(const Snapshot& snapshot,
                                           const std::set<std::string>& skip) {
  if (!snapshot.statistics || skip.count(*snapshot.statistics)) return Status::OK();
  return Delete(table_.path() + "/statistics/" + *snapshot.statistics);
}

Status FileDeletion::CleanEmptyDirectories() {
  if (!clean_empty_directories_ || deletion_buckets_.empty() || dry_run_) {
    deletion_buckets_.clear();
    return Status::OK();
  }
  size_t levels = table_.schema().partition_keys.size();
  // depth (0 = first partition level) -> directories
  std::map<size_t, std::set<std::string>, std::greater<>> parents;
  for (const auto& [partition, buckets] : deletion_buckets_) {
    std::string partition_dir;
    for (int32_t bucket : buckets) {
      FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(partition, bucket));
      FJORD_RETURN_NOT_OK(table_.io()->DeleteEmptyDir(dir).status());
      partition_dir = ParentPath(dir);
    }
    if (levels == 0) continue;
    FJORD_ASSIGN_OR_RAISE(bool gone, table_.io()->DeleteEmptyDir(partition_dir));
    if (!gone) continue;
    std::string dir = partition_dir;
    for (size_t depth = levels - 1; depth-- > 0;) {
      dir = ParentPath(dir);
      parents[depth].insert(dir);
    }
  }
  for (const auto& [depth, dirs] : parents) {
    for (const std::string& dir : dirs)
      FJORD_RETURN_NOT_OK(table_.io()->DeleteEmptyDir(dir).status());
  }
  deletion_buckets_.clear();
  return Status::OK();
}

}  // namespace fjord
