#include "lifecycle_files.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/file_store_table.h"
#include "lifecycle_model.h"

namespace fjord::lifecycle {

namespace fs = std::filesystem;

int64_t MtimeMillis(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Failure("stat " + path);
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

void SetMtimeMillis(const std::string& path, int64_t millis) {
  struct timespec times[2];
  times[0].tv_sec = millis / 1000;
  times[0].tv_nsec = (millis % 1000) * 1000000;
  times[1] = times[0];
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) throw Failure("utimensat " + path);
}

std::map<std::string, int64_t> FilesWithMtimes(const std::string& root) {
  std::map<std::string, int64_t> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    out[fs::relative(e.path(), root).string()] = MtimeMillis(e.path().string());
  }
  return out;
}

void CopyTree(const std::string& from, const std::string& to) {
  fs::copy(from, to, fs::copy_options::recursive);
  // Deepest first, so that setting a file's time does not disturb its directory's afterwards.
  std::vector<std::string> rels;
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    rels.push_back(fs::relative(e.path(), from).string());
  }
  std::sort(rels.begin(), rels.end(), [](const std::string& a, const std::string& b) {
    return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
  });
  for (const std::string& rel : rels) SetMtimeMillis(to + "/" + rel, MtimeMillis(from + "/" + rel));
}

void RestoreTree(const std::string& pristine, const std::string& root) {
  fs::remove_all(root);
  CopyTree(pristine, root);
}

bool NeverCandidate(const std::string& rel) {
  std::string name = fs::path(rel).filename().string();
  if (rel.rfind("schema/", 0) == 0 || rel.rfind("tag/", 0) == 0 || rel.rfind("consumer/", 0) == 0) {
    return true;
  }
  return (rel.rfind("snapshot/", 0) == 0 || rel.rfind("changelog/", 0) == 0) &&
         (name == "LATEST" || name == "EARLIEST");
}

namespace {

template <typename T>
T Must(Result<T> r, const std::string& what) {
  if (!r.ok()) throw Failure("reachable set: " + what + ": " + r.status().ToString());
  return std::move(r).value();
}

}  // namespace

ReachableFiles Reachable(const Table& table, const std::set<std::string>& skip_tags,
                         const std::set<int64_t>& skip_snapshots,
                         const std::set<int64_t>& rewritten_ids) {
  const FileStoreTable& t = *table.store();
  FileIO* io = t.io().get();
  const std::string manifest_dir = t.path() + "/manifest/";
  const std::string format = t.core_options().manifest_format();
  const bool producer_none = t.core_options().changelog_producer() == ChangelogProducer::kNone;
  ReachableFiles files;
  std::set<std::string>& out = files.live;

  struct Source {
    Snapshot snapshot;
    bool changelog_only = false;  // a long-lived changelog whose snapshot expired
    bool tag = false;
  };
  std::vector<Source> sources;
  std::set<int64_t> snapshot_ids;
  for (int64_t id : Must(t.snapshots().ListIds(), "snapshots")) {
    if (skip_snapshots.count(id)) continue;
    sources.push_back(
        {Must(t.snapshots().Load(id), "snapshot " + std::to_string(id)), false, false});
    snapshot_ids.insert(id);
    out.insert("snapshot/snapshot-" + std::to_string(id));
  }
  for (const std::string& name : Must(t.snapshots().ListTags(), "tags")) {
    if (skip_tags.count(name)) continue;
    sources.push_back({Must(t.snapshots().LoadTag(name), "tag " + name), false, true});
    out.insert("tag/tag-" + name);
  }
  ChangelogManager changelogs(t.io(), t.path());
  for (int64_t id : Must(changelogs.ListIds(), "changelogs")) {
    out.insert("changelog/changelog-" + std::to_string(id));
    // A changelog beside its snapshot adds nothing the snapshot does not reach.
    if (snapshot_ids.count(id)) continue;
    sources.push_back({Must(changelogs.Load(id), "changelog " + std::to_string(id)), true, false});
  }

  auto file_of = [&](const ManifestEntry& e) {
    std::string dir =
        Must(BucketPath("", t.schema(), t.core_options(), e.partition, e.bucket), "bucket path");
    if (!dir.empty() && dir[0] == '/') dir = dir.substr(1);
    return dir + "/";
  };
  auto add_data_file = [&](const ManifestEntry& e) {
    std::string dir = file_of(e);
    out.insert(dir + e.file.file_name);
    for (const std::string& extra : e.file.extra_files) out.insert(dir + extra);
  };
  auto manifests_of = [&](const std::string& list) {
    out.insert("manifest/" + list);
    std::vector<ManifestFileMeta> metas =
        Must(ReadManifestList(io, manifest_dir + list, format), "manifest list " + list);
    for (const ManifestFileMeta& m : metas) out.insert("manifest/" + m.file_name);
    return metas;
  };
  auto entries_of = [&](const ManifestFileMeta& m) {
    return Must(ReadManifestFile(io, manifest_dir + m.file_name, format),
                "manifest " + m.file_name);
  };

  // Every name, for `named`.
  for (const Source& src : sources) {
    const Snapshot& s = src.snapshot;
    std::vector<std::string> lists = {s.base_manifest_list, s.delta_manifest_list};
    if (s.changelog_manifest_list) lists.push_back(*s.changelog_manifest_list);
    for (const std::string& list : lists) {
      Result<std::vector<ManifestFileMeta>> metas =
          ReadManifestList(io, manifest_dir + list, format);
      if (!metas.ok() && metas.status().code() == StatusCode::kNotFound) continue;
      files.named.insert("manifest/" + list);
      for (const ManifestFileMeta& m : Must(std::move(metas), "manifest list " + list)) {
        files.named.insert("manifest/" + m.file_name);
        Result<std::vector<ManifestEntry>> entries =
            ReadManifestFile(io, manifest_dir + m.file_name, format);
        if (!entries.ok() && entries.status().code() == StatusCode::kNotFound) continue;
        for (const ManifestEntry& e : Must(std::move(entries), "manifest " + m.file_name)) {
          std::string dir = file_of(e);
          std::set<std::string> names = {dir + e.file.file_name};
          for (const std::string& extra : e.file.extra_files) names.insert(dir + extra);
          files.named.insert(names.begin(), names.end());
          if (src.changelog_only) files.named_by_changelogs.insert(names.begin(), names.end());
        }
      }
    }
  }

  for (const Source& src : sources) {
    const Snapshot& s = src.snapshot;
    if (!src.changelog_only) {
      // The live files: base + delta folded.
      std::map<std::string, int> live;
      std::map<std::string, ManifestEntry> entry_of;
      for (const std::string& list : {s.base_manifest_list, s.delta_manifest_list}) {
        for (const ManifestFileMeta& m : manifests_of(list)) {
          for (const ManifestEntry& e : entries_of(m)) {
            std::string key = file_of(e) + e.file.file_name;
            live[key] += e.kind == FileKind::kAdd ? 1 : -1;
            if (e.kind == FileKind::kAdd) entry_of[key] = e;
          }
        }
      }
      for (const auto& [key, n] : live) {
        if (n > 0) add_data_file(entry_of.at(key));
      }
      if (s.index_manifest) {
        out.insert("manifest/" + *s.index_manifest);
        for (const IndexManifestEntry& e :
             Must(ReadIndexManifest(io, manifest_dir + *s.index_manifest, format),
                  "index manifest " + *s.index_manifest)) {
          out.insert("index/" + e.file_name);
        }
      }
      if (s.statistics) out.insert("statistics/" + *s.statistics);
    } else if (producer_none) {
      // A long-lived changelog of producer none: what its APPEND delta added is its changelog;
      // it keeps both manifest lists.
      manifests_of(s.base_manifest_list);
      for (const ManifestFileMeta& m : manifests_of(s.delta_manifest_list)) {
        for (const ManifestEntry& e : entries_of(m)) {
          if (s.commit_kind == CommitKind::kAppend && e.kind == FileKind::kAdd &&
              e.file.file_source.value_or(0) == 0) {
            add_data_file(e);
          }
        }
      }
    }
    // A tag keeps the table as of its snapshot, not that snapshot's changelog; a snapshot a
    // rollback wrote again from a tag names the changelog the tag did not keep (Java's too).
    bool rewritten = !src.tag && !src.changelog_only && rewritten_ids.count(s.id) &&
                     s.changelog_manifest_list &&
                     !Must(io->Exists(manifest_dir + *s.changelog_manifest_list), "exists");
    if (s.changelog_manifest_list && !src.tag && !rewritten) {
      for (const ManifestFileMeta& m : manifests_of(*s.changelog_manifest_list)) {
        for (const ManifestEntry& e : entries_of(m)) add_data_file(e);
      }
    }
  }
  files.named.insert(out.begin(), out.end());
  return files;
}

