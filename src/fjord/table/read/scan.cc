#include "fjord/table/read/scan.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "fjord/common/executor.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/partition_path.h"
#include "fjord/meta/snapshot_manager.h"

namespace fjord {

namespace {

// Java identifies a file in manifests by these parts (spec/format.md §4.8).
using FileIdentifier =
    std::tuple<std::string, int32_t, int32_t, std::string, std::vector<std::string>,
               std::optional<std::string>, std::optional<std::string>>;

FileIdentifier IdentifierOf(const ManifestEntry& e) {
  return {e.partition,         e.bucket,           e.file.level,
          e.file.file_name,    e.file.extra_files, e.file.embedded_index,
          e.file.external_path};
}

std::vector<DataTypePtr> TypesOf(const std::vector<DataField>& fields) {
  std::vector<DataTypePtr> out;
  for (const DataField& f : fields) out.push_back(f.type->WithNullable(true));
  return out;
}

Result<std::vector<Value>> DecodeStoredRow(const std::string& stored,
                                           const std::vector<DataTypePtr>& types,
                                           const std::string& what) {
  Result<std::pair<int32_t, std::string_view>> split = SplitArityPrefix(stored);
  if (!split.ok()) return split.status().WithContext(what);
  if (split->first != static_cast<int32_t>(types.size())) {
    return Status::Corruption(what, ": row has arity ", split->first, ", expected ", types.size());
  }
  Result<std::vector<Value>> values = DecodeBinaryRow(split->second, types);
  if (!values.ok()) return values.status().WithContext(what);
  return values;
}

// Whether the stored partition row passes `filter` (a predicate on partition columns only).
Result<bool> PartitionPasses(const std::string& stored, const std::vector<DataField>& fields,
                             const std::vector<DataTypePtr>& types, const Predicate& filter,
                             const std::string& what) {
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredRow(stored, types, what));
  auto lookup = [&](const std::string& name) -> const Value* {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == name) return &values[i];
    }
    return nullptr;
  };
  return filter.Test(lookup);
}

// Statistics of a SimpleStats row for the named columns.
struct StatsView {
  std::map<std::string, ColumnStats> columns;
};

Result<StatsView> DecodeStats(const SimpleStats& stats, const std::vector<DataField>& fields,
                              const std::string& what) {
  StatsView view;
  std::vector<DataTypePtr> types = TypesOf(fields);
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> mins, DecodeStoredRow(stats.min_values, types, what));
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> maxs, DecodeStoredRow(stats.max_values, types, what));
  for (size_t i = 0; i < fields.size(); ++i) {
    ColumnStats cs;
    if (!mins[i].is_null()) cs.min = mins[i];
    if (!maxs[i].is_null()) cs.max = maxs[i];
    if (stats.null_counts && i < stats.null_counts->size()) cs.null_count = (*stats.null_counts)[i];
    view.columns[fields[i].name] = std::move(cs);
  }
  return view;
}

Result<bool> FileMayMatch(const DataFileMeta& file, const Predicate& filter, bool pk,
                          const std::vector<DataField>& key_fields, const TableSchema& read_schema,
                          SnapshotManager* schemas, std::map<int64_t, TableSchema>* cache) {
  std::map<std::string, ColumnStats> columns;
  if (pk) {
    Result<StatsView> view =
        DecodeStats(file.key_stats, key_fields, "key statistics of " + file.file_name);
    if (!view.ok()) return true;  // statistics we cannot read never prune
    columns = std::move(view->columns);
  } else {
    auto it = cache->find(file.schema_id);
    if (it == cache->end()) {
      FJORD_ASSIGN_OR_RAISE(TableSchema s, schemas->LoadSchema(file.schema_id));
      it = cache->emplace(file.schema_id, std::move(s)).first;
    }
    const TableSchema& file_schema = it->second;
    std::vector<DataField> stats_fields;
    if (file.value_stats_cols) {
      for (const std::string& name : *file.value_stats_cols) {
        const DataField* f = file_schema.FindField(name);
        if (f == nullptr) return true;  // names we cannot place: do not prune
        stats_fields.push_back(*f);
      }
    } else {
      stats_fields = file_schema.fields;
    }
    Result<StatsView> decoded =
        DecodeStats(file.value_stats, stats_fields, "value statistics of " + file.file_name);
    if (!decoded.ok()) return true;  // statistics we cannot read never prune
    StatsView& view = *decoded;
    // Map the file's columns to the read schema by field id; skip columns whose type changed.
    for (const DataField& sf : stats_fields) {
      for (const DataField& rf : read_schema.fields) {
        if (rf.id == sf.id && rf.type->EqualsIgnoreNullable(*sf.type)) {
          columns[rf.name] = view.columns[sf.name];
        }
      }
    }
  }
  auto lookup = [&](const std::string& name) -> const ColumnStats* {
    auto it = columns.find(name);
    return it == columns.end() ? nullptr : &it->second;
  };
  return filter.MayMatch(lookup, file.row_count);
}

