#include "fjord/table/maintain/doctor_scan.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "fjord/expr/partition_text.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/manifest.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/maintain/tags.h"

namespace fjord {

namespace {

// One data file of the latest state of the walk.
struct LiveFile {
  std::string partition;  // stored BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  int64_t size = 0;
  int64_t rows = 0;
  int32_t level = 0;
};

// Who holds a file: the snapshots [first, last] (first < 0: none) and the tags (indexes).
struct Holders {
  int64_t size = 0;
  int64_t first = -1;
  int64_t last = -1;
  std::vector<size_t> tags;
};

std::string KeyOf(const ManifestEntry& e) {
  std::string key = e.partition;
  key.push_back('\0');
  key += std::to_string(e.bucket);
  key.push_back('\0');
  key += e.file.file_name;
  return key;
}

class Reader {
 public:
  explicit Reader(const FileStoreTable& table)
      : table_(table), format_(table.core_options().manifest_format()) {}

  Result<std::vector<ManifestEntry>> ListEntries(const std::string& list) {
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> metas,
                          ReadManifestList(table_.io().get(),
                                           table_.snapshots().paths().ManifestFile(list), format_));
    std::vector<ManifestEntry> out;
    for (const ManifestFileMeta& m : metas) {
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestEntry> entries,
          ReadManifestFile(table_.io().get(), table_.snapshots().paths().ManifestFile(m.file_name),
                           format_));
      for (ManifestEntry& e : entries) out.push_back(std::move(e));
    }
    return out;
  }

  // The live files of `s` (base and delta merged).
  Result<std::vector<ManifestEntry>> LiveFiles(const Snapshot& s) {
    EntryMerger merger;
    for (const std::string* list : {&s.base_manifest_list, &s.delta_manifest_list}) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, ListEntries(*list));
      FJORD_RETURN_NOT_OK(merger.AddAll(std::move(entries), *list));
    }
    std::vector<ManifestEntry> out;
    for (ManifestEntry& e : merger.Take()) {
      if (e.kind == FileKind::kAdd) out.push_back(std::move(e));
    }
    return out;
  }

 private:
  const FileStoreTable& table_;
  std::string format_;
};

LiveFile LiveOf(const ManifestEntry& e) {
  return LiveFile{e.partition,      e.bucket,         e.total_buckets,
                  e.file.file_size, e.file.row_count, e.file.level};
}

}  // namespace

int64_t DoctorScan::FreedBelow(int64_t end) const {
  int64_t bytes = 0;
  for (const auto& [last, size] : untagged_by_last) {
    if (last >= end) break;
    bytes += size;
  }
  return bytes;
}

