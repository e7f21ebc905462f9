// Tags: the tag file format, create, list, delete (Java's doClean) and time expiration.

#include "fjord/table/maintain/tags.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "fjord/common/calendar.h"
#include "fjord/common/json.h"
#include "fjord/common/strings.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/meta/tag_period.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {

namespace {

constexpr int64_t kNanosPerSecond = 1000000000;

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// Jackson's LocalDateTime array: y, M, d, h, m, then seconds when seconds or nanos are set,
// then nanos when set.
std::string CreateTimeJson(LocalDateTime t) {
  CivilDate d = CivilFromDays(t.days);
  int64_t second_of_day = t.nanos / kNanosPerSecond;
  int64_t nano = t.nanos % kNanosPerSecond;
  std::string out = "[ " + std::to_string(d.year) + ", " + std::to_string(d.month) + ", " +
                    std::to_string(d.day) + ", " + std::to_string(second_of_day / 3600) + ", " +
                    std::to_string(second_of_day / 60 % 60);
  if (second_of_day % 60 != 0 || nano != 0) out += ", " + std::to_string(second_of_day % 60);
  if (nano != 0) out += ", " + std::to_string(nano);
  return out + " ]";
}

Result<LocalDateTime> CreateTimeFromJson(const Json& j, std::string_view source) {
  auto bad = [&] {
    return Status::Corruption(source, ": field 'tagCreateTime' must be [y, M, d, h, m(, s(, n))]");
  };
  if (!j.is_array() || j.size() < 5 || j.size() > 7) return bad();
  int64_t v[7] = {0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer()) return bad();
    v[i] = j[i].get<int64_t>();
  }
  if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] < 0 || v[3] > 23 || v[4] < 0 ||
      v[4] > 59 || v[5] < 0 || v[5] > 59 || v[6] < 0 || v[6] >= kNanosPerSecond) {
    return bad();
  }
  int64_t days = DaysFromCivil(v[0], static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2]));
  return LocalDateTime{days, ((v[3] * 60 + v[4]) * 60 + v[5]) * kNanosPerSecond + v[6]};
}

// Decimal seconds as Jackson reads a Duration: "4", "4.5", "4.000000000", "-1.5".
Result<TagDuration> DurationFromText(std::string_view text, std::string_view source) {
  auto bad = [&] {
    return Status::Corruption(source, ": field 'tagTimeRetained' must be decimal seconds, got '",
                              text, "'");
  };
  std::string_view s = text;
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (whole.empty() || whole.size() > 18 || frac.size() > 9) return bad();
  int64_t seconds = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return bad();
    seconds = seconds * 10 + (c - '0');
  }
  int64_t nanos = 0;
  for (size_t i = 0; i < 9; ++i) {
    char c = i < frac.size() ? frac[i] : '0';
    if (c < '0' || c > '9') return bad();
    nanos = nanos * 10 + (c - '0');
  }
  if (negative) {
    seconds = -seconds;
    if (nanos != 0) {
      seconds -= 1;
      nanos = kNanosPerSecond - nanos;
    }
  }
  return TagDuration{seconds, static_cast<int32_t>(nanos)};
}

// The raw text of the number after "key" in `text` (nlohmann would round it through a double).
std::optional<std::string> RawNumber(std::string_view text, std::string_view key) {
  std::string quoted = "\"" + std::string(key) + "\"";
  size_t p = text.find(quoted);
  if (p == std::string_view::npos) return std::nullopt;
  p = text.find(':', p + quoted.size());
  if (p == std::string_view::npos) return std::nullopt;
  ++p;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\n' || text[p] == '\t')) ++p;
  size_t e = p;
  while (e < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[e])) || text[e] == '.' || text[e] == '-' ||
          text[e] == 'e' || text[e] == 'E' || text[e] == '+')) {
    ++e;
  }
  return std::string(text.substr(p, e - p));
}

Status CheckName(const std::string& name) {
  if (Trim(name).empty()) return Status::Invalid("Tag name shouldn't be blank.");
  if (name.find('/') != std::string::npos) {
    return Status::Invalid("tag name '", name, "' must not contain '/'");
  }
  return Status::OK();
}