// Literal values a filter pins `column` to through top-level AND-ed `=` and `IN` leaves.
std::optional<std::vector<Value>> PinnedValues(const Predicate& p, const std::string& column) {
  if (p.op == PredicateOp::kAnd) {
    for (const Predicate& c : p.children) {
      if (auto v = PinnedValues(c, column)) return v;
    }
    return std::nullopt;
  }
  if (p.IsLeaf() && p.field == column && (p.op == PredicateOp::kEq || p.op == PredicateOp::kIn)) {
    return p.literals;
  }
  return std::nullopt;
}

// The buckets (of `total_buckets`) that can hold rows matching `filter`, or nullopt when the
// filter does not pin every bucket-key column.
Result<std::optional<std::set<int32_t>>> CandidateBuckets(const Predicate& filter,
                                                          const std::vector<DataField>& bucket_keys,
                                                          int32_t total_buckets) {
  if (bucket_keys.empty() || total_buckets <= 0) return std::optional<std::set<int32_t>>();
  std::vector<std::vector<Value>> choices;
  size_t combinations = 1;
  for (const DataField& k : bucket_keys) {
    auto pinned = PinnedValues(filter, k.name);
    if (!pinned || pinned->empty()) return std::optional<std::set<int32_t>>();
    combinations *= pinned->size();
    if (combinations > 1024) return std::optional<std::set<int32_t>>();
    choices.push_back(*pinned);
  }
  std::vector<DataTypePtr> types;
  for (const DataField& k : bucket_keys) types.push_back(k.type);
  std::set<int32_t> buckets;
  std::vector<size_t> idx(choices.size(), 0);
  while (true) {
    std::vector<Value> row;
    for (size_t i = 0; i < choices.size(); ++i) row.push_back(choices[i][idx[i]]);
    FJORD_ASSIGN_OR_RAISE(std::string bytes, EncodeBinaryRow(row, types));
    buckets.insert(BucketOf(bytes, total_buckets));
    size_t i = 0;
    while (i < idx.size() && ++idx[i] == choices[i].size()) idx[i++] = 0;
    if (i == idx.size()) break;
  }
  return std::optional<std::set<int32_t>>(std::move(buckets));
}

}  // namespace

int64_t CreationEpochMillis(const DataFileMeta& file) {
  // The stored creation time is a local date-time without zone; Java places it in the JVM's
  // default zone (DataFileMeta#creationTimeEpochMillis). The process's zone plays that part.
  return file.creation_time_millis ? LocalMillisToEpochMillis(*file.creation_time_millis) : 0;
}

Result<std::optional<Snapshot>> TableScan::ResolveSnapshot(const ScanSelector& selector) const {
  SnapshotManager sm(io_, root_);
  if (selector.tag) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, sm.LoadTag(*selector.tag));
    return std::optional<Snapshot>(std::move(s));
  }
  if (selector.snapshot_id) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, sm.Load(*selector.snapshot_id));
    return std::optional<Snapshot>(std::move(s));
  }
  if (selector.timestamp_millis) {
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> s,
                          sm.LatestAtOrBefore(*selector.timestamp_millis));
    if (!s) {
      // As Java: time travel before the first snapshot is an error, not an empty table.
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, sm.EarliestId());
      std::string detail = "the table has no snapshots";
      if (earliest) {
        FJORD_ASSIGN_OR_RAISE(Snapshot first, sm.Load(*earliest));
        detail = "the earliest snapshot's time is " + std::to_string(first.time_millis);
      }
      return Status::NotFound("no snapshot earlier than or equal to timestamp ",
                              *selector.timestamp_millis, "; ", detail);
    }
    return s;
  }
  return sm.Latest();
}

