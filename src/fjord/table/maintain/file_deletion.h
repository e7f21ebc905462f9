// Deleting the files of expired snapshots and long-lived changelogs (behaviour.md §8.3; Java's
// FileDeletionBase, SnapshotDeletion and ChangelogDeletion), shared by snapshot and changelog
// expiration. What may be deleted is decided from manifests alone: a data file with a DELETE
// entry (and no later ADD in the same delta: upgraded files keep their name), the ADD files of a
// changelog manifest list, manifests and index files outside a skipping set built from what is
// kept.
//
// Errors: a manifest list that is gone counts as empty (an interrupted run deleted it after its
// manifests); a manifest that is gone cancels the data files of that one list (Java's rule; the
// interrupted run deleted them before it). Every other read or delete error stops the run with
// nothing more deleted, so that a re-run finishes the job.
//
// Dry run: nothing is deleted, every file that would be is recorded with its size.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

struct DeletedFile {
  std::string path;
  int64_t size = -1;  // known in dry runs; -1 otherwise
};

// The identity a tag's file set is looked up by: (partition, bucket, file name).
struct DataFileKey {
  std::string partition;
  int32_t bucket = 0;
  std::string file_name;
  auto operator<=>(const DataFileKey&) const = default;
};

using DataFileSkipper = std::function<bool(const ManifestEntry&)>;

class FileDeletion {
 public:
  FileDeletion(const FileStoreTable& table, bool clean_empty_directories, bool dry_run);

  // Files of the tag nearest below `id` skip deletion (Java's createDataFileSkipperForTags; the
  // tag's merged files are cached until another tag is asked for). An error reading the tag's
  // manifests is returned: the caller skips that snapshot's data files.
  Result<DataFileSkipper> SkipperForTags(const std::vector<Snapshot>& tags, int64_t id);

  // The data files with DELETE entries in the manifests of `manifest_list` not re-added there,
  // and their extra files, unless `skip` says so.
  Status CleanUnusedDataFiles(const std::string& manifest_list, const DataFileSkipper& skip);
  // Every ADD file of the manifests of `manifest_list` (a changelog manifest list).
  Status DeleteAddedDataFiles(const std::string& manifest_list);

  // Manifest lists, manifests, index manifests and index files, statistics files of `snapshots`.
  // `tolerate_missing_lists`: a missing manifest list or index manifest is left out (changelog
  // deletion, whose snapshots may have lost them to snapshot expiration) instead of an error.
  Result<std::set<std::string>> ManifestSkippingSet(const std::vector<Snapshot>& snapshots,
                                                    bool tolerate_missing_lists);
  // The manifests of `list` not in `skip` (added to it), then `list` itself unless skipped.
  Status CleanUnusedManifestList(const std::string& list, std::set<std::string>* skip);
  // The index files and the index manifest of `snapshot` not in `skip`.
  Status CleanUnusedIndexManifest(const Snapshot& snapshot, const std::set<std::string>& skip);
  Status CleanUnusedStatistics(const Snapshot& snapshot, const std::set<std::string>& skip);

  // With snapshot.clean-empty-directories: the bucket directories that lost files, then their
  // partition directories, deepest first, when empty.
  Status CleanEmptyDirectories();

  Result<bool> ManifestListExists(const std::string& list);
  // Deletes (or, in a dry run, records) one file.
  Status Delete(const std::string& path);

  const std::vector<DeletedFile>& deleted() const { return deleted_; }
  std::vector<DeletedFile> TakeDeleted() { return std::move(deleted_); }
  const FileStoreTable& table() const { return table_; }

 private:
  Result<std::string> DataFilePath(const ManifestEntry& e);
  Result<std::string> BucketDir(const std::string& partition, int32_t bucket);
  // NotFound of the list counts as empty.
  Result<std::vector<ManifestFileMeta>> TryReadManifestList(const std::string& list);
  Result<std::vector<ManifestEntry>> ReadManifest(const ManifestFileMeta& m);

  const FileStoreTable& table_;
  bool clean_empty_directories_;
  bool dry_run_;
  std::string manifest_format_;
  std::map<std::pair<std::string, int32_t>, std::string> bucket_dirs_;
  std::map<std::string, std::set<int32_t>> deletion_buckets_;  // partition -> buckets
  std::optional<int64_t> cached_tag_;
  std::set<DataFileKey> cached_tag_files_;
  std::vector<DeletedFile> deleted_;
  std::set<std::string> deleted_set_;
};

}  // namespace fjord
