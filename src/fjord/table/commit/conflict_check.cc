#include "fjord/table/commit/conflict_check.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "fjord/format/binary_row.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {

namespace {

std::string Where(const ManifestEntry& e, const TableSchema& schema, const CoreOptions& options) {
  std::string partition = PartitionDisplay(e.partition, schema, options);
  std::string out = partition.empty() ? "" : "partition " + partition + ", ";
  return out + "bucket " + std::to_string(e.bucket) + ", level " + std::to_string(e.file.level) +
         ", file " + e.file.file_name;
}

std::string Users(const ConflictContext& c) {
  return "Base snapshot " + std::to_string(c.base_snapshot_id) + " by commit user '" +
         c.base_commit_user + "'; current commit user '" + c.commit_user + "'.";
}

int CompareKeys(const std::vector<Value>& a, const std::vector<Value>& b,
                const std::vector<DataTypePtr>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    // NULL sorts first (keys are NOT NULL in practice).
    if (a[i].is_null() || b[i].is_null()) {
      if (a[i].is_null() != b[i].is_null()) return a[i].is_null() ? -1 : 1;
      continue;
    }
    int c = CompareValues(a[i], b[i], *types[i]);
    if (c != 0) return c;
  }
  return 0;
}

Status CheckKeyRanges(const std::vector<ManifestEntry>& merged, const TableSchema& schema,
                      const CoreOptions& options, const ConflictContext& context) {
  if (schema.primary_keys.empty()) return Status::OK();
  std::vector<DataTypePtr> types;
  for (const DataField& f : schema.FieldsByName(schema.TrimmedPrimaryKeys())) {
    types.push_back(f.type->WithNullable(true));
  }
  struct Ranged {
    const ManifestEntry* entry;
    std::vector<Value> min, max;
  };
  std::map<std::tuple<std::string, int32_t, int32_t>, std::vector<Ranged>> levels;
  for (const ManifestEntry& e : merged) {
    if (e.file.level < 1) continue;
    Ranged r{&e, {}, {}};
    Result<std::vector<Value>> min = DecodeStoredBinaryRow(e.file.min_key, types);
    Result<std::vector<Value>> max = DecodeStoredBinaryRow(e.file.max_key, types);
    if (!min.ok()) return min.status().WithContext("min key of " + Where(e, schema, options));
    if (!max.ok()) return max.status().WithContext("max key of " + Where(e, schema, options));
    r.min = std::move(*min);
    r.max = std::move(*max);
    levels[{e.partition, e.bucket, e.file.level}].push_back(std::move(r));
  }
  for (auto& [key, files] : levels) {
    std::stable_sort(files.begin(), files.end(), [&](const Ranged& a, const Ranged& b) {
      return CompareKeys(a.min, b.min, types) < 0;
    });
    for (size_t i = 0; i + 1 < files.size(); ++i) {
      const Ranged& a = files[i];
      const Ranged& b = files[i + 1];
      if (CompareKeys(a.max, b.min, types) >= 0) {
        return Status::Conflict(
            "LSM conflicts detected! Give up committing. Files with overlapping key ranges in "
            "one level: ",
            Where(*a.entry, schema, options), " and ", Where(*b.entry, schema, options), ". ",
            Users(context));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckConflicts(const std::vector<ManifestEntry>& base,
                      const std::vector<ManifestEntry>& delta, CommitKind kind,
                      const TableSchema& schema, const CoreOptions& options,
                      const ConflictContext& context) {
  // 1. Total buckets of a partition stay the same unless overwritten.
  if (kind != CommitKind::kOverwrite) {
    std::map<std::string, const ManifestEntry*> first;
    for (const std::vector<ManifestEntry>* list : {&base, &delta}) {
      for (const ManifestEntry& e : *list) {
        if (e.total_buckets <= 0) continue;
        auto [it, inserted] = first.emplace(e.partition, &e);
        if (inserted || it->second->total_buckets == e.total_buckets) continue;
        std::string partition = PartitionDisplay(e.partition, schema, options);
        return Status::Conflict("Total buckets of ",
                                partition.empty() ? "the table" : "partition " + partition,
                                " changed from ", it->second->total_buckets, " to ",
                                e.total_buckets, " without overwrite (", Where(e, schema, options),
                                "). Give up committing. ", Users(context));
      }
    }
  }
  // 2. The commit itself must not add a file twice or delete and re-add one.
  {
    EntryMerger own;
    for (const ManifestEntry& e : delta) {
      Status st = own.Add(e);
      if (!st.ok()) {
        return Status::Conflict(
            "File deletion conflicts detected! Give up committing. The "
            "commit itself adds ",
            Where(e, schema, options), " twice or deletes and re-adds it. ", Users(context));
      }
    }
  }
  // 3. Every file the commit deletes is still live, and nothing it adds is live already.
  EntryMerger all;
  for (const ManifestEntry& e : base) {
    Status st = all.Add(e);
    if (!st.ok())
      return st.WithContext("live files of snapshot " + std::to_string(context.base_snapshot_id));
  }
  for (const ManifestEntry& e : delta) {
    Status st = all.Add(e);
    if (!st.ok()) {
      return Status::Conflict(
          "File deletion conflicts detected! Give up committing. The commit adds ",
          Where(e, schema, options), ", which is live already. ", Users(context));
    }
  }
  std::vector<ManifestEntry> merged = all.Take();
  for (const ManifestEntry& e : merged) {
    if (e.kind == FileKind::kDelete) {
      return Status::Conflict(
          "File deletion conflicts detected! Give up committing. Trying to delete ",
          Where(e, schema, options), ", which is not live in snapshot ", context.base_snapshot_id,
          " (another commit removed or rewrote it). ", Users(context));
    }
  }
  // 4. Sorted runs at level >= 1 do not overlap.
  return CheckKeyRanges(merged, schema, options, context);
}

}  // namespace fjord
