#include "fjord/table/maintain/orphan_files.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unordered_set>

#include <unistd.h>

#include <cerrno>

#include "fjord/io/arrow_file_io.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot.h"
#include "fjord/meta/table_paths.h"

namespace fjord {

namespace {

constexpr int kReadAttempts = 3;  // Java's READ_FILE_RETRY_NUM
constexpr std::chrono::milliseconds kRetryPause{5};

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string StripSlash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Deletes `dir` when it holds nothing: true when deleted. On a local disk one rmdir, so a file
// created meanwhile keeps the directory (as Java's delete(dir, false)); elsewhere a listing, then
// the delete (object stores have no directories of their own).
Result<bool> DeleteDirIfEmpty(FileIO* io, const std::string& dir) {
  if (!io->IsObjectStore() && dynamic_cast<ArrowFileIO*>(io) != nullptr) {
    if (::rmdir(dir.c_str()) == 0) return true;
    if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOENT) return false;
    return Status::IOError("rmdir ", dir, ": ", std::strerror(errno));
  }
  FJORD_ASSIGN_OR_RAISE(bool exists, io->Exists(dir));
  if (!exists) return false;
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> children, io->List(dir));
  if (!children.empty()) return false;
  FJORD_RETURN_NOT_OK(io->DeleteDirRecursive(dir));
  return true;
}

class OrphanClean {
 public:
  OrphanClean(const FileStoreTable& table, int64_t older_than, bool dry_run)
      : io_(table.io().get()),
        root_(StripSlash(table.path())),
        paths_{root_},
        format_(table.core_options().manifest_format()),
        partition_levels_(static_cast<int>(table.schema().partition_keys.size())),
        older_than_(older_than),
        dry_run_(dry_run) {}

  Result<OrphanCleanResult> Run() {
    FJORD_RETURN_NOT_OK(RefuseBranches());
    FJORD_RETURN_NOT_OK(CleanMetadataDir(paths_.SnapshotDir(), "snapshot-"));
    FJORD_RETURN_NOT_OK(CleanMetadataDir(root_ + "/changelog", "changelog-"));

    std::map<std::string, OrphanFile> candidates;  // by file name
    FJORD_RETURN_NOT_OK(CollectCandidates(&candidates));
    if (!candidates.empty()) {
      FJORD_ASSIGN_OR_RAISE(std::unordered_set<std::string> used, UsedNames(candidates));
      std::set<std::string> bucket_dirs;
      for (auto& [name, file] : candidates) {
        if (used.count(name)) continue;
        std::string parent = ParentPath(file.path);
        if (StartsWith(BaseName(parent), "bucket-")) {
          bucket_dirs.insert(parent);
        }
        FJORD_RETURN_NOT_OK(DeleteFile(file));
      }
      FJORD_RETURN_NOT_OK(CleanDataDirs(bucket_dirs));
    }
    std::sort(result_.files.begin(), result_.files.end(),
              [](const OrphanFile& a, const OrphanFile& b) { return a.path < b.path; });
    return std::move(result_);
  }

 private:
  bool OldEnough(const FileStatus& st) const { return st.mtime_millis < older_than_; }

