// The public Table: a handle on a FileStoreTable that hands out the operations.

#include "fjord/table.h"

#include "fjord/table/maintain/tags.h"

#include "fjord/expr/partition_text.h"
#include "fjord/meta/snapshot.h"
#include "fjord/table/compact/table_stats.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

namespace {

SnapshotInfo Info(const Snapshot& s) {
  SnapshotInfo info;
  info.id = s.id;
  info.schema_id = s.schema_id;
  info.commit_kind = std::string(CommitKindName(s.commit_kind));
  info.commit_user = s.commit_user;
  info.commit_identifier = s.commit_identifier;
  info.time_millis = s.time_millis;
  info.total_record_count = s.total_record_count;
  info.delta_record_count = s.delta_record_count;
  info.changelog_record_count = s.changelog_record_count;
  info.watermark = s.watermark;
  return info;
}

}  // namespace

Table::Table(std::shared_ptr<const FileStoreTable> store) : store_(std::move(store)) {}
Table::~Table() = default;

Result<std::unique_ptr<Table>> Table::Open(const std::string& path,
                                           const std::map<std::string, std::string>& options) {
  std::string root = path;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> io, FileIO::Open(root, options));
  return Open(root, std::move(io));
}

Result<std::unique_ptr<Table>> Table::Open(const std::string& path, std::shared_ptr<FileIO> io) {
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<FileStoreTable> store,
                        FileStoreTable::Open(path, std::move(io)));
  return std::unique_ptr<Table>(new Table(std::shared_ptr<const FileStoreTable>(std::move(store))));
}

const std::string& Table::path() const { return store_->path(); }
const TableSchema& Table::schema() const { return store_->schema(); }
const Options& Table::options() const { return store_->options(); }
const std::shared_ptr<FileIO>& Table::io() const { return store_->io(); }

Result<std::vector<SnapshotInfo>> Table::Snapshots() const {
  const SnapshotManager& sm = store_->snapshots();
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, sm.ListIds());
  std::vector<SnapshotInfo> out;
  out.reserve(ids.size());
  for (int64_t id : ids) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, sm.Load(id));
    out.push_back(Info(s));
  }
  return out;
}

Result<std::optional<SnapshotInfo>> Table::LatestSnapshot() const {
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, store_->snapshots().Latest());
  if (!latest) return std::optional<SnapshotInfo>();
  return std::optional<SnapshotInfo>(Info(*latest));
}

Result<std::vector<TagInfo>> Table::Tags() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(*store_));
  std::vector<TagInfo> out;
  for (const TagEntry& t : tags) {
    TagInfo info{t.name, Info(t.snapshot), std::nullopt, std::nullopt};
    if (t.create_time) info.create_time = t.create_time->ToString();
    if (t.time_retained) info.time_retained_millis = t.time_retained->ToMillis();
    out.push_back(std::move(info));
  }
  return out;
}

Status Table::CheckPartitionSpec(const PartitionSpec& partition) const {
  const TableSchema& s = store_->schema();
  Result<Predicate> p = PartitionSpecPredicate(partition, s.FieldsByName(s.partition_keys),
                                               store_->core_options().partition_default_name());
  if (!p.ok()) return p.status().WithContext("partition spec");
  return Status::OK();
}

Result<TableStats> Table::Stats(const PartitionSpec& partition) const {
  return ComputeTableStats(*store_, partition);
}

ReadBuilder Table::NewRead() const { return ReadBuilder(store_); }

}  // namespace fjord