Result<std::vector<ManifestEntry>> TableScan::LiveEntries(const Snapshot& snapshot,
                                                          const Predicate* partition_filter) const {
  return LiveEntries(snapshot, partition_filter, ScanKind::kAll);
}

Result<std::vector<ManifestEntry>> TableScan::LiveEntries(
    const Snapshot& snapshot, const Predicate* partition_filter, ScanKind kind,
    std::vector<ManifestEntry>* deleted) const {
  TablePaths paths{root_};
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema_));
  const std::string& format = options.manifest_format();
  std::vector<const std::string*> lists;
  switch (kind) {
    case ScanKind::kAll:
      lists = {&snapshot.base_manifest_list, &snapshot.delta_manifest_list};
      break;
    case ScanKind::kDelta:
      lists = {&snapshot.delta_manifest_list};
      break;
    case ScanKind::kChangelog:
      if (snapshot.changelog_manifest_list) lists = {&*snapshot.changelog_manifest_list};
      break;
  }
  std::vector<ManifestFileMeta> manifests;
  for (const std::string* list : lists) {
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> metas,
                          ReadManifestList(io_.get(), paths.ManifestFile(*list), format));
    manifests.insert(manifests.end(), metas.begin(), metas.end());
  }
  std::vector<DataField> partition_fields = schema_.FieldsByName(schema_.partition_keys);
  std::vector<std::string> kept;  // the manifests the partition filter keeps, in order
  for (const ManifestFileMeta& m : manifests) {
    std::string path = paths.ManifestFile(m.file_name);
    if (partition_filter != nullptr && !partition_fields.empty()) {
      FJORD_ASSIGN_OR_RAISE(StatsView stats,
                            DecodeStats(m.partition_stats, partition_fields, path));
      auto lookup = [&](const std::string& name) -> const ColumnStats* {
        auto it = stats.columns.find(name);
        return it == stats.columns.end() ? nullptr : &it->second;
      };
      if (!partition_filter->MayMatch(lookup, m.num_added_files + m.num_deleted_files)) continue;
    }
    kept.push_back(std::move(path));
  }
  // Planning a table of many files is mostly decoding manifests: they are read at once on up to
  // `scan.manifest.parallelism` threads (default: one per core), a window of a few per thread at
  // a time, and folded in their order.
  int threads = std::min<int>(options.scan_manifest_parallelism().value_or(DefaultThreads()),
                              static_cast<int>(kept.size()));
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) pool = std::make_unique<ThreadPool>(threads - 1);
  const size_t window = static_cast<size_t>(std::max(threads, 1)) * 4;
  const bool test_partitions = partition_filter != nullptr && !partition_fields.empty();
  std::vector<DataTypePtr> partition_types = TypesOf(partition_fields);
  std::vector<std::vector<ManifestEntry>> read;
  std::map<FileIdentifier, size_t> live;  // identifier -> index in `entries`
  std::vector<std::optional<ManifestEntry>> entries;
  for (size_t m = 0; m < kept.size(); ++m) {
    if (m % window == 0) {
      size_t n = std::min(window, kept.size() - m);
      read.assign(n, {});
      FJORD_RETURN_NOT_OK(ParallelFor(pool.get(), n, [&](size_t i) -> Status {
        if (!test_partitions) {
          FJORD_ASSIGN_OR_RAISE(read[i], ReadManifestFile(io_.get(), kept[m + i], format));
          return Status::OK();
        }
        // Entries of other partitions are skipped as they are decoded; a partition that does not
        // decode is kept, for the plan to report.
        std::unordered_map<std::string, bool> matches;
        std::function<bool(const std::string&)> keep = [&](const std::string& partition) {
          auto [it, fresh] = matches.try_emplace(partition, true);
          if (fresh) {
            Result<bool> passes = PartitionPasses(partition, partition_fields, partition_types,
                                                  *partition_filter, "partition");
            it->second = !passes.ok() || *passes;
          }
          return it->second;
        };
        FJORD_ASSIGN_OR_RAISE(read[i], ReadManifestFile(io_.get(), kept[m + i], format, &keep));
        return Status::OK();
      }));
    }
    const std::string& path = kept[m];
    std::vector<ManifestEntry> file_entries = std::move(read[m % window]);
    for (ManifestEntry& e : file_entries) {
      FileIdentifier id = IdentifierOf(e);
      if (e.kind == FileKind::kAdd) {
        if (live.count(id)) {
          return Status::Corruption(path, ": file ", e.file.file_name, " is added twice");
        }
        live[id] = entries.size();
        entries.push_back(std::move(e));
      } else {
        auto it = live.find(id);
        if (it != live.end()) {
          entries[it->second].reset();
          live.erase(it);
        } else if (deleted != nullptr) {
          deleted->push_back(std::move(e));
        }
        // A DELETE whose ADD is in a manifest pruned above, or was already folded away, needs
        // no bookkeeping: entries are only ever live once.
      }
    }
  }
  std::vector<ManifestEntry> out;
  for (auto& e : entries) {
    if (e) out.push_back(std::move(*e));
  }
  return out;
}

