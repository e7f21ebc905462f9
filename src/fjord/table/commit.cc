#include "fjord/table/commit.h"

#include <chrono>

#include "fjord/common/ids.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/manifest_writer.h"
#include "fjord/meta/snapshot_manager.h"

namespace fjord {

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

FileStoreCommit::FileStoreCommit(std::shared_ptr<FileIO> io, std::string table_root,
                                 TableSchema schema, std::string commit_user)
    : io_(std::move(io)),
      root_(std::move(table_root)),
      schema_(std::move(schema)),
      commit_user_(std::move(commit_user)) {}

Result<bool> FileStoreCommit::AlreadyCommitted(int64_t identifier) const {
  // Java's filter-committed rule: scan back from the latest snapshot for this commit user; if
  // it committed this identifier or a later one, the messages are already in the table.
  SnapshotManager sm(io_, root_);
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, sm.LatestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, sm.EarliestId());
  if (!latest) return false;
  for (int64_t id = *latest; id >= earliest.value_or(1); --id) {
    Result<Snapshot> s = sm.Load(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;  // expired under us
      return s.status();
    }
    if (s->commit_user == commit_user_) return s->commit_identifier >= identifier;
  }
  return false;
}

Result<ManifestFileMeta> FileStoreCommit::WriteManifest(const std::vector<ManifestEntry>& entries) {
  TablePaths paths{root_};
  FJORD_ASSIGN_OR_RAISE(ManifestWriterOptions options,
                        ManifestWriterOptions::FromTableOptions(schema_.EffectiveOptions()));
  std::string name = "manifest-" + RandomUuid() + "-0";
  FJORD_ASSIGN_OR_RAISE(int64_t size,
                        WriteManifestFile(io_.get(), paths.ManifestFile(name), entries, options));
  ManifestFileMeta meta;
  meta.file_name = name;
  meta.file_size = size;
  std::vector<DataField> partition_fields = schema_.FieldsByName(schema_.partition_keys);
  std::vector<DataTypePtr> types;
  for (const DataField& f : partition_fields) types.push_back(f.type->WithNullable(true));
  std::vector<Value> mins(types.size()), maxs(types.size());
  std::vector<std::optional<int64_t>> nulls(types.size(), int64_t{0});
  for (const ManifestEntry& e : entries) {
    (e.kind == FileKind::kAdd ? meta.num_added_files : meta.num_deleted_files)++;
    meta.schema_id = std::max(meta.schema_id, e.file.schema_id);
    meta.min_bucket = meta.min_bucket ? std::min(*meta.min_bucket, e.bucket) : e.bucket;
    meta.max_bucket = meta.max_bucket ? std::max(*meta.max_bucket, e.bucket) : e.bucket;
    meta.min_level = meta.min_level ? std::min(*meta.min_level, e.file.level) : e.file.level;
    meta.max_level = meta.max_level ? std::max(*meta.max_level, e.file.level) : e.file.level;
    FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(e.partition, types));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].is_null()) {
        ++*nulls[i];
        continue;
      }
      if (mins[i].is_null() || CompareValues(values[i], mins[i], *types[i]) < 0)
        mins[i] = values[i];
      if (maxs[i].is_null() || CompareValues(values[i], maxs[i], *types[i]) > 0)
        maxs[i] = values[i];
    }
  }
  FJORD_ASSIGN_OR_RAISE(meta.partition_stats.min_values, EncodeStoredBinaryRow(mins, types));
  FJORD_ASSIGN_OR_RAISE(meta.partition_stats.max_values, EncodeStoredBinaryRow(maxs, types));
  meta.partition_stats.null_counts = nulls;
  return meta;
}