std::string WhoNames(const Table& table, const std::string& file_name) {
  const FileStoreTable& t = *table.store();
  FileIO* io = t.io().get();
  const std::string manifest_dir = t.path() + "/manifest/";
  const std::string format = t.core_options().manifest_format();
  std::vector<std::pair<std::string, Snapshot>> sources;
  for (int64_t id : Must(t.snapshots().ListIds(), "snapshots")) {
    sources.emplace_back("snapshot-" + std::to_string(id), Must(t.snapshots().Load(id), "load"));
  }
  for (const std::string& name : Must(t.snapshots().ListTags(), "tags")) {
    sources.emplace_back("tag " + name, Must(t.snapshots().LoadTag(name), "tag"));
  }
  ChangelogManager changelogs(t.io(), t.path());
  for (int64_t id : Must(changelogs.ListIds(), "changelogs")) {
    sources.emplace_back("changelog-" + std::to_string(id), Must(changelogs.Load(id), "load"));
  }
  std::string out;
  for (const auto& [what, s] : sources) {
    std::vector<std::pair<std::string, std::string>> lists = {{"base", s.base_manifest_list},
                                                              {"delta", s.delta_manifest_list}};
    if (s.changelog_manifest_list) lists.emplace_back("changelog", *s.changelog_manifest_list);
    for (const auto& [kind, list] : lists) {
      Result<std::vector<ManifestFileMeta>> metas =
          ReadManifestList(io, manifest_dir + list, format);
      if (!metas.ok()) {
        out += " " + what + " " + kind + " list unreadable;";
        continue;
      }
      for (const ManifestFileMeta& m : *metas) {
        Result<std::vector<ManifestEntry>> entries =
            ReadManifestFile(io, manifest_dir + m.file_name, format);
        if (!entries.ok()) continue;
        for (const ManifestEntry& e : *entries) {
          if (e.file.file_name != file_name) continue;
          out += " " + what + " " + kind + (e.kind == FileKind::kAdd ? " ADD" : " DELETE") +
                 " source " + std::to_string(e.file.file_source.value_or(-1)) + ";";
        }
      }
    }
  }
  return out.empty() ? " named nowhere" : out;
}

}  // namespace fjord::lifecycle