// The live files of `manifests` (ADDs after merging, as Java's readMergedDataFiles).
Result<std::vector<ManifestEntry>> LiveFiles(FileIO* io, const TablePaths& paths,
                                             const std::vector<ManifestFileMeta>& metas,
                                             const std::string& format) {
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> merged,
                        ReadMergedEntries(io, paths, format, metas, PartitionFilter::All()));
  std::erase_if(merged, [](const ManifestEntry& e) { return e.kind != FileKind::kAdd; });
  return merged;
}

std::string StatisticsFile(const TablePaths& paths, const std::string& name) {
  return paths.root + "/statistics/" + name;
}

class TagCleaner {
 public:
  explicit TagCleaner(const FileStoreTable& table)
      : table_(table),
        io_(table.io().get()),
        paths_(table.snapshots().paths()),
        format_(table.core_options().manifest_format()) {}

  // Java's doClean, in crash-safe order (tags.h); the tag file is deleted by the caller after.
  Status Clean(const Snapshot& tagged, const std::vector<Snapshot>& tagged_snapshots) {
    size_t index = 0;
    while (index < tagged_snapshots.size() && tagged_snapshots[index].id != tagged.id) ++index;
    if (index == tagged_snapshots.size()) {
      return Status::Invalid("tag of snapshot ", tagged.id, " not found among the tags");
    }
    std::vector<Snapshot> skipped;
    if (index > 0) skipped.push_back(tagged_snapshots[index - 1]);
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, table_.snapshots().EarliestId());
    std::optional<Snapshot> right;
    if (earliest) {
      FJORD_ASSIGN_OR_RAISE(Snapshot e, table_.snapshots().Load(*earliest));
      right = std::move(e);
    }
    if (index + 1 < tagged_snapshots.size() &&
        (!right || tagged_snapshots[index + 1].id < right->id)) {
      right = tagged_snapshots[index + 1];
    }
    if (right) skipped.push_back(*right);

