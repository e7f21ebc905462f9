#include "fjord/table/compact/table_stats.h"

#include <algorithm>
#include <map>

#include "fjord/expr/partition_text.h"
#include "fjord/format/binary_row.h"
#include "fjord/lsm/key_value.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/write/append_compact.h"

namespace fjord {

namespace {

using BucketKey = std::pair<std::string, int32_t>;  // stored partition, bucket

// ADD and DELETE entries of one snapshot's delta manifests.
Result<std::vector<ManifestEntry>> DeltaEntries(const FileStoreTable& table,
                                                const Snapshot& snapshot,
                                                const std::string& format) {
  TablePaths paths{table.path()};
  FJORD_ASSIGN_OR_RAISE(
      std::vector<ManifestFileMeta> manifests,
      ReadManifestList(table.io().get(), paths.ManifestFile(snapshot.delta_manifest_list), format));
  std::vector<ManifestEntry> out;
  for (const ManifestFileMeta& m : manifests) {
    FJORD_ASSIGN_OR_RAISE(
        std::vector<ManifestEntry> entries,
        ReadManifestFile(table.io().get(), paths.ManifestFile(m.file_name), format));
    out.insert(out.end(), std::make_move_iterator(entries.begin()),
               std::make_move_iterator(entries.end()));
  }
  return out;
}

}  // namespace

Result<TableStats> ComputeTableStats(const FileStoreTable& table, const PartitionSpec& partition) {
  const TableSchema& schema = table.schema();
  TableStats stats;
  stats.primary_key = !schema.primary_keys.empty();
  const CoreOptions& options = table.core_options();
  FJORD_ASSIGN_OR_RAISE(PartitionFilter filter,
                        PartitionFilter::OfSpecs({partition}, schema, options));
  const std::string& format = options.manifest_format();
  std::map<BucketKey, BucketStats> buckets;
  auto bucket_of = [&](const std::string& partition, int32_t bucket) -> BucketStats& {
    BucketStats& b = buckets[{partition, bucket}];
    b.partition = partition;
    b.bucket = bucket;
    return b;
  };

  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table.snapshots().Latest());
  if (!latest) return stats;
  stats.snapshot_id = latest->id;
  TableScan scan(table.io(), table.path(), schema);
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> live, scan.LiveEntries(*latest, nullptr));
  std::map<BucketKey, std::vector<DataFileMeta>> files;
  for (ManifestEntry& e : live) files[{e.partition, e.bucket}].push_back(std::move(e.file));

  int32_t max_level = 0;
  if (stats.primary_key) {
    FJORD_ASSIGN_OR_RAISE(UniversalCompactionOptions universal,
                          UniversalCompactionOptions::FromOptions(options));
    max_level = universal.num_levels - 1;
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema, options));
    std::vector<DataTypePtr> key_types;
    for (int k : layout.key_columns)
      key_types.push_back(schema.fields[static_cast<size_t>(k)].type);
    for (const auto& [key, list] : files) {
      FJORD_ASSIGN_OR_RAISE(Levels levels, Levels::Make(key_types, universal.num_levels, list));
      FillLevelMetrics(levels, universal, &bucket_of(key.first, key.second).lsm);
    }
  } else {
    FJORD_ASSIGN_OR_RAISE(AppendCompactOptions append, AppendCompactOptions::FromOptions(options));
    for (const auto& [key, list] : files) {
      BucketStats& b = bucket_of(key.first, key.second);
      for (const DataFileMeta& f : list) {
        if (f.file_size < append.compaction_file_size) {
          b.small_files++;
          b.small_bytes += f.file_size;
        }
      }
    }
  }

  // Compaction history: every retained COMPACT snapshot, per bucket.
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, table.snapshots().ListIds());
  for (int64_t id : ids) {
    Result<Snapshot> snapshot = table.snapshots().Load(id);
    if (!snapshot.ok()) {
      if (snapshot.status().IsNotFound()) continue;  // expired meanwhile
      return snapshot.status();
    }
    if (snapshot->commit_kind != CommitKind::kCompact) {
      stats.snapshots_read++;
      continue;
    }
    Result<std::vector<ManifestEntry>> delta = DeltaEntries(table, *snapshot, format);
    if (!delta.ok()) {
      // Expiration deletes a snapshot's manifests before its file: an older snapshot whose
      // manifests are gone is being expired meanwhile (e.g. by `fjord compact --follow` beside
      // the writers) and is skipped as if already gone. The latest one is never expired.
      if (delta.status().IsNotFound() && id < latest->id) continue;
      return delta.status();
    }
    stats.snapshots_read++;
    stats.compact_snapshots++;
    const std::vector<ManifestEntry>& entries = *delta;
    std::map<BucketKey, int32_t> output_level;
    for (const ManifestEntry& e : entries) {
      BucketCompactionMetrics& m = bucket_of(e.partition, e.bucket).lsm;
      int32_t& level = output_level[{e.partition, e.bucket}];
      if (e.kind == FileKind::kAdd) {
        m.files_out++;
        m.bytes_out += e.file.file_size;
        level = std::max(level, e.file.level);
      } else {
        m.files_in++;
        m.bytes_in += e.file.file_size;
      }
    }
    for (const auto& [key, level] : output_level) {
      BucketCompactionMetrics& m = bucket_of(key.first, key.second).lsm;
      m.compactions++;
      if (stats.primary_key && level == max_level) m.full_compactions++;
    }
  }

  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> partition_types;
  for (const DataField& f : partition_fields) partition_types.push_back(f.type->WithNullable(true));
  const std::string& default_name = options.partition_default_name();
  for (auto& [key, b] : buckets) {
    auto it = files.find(key);
    if (it != files.end()) {
      b.files = static_cast<int64_t>(it->second.size());
      for (const DataFileMeta& f : it->second) b.rows += f.row_count;
    }
    if (!partition_fields.empty()) {
      FJORD_ASSIGN_OR_RAISE(std::vector<Value> values,
                            DecodeStoredBinaryRow(b.partition, partition_types));
      b.partition_text = PartitionText(partition_fields, values, default_name);
    }
    FJORD_ASSIGN_OR_RAISE(bool selected, filter.Contains(b.partition));
    if (selected) stats.buckets.push_back(std::move(b));
  }
  std::sort(stats.buckets.begin(), stats.buckets.end(),
            [](const BucketStats& a, const BucketStats& b) {
              return std::tie(a.partition_text, a.bucket) < std::tie(b.partition_text, b.bucket);
            });
  return stats;
}

}  // namespace fjord