Result<int64_t> FileStoreCommit::TryCommitOnce(const std::vector<ManifestEntry>& entries,
                                               int64_t identifier, CommitKind kind,
                                               const std::optional<Snapshot>& latest) {
  TablePaths paths{root_};
  FJORD_ASSIGN_OR_RAISE(ManifestWriterOptions options,
                        ManifestWriterOptions::FromTableOptions(schema_.EffectiveOptions()));
  std::string format = schema_.Option("manifest.format").value_or("avro");
  // Base list: everything the previous snapshot had (its base and its delta); delta: this commit.
  std::vector<ManifestFileMeta> base;
  if (latest) {
    for (const std::string* list : {&latest->base_manifest_list, &latest->delta_manifest_list}) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> metas,
                            ReadManifestList(io_.get(), paths.ManifestFile(*list), format));
      base.insert(base.end(), metas.begin(), metas.end());
    }
  }
  std::vector<ManifestFileMeta> delta;
  if (!entries.empty()) {
    FJORD_ASSIGN_OR_RAISE(ManifestFileMeta m, WriteManifest(entries));
    delta.push_back(std::move(m));
  }
  std::string list_prefix = "manifest-list-" + RandomUuid() + "-";
  std::string base_name = list_prefix + "0", delta_name = list_prefix + "1";
  FJORD_ASSIGN_OR_RAISE(int64_t base_size,
                        WriteManifestList(io_.get(), paths.ManifestFile(base_name), base, options));
  FJORD_ASSIGN_OR_RAISE(
      int64_t delta_size,
      WriteManifestList(io_.get(), paths.ManifestFile(delta_name), delta, options));
  int64_t delta_records = 0;
  for (const ManifestEntry& e : entries) {
    delta_records += e.kind == FileKind::kAdd ? e.file.row_count : -e.file.row_count;
  }
  Snapshot s;
  s.id = latest ? latest->id + 1 : 1;
  s.schema_id = schema_.id;
  s.base_manifest_list = base_name;
  s.base_manifest_list_size = base_size;
  s.delta_manifest_list = delta_name;
  s.delta_manifest_list_size = delta_size;
  if (latest) s.index_manifest = latest->index_manifest;
  s.commit_user = commit_user_;
  s.commit_identifier = identifier;
  s.commit_kind = kind;
  s.time_millis = NowMillis();
  s.log_offsets = std::map<int32_t, int64_t>{};
  s.total_record_count = (latest ? latest->total_record_count.value_or(0) : 0) + delta_records;
  s.delta_record_count = delta_records;
  if (latest && latest->watermark) s.watermark = latest->watermark;
  s.next_row_id = latest ? latest->next_row_id.value_or(0) : 0;
  Status st = io_->CreateIfAbsent(paths.SnapshotFile(s.id), s.ToJson());
  if (!st.ok()) {
    // The lists and manifest are unreferenced now; a retry writes fresh ones.
    (void)io_->Delete(paths.ManifestFile(base_name));
    (void)io_->Delete(paths.ManifestFile(delta_name));
    for (const ManifestFileMeta& m : delta) (void)io_->Delete(paths.ManifestFile(m.file_name));
    return st;
  }
  (void)io_->Overwrite(paths.LatestHint(), std::to_string(s.id));  // a hint: best effort
  return s.id;
}

Result<std::optional<int64_t>> FileStoreCommit::Commit(const std::vector<CommitMessage>& messages,
                                                       int64_t identifier, CommitKind kind) {
  FJORD_ASSIGN_OR_RAISE(bool done, AlreadyCommitted(identifier));
  if (done) return std::optional<int64_t>();
  std::vector<ManifestEntry> entries;
  for (const CommitMessage& m : messages) {
    for (const DataFileMeta& f : m.deleted_files) {
      entries.push_back(
          ManifestEntry{FileKind::kDelete, m.partition, m.bucket, m.total_buckets, f});
    }
    for (const DataFileMeta& f : m.new_files) {
      entries.push_back(ManifestEntry{FileKind::kAdd, m.partition, m.bucket, m.total_buckets, f});
    }
  }
  int64_t max_retries = 10;
  if (auto v = schema_.Option("commit.max-retries")) max_retries = std::stoll(*v);
  SnapshotManager sm(io_, root_);
  Status last;
  for (int64_t attempt = 0; attempt <= max_retries; ++attempt) {
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, sm.Latest());
    Result<int64_t> id = TryCommitOnce(entries, identifier, kind, latest);
    if (id.ok()) return std::optional<int64_t>(*id);
    if (!id.status().IsAlreadyExists()) return id.status();
    last = id.status();  // another committer took this snapshot id: retry on top of it
    FJORD_ASSIGN_OR_RAISE(bool now_done, AlreadyCommitted(identifier));
    if (now_done) return std::optional<int64_t>();
  }
  return Status::Conflict("commit of identifier ", identifier, " lost the race for a snapshot id ",
                          max_retries + 1, " times: ", last.message());
}

}  // namespace fjord