    // The files the neighbours use. Any read error aborts the whole clean (nothing deleted).
    std::set<std::tuple<std::string, int32_t, std::string>> used_data;
    std::set<std::string> used_meta;
    for (const Snapshot& s : skipped) {
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestFileMeta> metas,
          ReadDataManifests(io_, paths_, format_, s.base_manifest_list, s.delta_manifest_list));
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> files,
                            LiveFiles(io_, paths_, metas, format_));
      for (const ManifestEntry& e : files) {
        used_data.emplace(e.partition, e.bucket, e.file.file_name);
      }
      used_meta.insert(s.base_manifest_list);
      used_meta.insert(s.delta_manifest_list);
      for (const ManifestFileMeta& m : metas) used_meta.insert(m.file_name);
      if (s.index_manifest) {
        used_meta.insert(*s.index_manifest);
        FJORD_ASSIGN_OR_RAISE(
            std::vector<IndexManifestEntry> index,
            ReadIndexManifest(io_, paths_.ManifestFile(*s.index_manifest), format_));
        for (const IndexManifestEntry& e : index) used_meta.insert(e.file_name);
      }
      if (s.statistics) used_meta.insert(*s.statistics);
    }

    FJORD_RETURN_NOT_OK(AddLongLivedChangelogs(&used_data, &used_meta));

    // 1. Data files (and their extra files) of the tagged snapshot no neighbour uses. Manifests
    // already deleted by an earlier, crashed run are skipped: their data files went first.
    std::vector<ManifestFileMeta> metas;
    for (const std::string* list : {&tagged.base_manifest_list, &tagged.delta_manifest_list}) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> part, TryReadList(*list));
      metas.insert(metas.end(), part.begin(), part.end());
    }
    std::vector<ManifestFileMeta> readable;
    for (const ManifestFileMeta& m : metas) {
      FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(paths_.ManifestFile(m.file_name)));
      if (exists) readable.push_back(m);
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> files,
                          LiveFiles(io_, paths_, readable, format_));
    std::map<std::pair<std::string, int32_t>, std::string> dirs;
    for (const ManifestEntry& e : files) {
      if (used_data.count({e.partition, e.bucket, e.file.file_name})) continue;
      FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(e.partition, e.bucket, &dirs));
      std::string path =
          e.file.external_path ? *e.file.external_path : JoinPath(dir, e.file.file_name);
      FJORD_RETURN_NOT_OK(io_->Delete(path));
      for (const std::string& extra : e.file.extra_files) {
        FJORD_RETURN_NOT_OK(io_->Delete(JoinPath(ParentPath(path), extra)));
      }
    }
    // Empty bucket and partition directories (Java's cleanEmptyDirectories) are left to
    // orphan clean-up: removing them races with writers creating files there.

    // 2. Index files, then the index manifest; statistics.
    if (tagged.index_manifest && !used_meta.count(*tagged.index_manifest)) {
      std::string path = paths_.ManifestFile(*tagged.index_manifest);
      FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(path));
      if (exists) {
        FJORD_ASSIGN_OR_RAISE(std::vector<IndexManifestEntry> index,
                              ReadIndexManifest(io_, path, format_));
        for (const IndexManifestEntry& e : index) {
          if (used_meta.count(e.file_name)) continue;
          FJORD_RETURN_NOT_OK(
              io_->Delete(e.external_path ? *e.external_path : paths_.IndexFile(e.file_name)));
        }
        FJORD_RETURN_NOT_OK(io_->Delete(path));
      }
    }
    if (tagged.statistics && !used_meta.count(*tagged.statistics)) {
      FJORD_RETURN_NOT_OK(io_->Delete(StatisticsFile(paths_, *tagged.statistics)));
    }
    // 3. Manifests, then the manifest lists that name them.
    for (const ManifestFileMeta& m : metas) {
      if (!used_meta.count(m.file_name)) {
        FJORD_RETURN_NOT_OK(io_->Delete(paths_.ManifestFile(m.file_name)));
      }
    }
    for (const std::string* list : {&tagged.base_manifest_list, &tagged.delta_manifest_list}) {
      if (!used_meta.count(*list)) FJORD_RETURN_NOT_OK(io_->Delete(paths_.ManifestFile(*list)));
    }
    return Status::OK();
  }

 private:
  // Not in Java's doClean: with changelog-producer none, a long-lived changelog
  // (changelog/changelog-<id>) is its snapshot's base and delta manifest lists, their manifests
  // and the level-0 files its APPEND commit added, which snapshot expiration keeps for it and
  // changelog expiration deletes; the tagged snapshot's own lists are often one of them
  // (changelog-<id> of the tagged id). Java deletes them, breaking the changelog; Fjord keeps
  // them. (With a producer, a long-lived changelog reads only its changelog manifest list, which
  // tag deletion never touches.)
  Status AddLongLivedChangelogs(std::set<std::tuple<std::string, int32_t, std::string>>* used_data,
                                std::set<std::string>* used_meta) {
    if (table_.core_options().changelog_producer() != ChangelogProducer::kNone) {
      return Status::OK();
    }
    ChangelogManager changelogs(table_.io(), table_.path());
    FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, changelogs.ListIds());
    for (int64_t id : ids) {
      Result<Snapshot> c = changelogs.Load(id);
      if (!c.ok()) {
        if (c.status().IsNotFound()) continue;  // expired meanwhile
        return c.status();
      }
      for (const std::string& list : {c->base_manifest_list, c->delta_manifest_list}) {
        used_meta->insert(list);
        FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> metas, TryReadList(list));
        for (const ManifestFileMeta& m : metas) used_meta->insert(m.file_name);
        if (list != c->delta_manifest_list) continue;
        FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> added,
                              LiveFiles(io_, paths_, metas, format_));
        for (const ManifestEntry& e : added) {
          if (e.file.file_source.value_or(0) == static_cast<int32_t>(FileSource::kAppend)) {
            used_data->emplace(e.partition, e.bucket, e.file.file_name);
          }
        }
      }
    }
    return Status::OK();
  }

  // A manifest list, or nothing when an earlier run deleted it.
  Result<std::vector<ManifestFileMeta>> TryReadList(const std::string& name) {
    std::string path = paths_.ManifestFile(name);
    FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(path));
    if (!exists) return std::vector<ManifestFileMeta>{};
    return ReadManifestList(io_, path, format_);
  }

  Result<std::string> BucketDir(const std::string& partition, int32_t bucket,
                                std::map<std::pair<std::string, int32_t>, std::string>* cache) {
    auto it = cache->find({partition, bucket});
    if (it != cache->end()) return it->second;
    const TableSchema& schema = table_.schema();
    std::vector<DataField> fields = schema.FieldsByName(schema.partition_keys);
    std::vector<DataTypePtr> types;
    for (const DataField& f : fields) types.push_back(f.type->WithNullable(true));
    FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(partition, types));
    std::string dir = table_.path();
    std::string ppath =
        PartitionPath(fields, values, table_.core_options().partition_default_name());
    if (!ppath.empty()) dir = JoinPath(dir, ppath);
    dir = JoinPath(dir, "bucket-" + std::to_string(bucket));
    (*cache)[{partition, bucket}] = dir;
    return dir;
  }

  const FileStoreTable& table_;
  FileIO* io_;
  const TablePaths& paths_;
  std::string format_;
};

}  // namespace

