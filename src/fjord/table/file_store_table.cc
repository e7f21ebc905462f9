#include "fjord/table/file_store_table.h"

#include <arrow/api.h>

#include <arrow/compute/api.h>
#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

FileStoreTable::FileStoreTable(std::shared_ptr<FileIO> io, std::string path, TableSchema schema)
    : io_(io),
      path_(path),
      schema_(std::move(schema)),
      options_(Options::FromTable(schema_.EffectiveOptions())),
      snapshots_(io, path) {}

Result<std::unique_ptr<FileStoreTable>> FileStoreTable::Open(const std::string& path) {
  std::string root = path;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> io, FileIO::Open(root));
  return Open(root, std::move(io));
}

Result<std::unique_ptr<FileStoreTable>> FileStoreTable::Open(const std::string& path,
                                                             std::shared_ptr<FileIO> io) {
  std::string root = path;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  SnapshotManager sm(io, root);
  FJORD_ASSIGN_OR_RAISE(TableSchema schema, sm.LatestSchema());
  return std::unique_ptr<FileStoreTable>(new FileStoreTable(io, root, std::move(schema)));
}

Result<std::shared_ptr<const FileStoreTable>> FileStoreTable::WithDynamicOptions(
    const std::map<std::string, std::string>& dynamic) const {
  TableSchema schema = schema_;
  for (const auto& [key, value] : dynamic) {
    const OptionDef* def = FindOptionDef(key);
    if (def == nullptr) {
      return Status::Invalid("dynamic option '", key, "' is not a table option Fjord knows");
    }
    if (def->immutable) {
      return Status::Invalid("option '", key, "' is immutable and cannot be set for one job");
    }
    FJORD_RETURN_NOT_OK(ValidateOptionValue(key, value));
    auto it = std::find_if(schema.options.begin(), schema.options.end(),
                           [&](const auto& kv) { return kv.first == key; });
    if (it != schema.options.end()) {
      it->second = value;
    } else {
      schema.options.emplace_back(key, value);
    }
  }
  return std::shared_ptr<const FileStoreTable>(new FileStoreTable(io_, path_, std::move(schema)));
}

Result<std::pair<std::optional<Snapshot>, TableSchema>> FileStoreTable::Resolve(
    const ScanSelector& selector) const {
  TableScan scan(io_, path_, schema_);
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> snapshot, scan.ResolveSnapshot(selector));
  TableSchema schema = schema_;
  // Time travel reads with the travelled snapshot's own schema; the latest snapshot is read with
  // the table's latest schema, which may be newer (an ALTER TABLE without new data), as in Java.
  bool time_travel = selector.snapshot_id || selector.timestamp_millis || selector.tag;
  if (time_travel && snapshot && snapshot->schema_id != schema_.id) {
    FJORD_ASSIGN_OR_RAISE(schema, snapshots_.LoadSchema(snapshot->schema_id));
  }
  return std::make_pair(std::move(snapshot), std::move(schema));
}

Result<ScanPlan> FileStoreTable::Plan(const ScanSelector& selector,
                                      const std::string& where) const {
  FJORD_ASSIGN_OR_RAISE(auto resolved, Resolve(selector));
  auto& [snapshot, schema] = resolved;
  if (!snapshot) return ScanPlan{};
  std::optional<Predicate> filter;
  if (!where.empty()) {
    FJORD_ASSIGN_OR_RAISE(filter, Predicate::Parse(where, schema.fields));
  }
  TableScan scan(io_, path_, schema);
  return scan.Plan(*snapshot, filter ? &*filter : nullptr);
}

Result<ReadResult> FileStoreTable::Read(const ReadRequest& request) const {
  FJORD_ASSIGN_OR_RAISE(auto resolved, Resolve(request.selector));
  ReadResult result;
  result.snapshot = std::move(resolved.first);
  result.schema = std::move(resolved.second);
  const TableSchema& schema = result.schema;

  std::optional<Predicate> filter;
  if (!request.where.empty()) {
    FJORD_ASSIGN_OR_RAISE(filter, Predicate::Parse(request.where, schema.fields));
  }
  std::vector<int> projection;
  if (request.columns.empty()) {
    for (size_t i = 0; i < schema.fields.size(); ++i) projection.push_back(static_cast<int>(i));
  } else {
    for (const std::string& c : request.columns) {
      int i = schema.FieldIndex(c);
      if (i < 0) return Status::Invalid("unknown column '", c, "' in table ", path_);
      projection.push_back(i);
    }
  }
  for (int i : projection) result.fields.push_back(schema.fields[static_cast<size_t>(i)]);

  ScanPlan plan;
  if (result.snapshot) {
    TableScan scan(io_, path_, schema);
    FJORD_ASSIGN_OR_RAISE(plan, scan.Plan(*result.snapshot, filter ? &*filter : nullptr));
  }
  TableRead read(io_, path_, schema);
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Table> rows, read.ReadAll(plan.splits));
  if (filter) {
    FJORD_ARROW_ASSIGN_OR_RAISE(rows, rows->CombineChunks());
    FJORD_ARROW_ASSIGN_OR_RAISE(auto batch, rows->CombineChunksToBatch());
    FJORD_ASSIGN_OR_RAISE(auto mask, filter->Evaluate(*batch));
    FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum filtered, arrow::compute::Filter(rows, mask));
    rows = filtered.table();
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(result.rows, rows->SelectColumns(projection));
  return result;
}

}  // namespace fjord
