#include "fjord/meta/snapshot_manager.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace fjord {

namespace {

std::optional<int64_t> ParseId(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Result<std::optional<int64_t>> ReadIdHint(FileIO* io, const std::string& path) {
  // A hint may be mid-overwrite by a concurrent committer: retry, then fall back to listing.
  for (int attempt = 0; attempt < 3; ++attempt) {
    Result<std::string> text = io->ReadFile(path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) return std::optional<int64_t>();
      continue;
    }
    std::string_view t = *text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.remove_suffix(1);
    if (auto id = ParseId(t)) return id;
  }
  return std::optional<int64_t>();
}

Result<std::vector<int64_t>> ListNumberedFiles(FileIO* io, const std::string& dir,
                                               const std::string& prefix) {
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> files, io->List(dir));
  std::vector<int64_t> ids;
  for (const FileStatus& f : files) {
    std::string name = BaseName(f.path);
    if (f.is_dir || name.rfind(prefix, 0) != 0) continue;
    if (auto id = ParseId(std::string_view(name).substr(prefix.size()))) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::optional<int64_t>> SnapshotManager::ReadHint(const std::string& path) const {
  return ReadIdHint(io_.get(), path);
}

Result<std::vector<int64_t>> SnapshotManager::ListNumbered(const std::string& dir,
                                                           const std::string& prefix) const {
  return ListNumberedFiles(io_.get(), dir, prefix);
}

Result<std::vector<int64_t>> SnapshotManager::ListIds() const {
  return ListNumbered(paths_.SnapshotDir(), "snapshot-");
}

Result<std::optional<int64_t>> SnapshotManager::LatestId() const {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> hint, ReadHint(paths_.LatestHint()));
  if (hint) {
    FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(paths_.SnapshotFile(*hint)));
    FJORD_ASSIGN_OR_RAISE(bool next_exists, io_->Exists(paths_.SnapshotFile(*hint + 1)));
    if (exists && !next_exists) return hint;
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Result<std::optional<int64_t>> SnapshotManager::EarliestId() const {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> hint, ReadHint(paths_.EarliestHint()));
  if (hint) {
    FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(paths_.SnapshotFile(*hint)));
    if (exists) return hint;
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.front());
}

Result<Snapshot> SnapshotManager::Load(int64_t id) const {
  std::string path = paths_.SnapshotFile(id);
  Result<std::string> text = io_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound())
      return Status::NotFound("snapshot ", id, " does not exist (", path, ")");
    return text.status();
  }
  FJORD_ASSIGN_OR_RAISE(Snapshot s, Snapshot::FromJson(*text, path));
  if (s.id != id) return Status::Corruption(path, ": field 'id' is ", s.id, ", expected ", id);
  return s;
}

Result<std::optional<Snapshot>> SnapshotManager::Latest() const {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id, LatestId());
  if (!id) return std::optional<Snapshot>();
  FJORD_ASSIGN_OR_RAISE(Snapshot s, Load(*id));
  return std::optional<Snapshot>(std::move(s));
}

Result<std::optional<Snapshot>> SnapshotManager::LatestAtOrBefore(int64_t time_millis) const {
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, ListIds());
  // Commit times grow with ids; binary search over the snapshots that exist.
  int64_t lo = 0, hi = static_cast<int64_t>(ids.size()) - 1;
  std::optional<Snapshot> best;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    FJORD_ASSIGN_OR_RAISE(Snapshot s, Load(ids[static_cast<size_t>(mid)]));
    if (s.time_millis <= time_millis) {
      best = std::move(s);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

Result<std::vector<int64_t>> SnapshotManager::ListSchemaIds() const {
  return ListNumbered(paths_.SchemaDir(), "schema-");
}

Result<TableSchema> SnapshotManager::LoadSchema(int64_t id) const {
  std::string path = paths_.SchemaFile(id);
  Result<std::string> text = io_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound())
      return Status::NotFound("schema ", id, " does not exist (", path, ")");
    return text.status();
  }
  FJORD_ASSIGN_OR_RAISE(TableSchema s, TableSchema::FromJson(*text, path));
  if (s.id != id) return Status::Corruption(path, ": field 'id' is ", s.id, ", expected ", id);
  return s;
}

Result<TableSchema> SnapshotManager::LatestSchema() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, ListSchemaIds());
  if (ids.empty()) return Status::NotFound(paths_.root, " is not a Paimon table (no schema files)");
  return LoadSchema(ids.back());
}

Result<std::vector<std::string>> SnapshotManager::ListTags() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> files, io_->List(paths_.TagDir()));
  std::vector<std::string> names;
  for (const FileStatus& f : files) {
    std::string name = BaseName(f.path);
    if (!f.is_dir && name.rfind("tag-", 0) == 0) names.push_back(name.substr(4));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Snapshot> SnapshotManager::LoadTag(const std::string& name) const {
  std::string path = paths_.TagFile(name);
  Result<std::string> text = io_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound())
      return Status::NotFound("tag '", name, "' does not exist (", path, ")");
    return text.status();
  }
  return Snapshot::FromJson(*text, path);
}

Result<std::vector<Snapshot>> SnapshotManager::TaggedSnapshots() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> names, ListTags());
  std::map<int64_t, Snapshot> by_id;
  for (const std::string& name : names) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, LoadTag(name));
    by_id.emplace(s.id, std::move(s));
  }
  std::vector<Snapshot> out;
  out.reserve(by_id.size());
  for (auto& [id, s] : by_id) out.push_back(std::move(s));
  return out;
}

}  // namespace fjord