TagDuration TagDuration::FromMillis(int64_t millis) {
  return TagDuration{FloorDiv(millis, 1000),
                     static_cast<int32_t>(FloorMod(millis, 1000) * 1000000)};
}

int64_t TagDuration::ToMillis() const { return seconds * 1000 + nanos / 1000000; }

std::string TagDuration::ToJsonText() const {
  // Jackson writes BigDecimal(seconds, nanos) with scale 9; a negative duration as its value.
  int64_t s = seconds;
  int64_t n = nanos;
  bool negative = s < 0;
  if (negative && n != 0) {
    s += 1;
    n = kNanosPerSecond - n;
  }
  std::string frac = std::to_string(n);
  frac.insert(0, 9 - frac.size(), '0');
  std::string whole = std::to_string(negative ? -s : s);
  return (negative ? "-" : "") + whole + "." + frac;
}

std::string TagToJson(const Snapshot& snapshot, std::optional<LocalDateTime> create_time,
                      std::optional<TagDuration> time_retained) {
  std::string json = snapshot.ToJson();
  if (!time_retained) return json;
  // Snapshot JSON ends with "\n}": append the tag fields before the closing brace.
  size_t close = json.rfind('}');
  std::string out = json.substr(0, close);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (create_time) out += ",\n  \"tagCreateTime\" : " + CreateTimeJson(*create_time);
  out += ",\n  \"tagTimeRetained\" : " + time_retained->ToJsonText();
  return out + "\n}";
}

Result<TagEntry> TagFromJson(std::string name, std::string_view text, std::string_view source) {
  TagEntry out;
  out.name = std::move(name);
  FJORD_ASSIGN_OR_RAISE(out.snapshot, Snapshot::FromJson(text, source));
  FJORD_ASSIGN_OR_RAISE(Json j, ParseJson(text, source));
  if (auto it = j.find("tagCreateTime"); it != j.end() && !it->is_null()) {
    FJORD_ASSIGN_OR_RAISE(out.create_time, CreateTimeFromJson(*it, source));
  }
  if (auto it = j.find("tagTimeRetained"); it != j.end() && !it->is_null()) {
    std::optional<std::string> raw = RawNumber(text, "tagTimeRetained");
    if (!raw || !it->is_number()) {
      return Status::Corruption(source, ": field 'tagTimeRetained' must be decimal seconds");
    }
    FJORD_ASSIGN_OR_RAISE(out.time_retained, DurationFromText(*raw, source));
  }
  return out;
}

Result<TagEntry> LoadTagEntry(const FileStoreTable& table, const std::string& name) {
  std::string path = table.snapshots().paths().TagFile(name);
  Result<std::string> text = table.io()->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return Status::NotFound("Tag '", name, "' doesn't exist.");
    return text.status();
  }
  return TagFromJson(name, *text, path);
}

Result<std::vector<TagEntry>> ListTagEntries(const FileStoreTable& table) {
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> names, table.snapshots().ListTags());
  std::vector<TagEntry> out;
  for (const std::string& name : names) {
    Result<TagEntry> info = LoadTagEntry(table, name);
    if (!info.ok() && info.status().IsNotFound()) continue;  // deleted meanwhile, as Java
    FJORD_RETURN_NOT_OK(info.status());
    out.push_back(std::move(*info));
  }
  return out;
}