Result<ScanPlan> TableScan::Plan(const Snapshot& snapshot, const Predicate* filter) const {
  return Plan(snapshot, filter, PlanOptions{});
}

Result<ScanPlan> TableScan::Plan(const Snapshot& snapshot, const Predicate* filter,
                                 const PlanOptions& plan_options) const {
  ScanPlan plan;
  plan.snapshot = snapshot;
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema_));
  std::vector<DataField> partition_fields = schema_.FieldsByName(schema_.partition_keys);
  std::optional<Predicate> partition_filter;
  if (filter != nullptr) partition_filter = filter->Restrict(schema_.partition_keys);
  bool streaming = plan_options.kind != ScanKind::kAll;
  bool changes = plan_options.changes && plan_options.kind == ScanKind::kDelta;
  std::vector<ManifestEntry> deleted;
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries,
                        LiveEntries(snapshot, partition_filter ? &*partition_filter : nullptr,
                                    plan_options.kind, changes ? &deleted : nullptr));
  size_t added = entries.size();
  for (ManifestEntry& e : deleted) entries.push_back(std::move(e));

  const std::string& default_name = options.partition_default_name();
  std::map<std::pair<std::string, int32_t>, DataSplit> splits;
  std::vector<DataTypePtr> partition_types = TypesOf(partition_fields);
  bool pk = !schema_.primary_keys.empty();
  std::vector<DataField> bucket_key_fields = schema_.FieldsByName(schema_.BucketKeys());
  if (options.bucket_function_type() != "default") {
    bucket_key_fields.clear();  // only the default (murmur) bucket function is replicated here
  }
  std::map<int32_t, std::optional<std::set<int32_t>>> buckets_by_total;
  std::vector<DataField> key_fields = schema_.FieldsByName(schema_.TrimmedPrimaryKeys());
  SnapshotManager schemas(io_, root_);
  std::map<int64_t, TableSchema> file_schemas;
  std::unordered_map<std::string, bool> partition_matches;  // stored partition -> kept
  for (size_t n = 0; n < entries.size(); ++n) {
    ManifestEntry& e = entries[n];
    if (plan_options.min_level && e.file.level < *plan_options.min_level) continue;
    if (plan_options.max_level && e.file.level > *plan_options.max_level) continue;
    if (plan_options.min_creation_millis &&
        CreationEpochMillis(e.file) < *plan_options.min_creation_millis) {
      continue;
    }
    if (partition_filter) {
      // The partition first, once per partition: most entries of a plan that names a partition
      // are in others, and their statistics need not be decoded.
      auto [pm, fresh] = partition_matches.try_emplace(e.partition, false);
      if (fresh) {
        FJORD_ASSIGN_OR_RAISE(
            pm->second, PartitionPasses(e.partition, partition_fields, partition_types,
                                        *partition_filter, "partition of " + e.file.file_name));
      }
      if (!pm->second) continue;
    }
    if (filter != nullptr) {
      // Bucket pruning: equality on every bucket-key column names the only possible buckets.
      auto bt = buckets_by_total.find(e.total_buckets);
      if (bt == buckets_by_total.end()) {
        FJORD_ASSIGN_OR_RAISE(auto candidates,
                              CandidateBuckets(*filter, bucket_key_fields, e.total_buckets));
        bt = buckets_by_total.emplace(e.total_buckets, std::move(candidates)).first;
      }
      if (bt->second && !bt->second->count(e.bucket)) continue;
      // File pruning by statistics: key statistics for primary-key tables (a newer version of a
      // row may sit in another file, so value statistics would be unsafe), value statistics for
      // append tables.
      FJORD_ASSIGN_OR_RAISE(bool may_match, FileMayMatch(e.file, *filter, pk, key_fields, schema_,
                                                         &schemas, &file_schemas));
      if (!may_match) continue;
    }
    auto key = std::make_pair(e.partition, e.bucket);
    auto it = splits.find(key);
    if (it == splits.end()) {
      DataSplit split;
      split.partition = e.partition;
      split.bucket = e.bucket;
      split.total_buckets = e.total_buckets;
      split.streaming = streaming;
      split.overwrite_changes = changes;
      FJORD_ASSIGN_OR_RAISE(
          split.partition_values,
          DecodeStoredRow(e.partition, partition_types, "partition of " + e.file.file_name));
      std::string dir = root_;
      std::string ppath = PartitionPath(partition_fields, split.partition_values, default_name);
      if (!ppath.empty()) dir = JoinPath(dir, ppath);
      split.bucket_path = JoinPath(dir, "bucket-" + std::to_string(e.bucket));
      it = splits.emplace(key, std::move(split)).first;
    }
    (n < added ? it->second.files : it->second.before_files).push_back(std::move(e.file));
  }

  // Deletion vectors: of this snapshot for a full plan; of the snapshot and the one before for
  // the changes of an OVERWRITE. The files of delta and changelog plans are read whole.
  if (!streaming || changes) {
    FJORD_ASSIGN_OR_RAISE(auto dvs, DeletionFiles(snapshot));
    for (auto& [key, files] : dvs) {
      auto it = splits.find(key);
      if (it != splits.end()) it->second.deletion_files = std::move(files);
    }
  }
  if (changes && snapshot.id > 1) {
    SnapshotManager sm(io_, root_);
    FJORD_ASSIGN_OR_RAISE(Snapshot before, sm.Load(snapshot.id - 1));
    FJORD_ASSIGN_OR_RAISE(auto dvs, DeletionFiles(before));
    for (auto& [key, files] : dvs) {
      auto it = splits.find(key);
      if (it != splits.end()) it->second.before_deletion_files = std::move(files);
    }
  }
  for (auto& [key, split] : splits) plan.splits.push_back(std::move(split));
  return plan;
}

Result<std::map<std::pair<std::string, int32_t>, std::map<std::string, DeletionFile>>>
TableScan::DeletionFiles(const Snapshot& snapshot) const {
  std::map<std::pair<std::string, int32_t>, std::map<std::string, DeletionFile>> out;
  if (!snapshot.index_manifest) return out;
  TablePaths paths{root_};
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema_));
  FJORD_ASSIGN_OR_RAISE(std::vector<IndexManifestEntry> index,
                        ReadIndexManifest(io_.get(), paths.ManifestFile(*snapshot.index_manifest),
                                          options.manifest_format()));
  for (const IndexManifestEntry& ie : index) {
    if (ie.kind != FileKind::kAdd || ie.index_type != "DELETION_VECTORS" || !ie.dv_ranges) {
      continue;
    }
    std::string index_path = ie.external_path ? *ie.external_path : paths.IndexFile(ie.file_name);
    auto& files = out[{ie.partition, ie.bucket}];
    for (const DeletionVectorMeta& dv : *ie.dv_ranges) {
      files[dv.data_file_name] = DeletionFile{index_path, dv.offset, dv.length, dv.cardinality};
    }
  }
  return out;
}

}  // namespace fjord