  // Java unions the used files of every branch; Fjord has none, so it must not take a branch's
  // files for orphans.
  Status RefuseBranches() {
    FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> entries, io_->List(root_ + "/branch"));
    for (const FileStatus& st : entries) {
      if (st.is_dir && StartsWith(BaseName(st.path), "branch-")) {
        return Status::NotImplemented(
            "orphan clean-up of a table with branches is not implemented (Fjord does not "
            "implement branches, and the files of ",
            st.path, " would be taken for orphans); nothing deleted");
      }
    }
    return Status::OK();
  }

  // Java's tryBestListingDirs: a directory that cannot be listed gives no candidates.
  std::vector<FileStatus> ListBestEffort(const std::string& dir) {
    for (int attempt = 0; attempt < kReadAttempts; ++attempt) {
      Result<std::vector<FileStatus>> listed = io_->List(dir);
      if (listed.ok()) return std::move(listed).value();
      if (listed.status().IsNotFound()) break;
      std::this_thread::sleep_for(kRetryPause);
    }
    return {};
  }

  Status DeleteFile(const OrphanFile& file) {
    result_.bytes += file.size;
    result_.files.push_back(file);
    if (dry_run_) return Status::OK();
    return io_->Delete(file.path);
  }

  // Files of snapshot/ or changelog/ that are neither `prefix`* nor a hint.
  Status CleanMetadataDir(const std::string& dir, std::string_view prefix) {
    for (const FileStatus& st : ListBestEffort(dir)) {
      std::string name = BaseName(st.path);
      if (st.is_dir || !OldEnough(st)) continue;
      if (StartsWith(name, prefix) || name == "EARLIEST" || name == "LATEST") continue;
      FJORD_RETURN_NOT_OK(DeleteFile(OrphanFile{st.path, st.size, st.mtime_millis}));
    }
    return Status::OK();
  }

  // Java's listFileDirs: bucket directories `levels` partition levels below `dir`; a partition
  // directory without any is itself listed (so that an empty one is cleaned).
  void DataDirs(const std::string& dir, int levels, std::vector<std::string>* out) {
    for (const FileStatus& st : ListBestEffort(dir)) {
      if (!st.is_dir) continue;
      std::string name = BaseName(st.path);
      if (levels == 0) {
        if (StartsWith(name, "bucket-")) out->push_back(st.path);
        continue;
      }
      if (name.find('=') == std::string::npos) continue;
      size_t before = out->size();
      DataDirs(st.path, levels - 1, out);
      if (out->size() == before) out->push_back(st.path);
    }
  }

  Status CollectCandidates(std::map<std::string, OrphanFile>* candidates) {
    std::vector<std::string> dirs = {paths_.ManifestDir(), paths_.IndexDir(),
                                     root_ + "/statistics"};
    DataDirs(root_, partition_levels_, &dirs);
    std::vector<std::string> empty_dirs;
    for (const std::string& dir : dirs) {
      std::vector<FileStatus> files = ListBestEffort(dir);
      if (files.empty()) {
        Result<FileStatus> st = io_->GetStatus(dir);
        if (st.ok() && st->is_dir && OldEnough(*st)) empty_dirs.push_back(dir);
        continue;
      }
      for (const FileStatus& f : files) {
        if (f.is_dir || !OldEnough(f)) continue;
        (*candidates)[BaseName(f.path)] = OrphanFile{f.path, f.size, f.mtime_millis};
      }
    }
    if (dry_run_) return Status::OK();
    // Empty directories, then their emptied parents, never the table directory.
    while (!empty_dirs.empty()) {
      std::set<std::string> parents;
      for (const std::string& dir : empty_dirs) {
        if (StripSlash(dir) == root_) continue;
        Result<bool> deleted = DeleteDirIfEmpty(io_, dir);
        if (deleted.ok() && *deleted) {
          result_.directories.push_back(dir);
          parents.insert(ParentPath(dir));
        }
      }
      empty_dirs.assign(parents.begin(), parents.end());
    }
    return Status::OK();
  }

  // Reads with Java's retryReadingFiles: nullopt when the file is missing, the last error after
  // three failed attempts.
  template <typename T, typename Read>
  Result<std::optional<T>> ReadRetrying(const std::string& path, Read read) {
    Status last;
    for (int attempt = 0; attempt < kReadAttempts; ++attempt) {
      Result<T> r = read();
      if (r.ok()) return std::optional<T>(std::move(r).value());
      if (r.status().IsNotFound()) return std::optional<T>();
      Result<bool> exists = io_->Exists(path);
      if (exists.ok() && !*exists) return std::optional<T>();
      last = r.status();
      std::this_thread::sleep_for(kRetryPause);
    }
    return last.WithContext("orphan clean-up aborted, nothing deleted: cannot read " + path);
  }

  Result<std::optional<Snapshot>> ReadSnapshotFile(const std::string& path) {
    FJORD_ASSIGN_OR_RAISE(std::optional<std::string> text,
                          ReadRetrying<std::string>(path, [&] { return io_->ReadFile(path); }));
    if (!text) return std::optional<Snapshot>();
    FJORD_ASSIGN_OR_RAISE(Snapshot s, Snapshot::FromJson(*text, path));
    return std::optional<Snapshot>(std::move(s));
  }

  // Every snapshot, tag and long-lived changelog (Java's safelyGetAllSnapshots).
  Result<std::vector<Snapshot>> AllSnapshots() {
    std::vector<std::string> files;
    auto list = [&](const std::string& dir, std::string_view prefix, bool numbered) -> Status {
      FJORD_ASSIGN_OR_RAISE(
          std::optional<std::vector<FileStatus>> entries,
          ReadRetrying<std::vector<FileStatus>>(dir, [&] { return io_->List(dir); }));
      if (!entries) return Status::OK();
      for (const FileStatus& st : *entries) {
        std::string name = BaseName(st.path);
        if (st.is_dir || !StartsWith(name, prefix)) continue;
        if (numbered && !AllDigits(std::string_view(name).substr(prefix.size()))) continue;
        files.push_back(st.path);
      }
      return Status::OK();
    };
    FJORD_RETURN_NOT_OK(list(paths_.SnapshotDir(), "snapshot-", true));
    FJORD_RETURN_NOT_OK(list(paths_.TagDir(), "tag-", false));
    FJORD_RETURN_NOT_OK(list(root_ + "/changelog", "changelog-", true));
    std::vector<Snapshot> out;
    for (const std::string& file : files) {
      FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> s, ReadSnapshotFile(file));
      if (s) out.push_back(std::move(*s));
    }
    return out;
  }

  Result<std::unordered_set<std::string>> UsedNames(
      const std::map<std::string, OrphanFile>& candidates) {
    std::unordered_set<std::string> used;
    std::set<std::string> manifests;
    FJORD_ASSIGN_OR_RAISE(std::vector<Snapshot> snapshots, AllSnapshots());
    for (const Snapshot& s : snapshots) {
      std::vector<std::string> lists;
      if (s.changelog_manifest_list) lists.push_back(*s.changelog_manifest_list);
      if (!s.delta_manifest_list.empty()) lists.push_back(s.delta_manifest_list);
      lists.push_back(s.base_manifest_list);
      for (const std::string& list : lists) {
        used.insert(list);
        std::string path = paths_.ManifestFile(list);
        FJORD_ASSIGN_OR_RAISE(std::optional<std::vector<ManifestFileMeta>> metas,
                              ReadRetrying<std::vector<ManifestFileMeta>>(
                                  path, [&] { return ReadManifestList(io_, path, format_); }));
        if (!metas) continue;
        for (const ManifestFileMeta& m : *metas) manifests.insert(m.file_name);
      }
      if (s.index_manifest) {
        std::string path = paths_.ManifestFile(*s.index_manifest);
        FJORD_ASSIGN_OR_RAISE(std::optional<std::vector<IndexManifestEntry>> entries,
                              ReadRetrying<std::vector<IndexManifestEntry>>(
                                  path, [&] { return ReadIndexManifest(io_, path, format_); }));
        if (entries) {
          used.insert(*s.index_manifest);
          for (const IndexManifestEntry& e : *entries) used.insert(e.file_name);
        }
      }
      if (s.statistics) used.insert(*s.statistics);
    }
    for (const std::string& manifest : manifests) {
      used.insert(manifest);
      std::string path = paths_.ManifestFile(manifest);
      FJORD_ASSIGN_OR_RAISE(std::optional<std::vector<ManifestEntry>> entries,
                            ReadRetrying<std::vector<ManifestEntry>>(
                                path, [&] { return ReadManifestFile(io_, path, format_); }));
      if (!entries) continue;
      for (const ManifestEntry& e : *entries) {
        if (candidates.count(e.file.file_name)) used.insert(e.file.file_name);
        for (const std::string& extra : e.file.extra_files) {
          if (candidates.count(extra)) used.insert(extra);
        }
      }
    }
    return used;
  }

  // Java's cleanEmptyDataDirectory: the bucket directories files were deleted from, then the
  // partition directories above them, level by level.
  Status CleanDataDirs(const std::set<std::string>& bucket_dirs) {
    if (dry_run_) return Status::OK();
    std::set<std::string> dirs = bucket_dirs;
    for (int level = 0; level <= partition_levels_ && !dirs.empty(); ++level) {
      std::set<std::string> parents;
      for (const std::string& dir : dirs) {
        if (StripSlash(dir) == root_) continue;
        Result<bool> deleted = DeleteDirIfEmpty(io_, dir);
        if (deleted.ok() && *deleted) {
          result_.directories.push_back(dir);
          parents.insert(ParentPath(dir));
        }
      }
      dirs = std::move(parents);
    }
    return Status::OK();
  }

  FileIO* io_;
  std::string root_;
  TablePaths paths_;
  std::string format_;
  int partition_levels_;
  int64_t older_than_;
  bool dry_run_;
  OrphanCleanResult result_;
};

}  // namespace

Result<OrphanCleanResult> CleanOrphanFiles(const FileStoreTable& table, int64_t older_than_millis,
                                           bool dry_run) {
  return OrphanClean(table, older_than_millis, dry_run).Run();
}

Status CheckOrphanOlderThan(int64_t older_than_millis, int64_t now_millis) {
  if (older_than_millis < now_millis) return Status::OK();
  return Status::Invalid(
      "--older-than must lie in the past: files being written and not yet committed would be "
      "taken for orphans");
}

}  // namespace fjord