Result<bool> CreateTag(const FileStoreTable& table, const CreateTagRequest& request,
                       LocalDateTime now) {
  FJORD_RETURN_NOT_OK(CheckName(request.name));
  const SnapshotManager& snapshots = table.snapshots();
  Snapshot snapshot;
  if (request.snapshot_id) {
    Result<Snapshot> s = snapshots.Load(*request.snapshot_id);
    if (!s.ok()) {
      if (!s.status().IsNotFound()) return s.status();
      return Status::Invalid("Snapshot ", *request.snapshot_id, " doesn't exist in ", table.path());
    }
    snapshot = std::move(*s);
  } else {
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, snapshots.Latest());
    if (!latest) {
      return Status::Invalid("Cannot create tag because latest snapshot doesn't exist (",
                             table.path(), ").");
    }
    snapshot = std::move(*latest);
  }
  std::string path = snapshots.paths().TagFile(request.name);
  FJORD_ASSIGN_OR_RAISE(bool exists, table.io()->Exists(path));
  if (exists) {
    if (request.ignore_if_exists) return false;
    return Status::Invalid("Tag '", request.name, "' already exists.");
  }
  // validateNoAutoTag: with automatic period tags, one auto tag per snapshot (Java has no period
  // handler, so no check, in none and batch mode).
  const std::string mode = Lower(table.options().GetOr("tag.automatic-creation", "none"));
  if (mode == "process-time" || mode == "watermark") {
    FJORD_ASSIGN_OR_RAISE(TagPeriod period, TagPeriod::Make(table.options()));
    if (period.TagToLocalMillis(request.name)) {
      FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(table));
      for (const TagEntry& t : tags) {
        if (t.snapshot.id == snapshot.id && period.TagToLocalMillis(t.name)) {
          return Status::Invalid("Snapshot ", snapshot.id, " is already auto-tagged with [", t.name,
                                 "].");
        }
      }
    }
  }
  std::optional<TagDuration> retained = request.time_retained;
  if (!retained) {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> millis,
                          table.options().GetDurationMillis("tag.default-time-retained"));
    if (millis) retained = TagDuration::FromMillis(*millis);
  }
  FJORD_RETURN_NOT_OK(table.io()->Overwrite(path, TagToJson(snapshot, now, retained)));
  return true;
}

Result<bool> DeleteTag(const FileStoreTable& table, const std::string& name) {
  FJORD_RETURN_NOT_OK(CheckName(name));
  Result<TagEntry> tag = LoadTagEntry(table, name);
  if (!tag.ok()) {
    if (tag.status().IsNotFound()) return false;
    return tag.status();
  }
  std::string path = table.snapshots().paths().TagFile(name);
  FJORD_ASSIGN_OR_RAISE(
      bool snapshot_exists,
      table.io()->Exists(table.snapshots().paths().SnapshotFile(tag->snapshot.id)));
  if (!snapshot_exists) {
    // Read every tag before deleting any file; other tags of the same snapshot keep its files.
    FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(table));
    std::map<int64_t, Snapshot> by_id;
    int same = 0;
    for (TagEntry& t : tags) {
      if (t.snapshot.id == tag->snapshot.id) ++same;
      by_id.emplace(t.snapshot.id, std::move(t.snapshot));
    }
    if (same <= 1) {
      std::vector<Snapshot> sorted;
      for (auto& [id, s] : by_id) sorted.push_back(std::move(s));
      FJORD_RETURN_NOT_OK(TagCleaner(table)
                              .Clean(tag->snapshot, sorted)
                              .WithContext("deleting the files of tag '", name, "'"));
    }
  }
  FJORD_RETURN_NOT_OK(table.io()->Delete(path));
  return true;
}

Result<std::vector<std::string>> ExpireTagsByTime(const FileStoreTable& table, LocalDateTime now) {
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(table));
  std::vector<std::string> expired;
  for (const TagEntry& t : tags) {
    if (!t.create_time || !t.time_retained) continue;
    const TagDuration& d = *t.time_retained;
    // create time + retained (Java's isAfter: strictly later).
    constexpr int64_t kNanosPerDay = 86400 * kNanosPerSecond;
    int64_t nanos = t.create_time->nanos + FloorMod(d.seconds, 86400) * kNanosPerSecond + d.nanos;
    LocalDateTime end{t.create_time->days + FloorDiv(d.seconds, 86400) + nanos / kNanosPerDay,
                      nanos % kNanosPerDay};
    if (now > end) {
      FJORD_ASSIGN_OR_RAISE(bool deleted, DeleteTag(table, t.name));
      if (deleted) expired.push_back(t.name);
    }
  }
  return expired;
}

}  // namespace fjord