Result<DoctorScan> ScanForDoctor(const FileStoreTable& table) {
  DoctorScan scan;
  Reader reader(table);
  const SnapshotManager& sm = table.snapshots();

  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tag_entries, ListTagEntries(table));
  std::multimap<int64_t, size_t> tags_by_snapshot;
  for (size_t i = 0; i < tag_entries.size(); ++i) {
    const TagEntry& t = tag_entries[i];
    DoctorTag tag;
    tag.name = t.name;
    tag.snapshot_id = t.snapshot.id;
    tag.time_millis = t.snapshot.time_millis;
    scan.tags.push_back(tag);
    tags_by_snapshot.emplace(t.snapshot.id, i);
  }

  std::unordered_map<std::string, Holders> holders;
  std::map<std::string, LiveFile> live;
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, sm.ListIds());
  std::optional<int64_t> previous;
  int64_t live_bytes = 0;
  // Expiration running meanwhile (e.g. `fjord compact --follow`) deletes a snapshot's manifests,
  // then its file: an older snapshot missing either is skipped as if already expired (the next
  // one then reads its whole file list). The latest one is never expired.
  auto expired_meanwhile = [&](const Status& st, int64_t id) {
    return st.IsNotFound() && id != ids.back();
  };
  for (int64_t id : ids) {
    Result<Snapshot> loaded = sm.Load(id);
    if (!loaded.ok() && expired_meanwhile(loaded.status(), id)) continue;
    FJORD_ASSIGN_OR_RAISE(Snapshot s, std::move(loaded));
    if (previous && *previous == id - 1) {
      // The delta: a DELETE and an ADD of the same file in one delta is an upgrade (the file
      // stays, at another level).
      Result<std::vector<ManifestEntry>> listed = reader.ListEntries(s.delta_manifest_list);
      if (!listed.ok() && expired_meanwhile(listed.status(), id)) continue;
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> delta, std::move(listed));
      std::set<std::string> added;
      for (const ManifestEntry& e : delta) {
        if (e.kind == FileKind::kAdd) added.insert(KeyOf(e));
      }
      for (const ManifestEntry& e : delta) {
        std::string key = KeyOf(e);
        if (e.kind == FileKind::kDelete) {
          if (added.count(key)) continue;
          auto it = live.find(key);
          if (it != live.end()) {
            live_bytes -= it->second.size;
            live.erase(it);
            holders[key].last = *previous;
          }
        } else {
          auto [it, inserted] = live.insert_or_assign(key, LiveOf(e));
          if (inserted) {
            live_bytes += e.file.file_size;
            Holders& h = holders[key];
            h.size = e.file.file_size;
            if (h.first < 0) h.first = id;
          }
        }
      }
    } else {
      // The first snapshot, or one after a gap: its whole file list.
      Result<std::vector<ManifestEntry>> listed = reader.LiveFiles(s);
      if (!listed.ok() && expired_meanwhile(listed.status(), id)) continue;
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, std::move(listed));
      std::map<std::string, LiveFile> next;
      for (const ManifestEntry& e : entries) next.emplace(KeyOf(e), LiveOf(e));
      for (const auto& [key, f] : live) {
        if (!next.count(key)) holders[key].last = *previous;
      }
      live.clear();
      live_bytes = 0;
      for (const ManifestEntry& e : entries) {
        std::string key = KeyOf(e);
        live.emplace(key, LiveOf(e));
        live_bytes += e.file.file_size;
        Holders& h = holders[key];
        h.size = e.file.file_size;
        if (h.first < 0) h.first = id;
      }
    }
    DoctorSnapshot ds;
    ds.id = id;
    ds.time_millis = s.time_millis;
    ds.kind = std::string(CommitKindName(s.commit_kind));
    ds.files = static_cast<int64_t>(live.size());
    ds.bytes = live_bytes;
    auto [tb, te] = tags_by_snapshot.equal_range(id);
    for (auto t = tb; t != te; ++t) {
      DoctorTag& tag = scan.tags[t->second];
      tag.snapshot_present = true;
      tag.bytes = live_bytes;
      ds.tags.push_back(tag.name);
      for (const auto& [key, f] : live) holders[key].tags.push_back(t->second);
    }
    scan.snapshots.push_back(std::move(ds));
    previous = id;
  }

  // The files of the latest snapshot are held up to it.
  if (previous) {
    for (const auto& [key, f] : live) holders[key].last = *previous;
  }

  // Tags whose snapshot is gone: their own file lists.
  for (size_t i = 0; i < tag_entries.size(); ++i) {
    if (scan.tags[i].snapshot_present) continue;
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries,
                          reader.LiveFiles(tag_entries[i].snapshot));
    for (const ManifestEntry& e : entries) {
      Holders& h = holders[KeyOf(e)];
      h.size = e.file.file_size;
      h.tags.push_back(i);
      scan.tags[i].bytes += e.file.file_size;
    }
  }

  std::map<int64_t, size_t> snapshot_index;
  for (size_t i = 0; i < scan.snapshots.size(); ++i) snapshot_index[scan.snapshots[i].id] = i;
  for (const auto& [key, h] : holders) {
    if (h.tags.empty()) {
      if (h.first < 0) continue;
      scan.untagged_by_last.emplace_back(h.last, h.size);
      if (h.first == h.last) scan.snapshots[snapshot_index[h.first]].own_bytes += h.size;
    } else if (h.first < 0) {
      scan.tag_only_bytes += h.size;
      std::set<size_t> distinct(h.tags.begin(), h.tags.end());
      if (distinct.size() == 1) scan.tags[*distinct.begin()].own_bytes += h.size;
    }
  }
  std::sort(scan.untagged_by_last.begin(), scan.untagged_by_last.end());

  // The buckets of the latest snapshot.
  const TableSchema& schema = table.schema();
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> partition_types;
  for (const DataField& f : partition_fields) partition_types.push_back(f.type->WithNullable(true));
  const std::string& default_name = table.core_options().partition_default_name();
  const int64_t small =
      table.core_options().target_file_size(!schema.primary_keys.empty()) / 10 * 7;
  std::map<std::pair<std::string, int32_t>, std::vector<const LiveFile*>> by_bucket;
  std::map<std::string, int32_t> total_buckets;
  for (const auto& [key, f] : live) {
    by_bucket[{f.partition, f.bucket}].push_back(&f);
    total_buckets[f.partition] = std::max(total_buckets[f.partition], f.total_buckets);
  }
  for (const auto& [partition, n] : total_buckets) {
    for (int32_t b = 0; b < n && n <= 4096; ++b) by_bucket[{partition, b}];
  }
  std::map<std::string, std::string> texts;
  for (auto& [key, files] : by_bucket) {
    auto [text, inserted] = texts.try_emplace(key.first);
    if (inserted && !partition_fields.empty()) {
      FJORD_ASSIGN_OR_RAISE(std::vector<Value> values,
                            DecodeStoredBinaryRow(key.first, partition_types));
      text->second = PartitionText(partition_fields, values, default_name);
    }
    std::sort(files.begin(), files.end(), [](const LiveFile* a, const LiveFile* b) {
      return std::tie(a->level, a->size) < std::tie(b->level, b->size);
    });
    DoctorBucket b;
    b.partition = text->second;
    b.bucket = key.second;
    std::set<int32_t> levels;
    for (const LiveFile* f : files) {
      b.file_sizes.push_back(f->size);
      b.file_levels.push_back(f->level);
      b.files++;
      b.rows += f->rows;
      b.bytes += f->size;
      if (f->size < small) {
        b.small_files++;
        b.small_bytes += f->size;
      }
      if (f->level == 0) {
        b.level0_files++;
      } else {
        levels.insert(f->level);
      }
    }
    if (!schema.primary_keys.empty()) {
      b.sorted_runs = b.level0_files + static_cast<int32_t>(levels.size());
    }
    scan.buckets.push_back(std::move(b));
  }
  std::sort(scan.buckets.begin(), scan.buckets.end(),
            [](const DoctorBucket& a, const DoctorBucket& b) {
              return std::tie(a.partition, a.bucket) < std::tie(b.partition, b.bucket);
            });
  return scan;
}

}  // namespace fjord
