#include "fjord/table/file_store_table.h"

#include <arrow/api.h>

#include <arrow/compute/api.h>
#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/expr/partition_text.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

FileStoreTable::FileStoreTable(std::shared_ptr<FileIO> io, std::string path, TableSchema schema,
                               CoreOptions core_options)
    : io_(io),
      path_(path),
      schema_(std::move(schema)),
      core_options_(std::move(core_options)),
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
  Result<CoreOptions> core = CoreOptions::Make(schema);
  if (!core.ok()) return core.status().WithContext("table ", root);
  return std::unique_ptr<FileStoreTable>(
      new FileStoreTable(io, root, std::move(schema), std::move(core).value()));
}

Result<std::shared_ptr<const FileStoreTable>> FileStoreTable::WithDynamicOptions(
    const std::map<std::string, std::string>& dynamic) const {
  TableSchema schema = schema_;
  for (const auto& [key, value] : dynamic) {
    const OptionDef* def = FindOptionDef(key);
    if (def == nullptr) {
      std::optional<std::string> near = SuggestOptionKey(key);
      return Status::Invalid("dynamic option '", key, "' is not a table option Fjord knows",
                             near ? "; did you mean '" + *near + "'?" : std::string());
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
  FJORD_ASSIGN_OR_RAISE(CoreOptions core, CoreOptions::Make(schema));
  return std::shared_ptr<const FileStoreTable>(
      new FileStoreTable(io_, path_, std::move(schema), std::move(core)));
}

Status FileStoreTable::CheckOptions(OptionUse use,
                                    const std::map<std::string, std::string>& dynamic) const {
  std::map<std::string, std::string> options = schema_.EffectiveOptions();
  for (const auto& [key, value] : dynamic) options[key] = value;
  Status st = fjord::CheckOptions(options, use);
  if (!st.ok()) return st.WithContext("table ", path_);
  return st;
}

Result<std::pair<std::optional<Snapshot>, TableSchema>> FileStoreTable::Resolve(
    const ScanSelector& selector) const {
  FJORD_ASSIGN_OR_RAISE(ResolvedRead resolved, ResolveRead(selector));
  return std::make_pair(std::move(resolved.snapshot), std::move(resolved.schema));
}

Result<FileStoreTable::ResolvedRead> FileStoreTable::ResolveRead(
    const ScanSelector& selector) const {
  ResolvedRead out;
  out.schema = schema_;
  bool time_travel = selector.snapshot_id || selector.timestamp_millis || selector.tag;
  if (time_travel) {
    TableScan scan(io_, path_, schema_);
    FJORD_ASSIGN_OR_RAISE(out.snapshot, scan.ResolveSnapshot(selector));
  } else {
    // The scan.* options choose the snapshot (Java's static starting scanners).
    FJORD_ASSIGN_OR_RAISE(
        ScanStartOptions start,
        ScanStartOptions::Make(options(), core_options_, !schema_.primary_keys.empty()));
    if (start.mode == StartupMode::kIncremental) {
      out.incremental = true;
      FJORD_ASSIGN_OR_RAISE(out.range, ResolveIncremental(snapshots_, options(), core_options_));
      if (out.range && out.range->diff_to) {
        out.snapshot = out.range->diff_to;
      } else if (out.range && out.range->end >= 1) {
        FJORD_ASSIGN_OR_RAISE(Snapshot end, snapshots_.Load(out.range->end));
        out.snapshot = std::move(end);
      }
      return out;
    }
    FJORD_ASSIGN_OR_RAISE(BatchStart batch, ResolveBatchStart(snapshots_, start, core_options_));
    out.snapshot = std::move(batch.snapshot);
    out.plan = batch.plan;
    time_travel =
        start.mode == StartupMode::kFromSnapshot || start.mode == StartupMode::kFromSnapshotFull ||
        start.mode == StartupMode::kFromTimestamp ||
        (start.mode == StartupMode::kFromCreationTimestamp && !batch.plan.min_creation_millis);
  }
  // Time travel reads with the travelled snapshot's own schema; the latest snapshot is read with
  // the table's latest schema, which may be newer (an ALTER TABLE without new data), as in Java.
  if (time_travel && out.snapshot && out.snapshot->schema_id != schema_.id) {
    FJORD_ASSIGN_OR_RAISE(out.schema, snapshots_.LoadSchema(out.snapshot->schema_id));
  }
  return out;
}

Result<std::optional<Predicate>> FileStoreTable::ReadFilter(const TableSchema& schema,
                                                            const std::string& where,
                                                            const PartitionSpec& partition) const {
  std::vector<Predicate> parts;
  if (!where.empty()) {
    FJORD_ASSIGN_OR_RAISE(Predicate p, Predicate::Parse(where, schema.fields));
    parts.push_back(std::move(p));
  }
  if (!partition.empty()) {
    Result<Predicate> p =
        PartitionSpecPredicate(partition, schema.FieldsByName(schema.partition_keys),
                               core_options_.partition_default_name());
    if (!p.ok()) return p.status().WithContext("partition spec");
    parts.push_back(std::move(*p));
  }
  if (parts.empty()) return std::optional<Predicate>();
  if (parts.size() == 1) return std::optional<Predicate>(std::move(parts[0]));
  Predicate both;
  both.op = PredicateOp::kAnd;
  both.children = std::move(parts);
  return std::optional<Predicate>(std::move(both));
}

Result<ScanPlan> FileStoreTable::Plan(const ScanSelector& selector, const std::string& where,
                                      const PartitionSpec& partition) const {
  FJORD_ASSIGN_OR_RAISE(ResolvedRead resolved, ResolveRead(selector));
  FJORD_ASSIGN_OR_RAISE(std::optional<Predicate> filter,
                        ReadFilter(resolved.schema, where, partition));
  return PlanResolved(resolved, filter ? &*filter : nullptr);
}

Result<ScanPlan> FileStoreTable::PlanResolved(const ResolvedRead& resolved,
                                              const Predicate* filter) const {
  TableScan scan(io_, path_, resolved.schema);
  if (resolved.incremental) {
    if (!resolved.range) return ScanPlan{};
    return PlanIncremental(scan, snapshots_, *resolved.range, filter);
  }
  if (!resolved.snapshot) return ScanPlan{};
  return scan.Plan(*resolved.snapshot, filter, resolved.plan);
}

namespace {

// The read's TableRead and plan, kept alive as long as its batches are pulled.
class OwningReader : public RowBatchReader {
 public:
  OwningReader(std::unique_ptr<TableRead> read, std::unique_ptr<std::vector<DataSplit>> splits)
      : read_(std::move(read)), splits_(std::move(splits)) {}
  Status Open(SplitReadOptions options, std::shared_ptr<arrow::Schema> schema) {
    FJORD_ASSIGN_OR_RAISE(rows_, read_->Open(splits_.get(), std::move(options), std::move(schema)));
    return Status::OK();
  }
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override { return rows_->Next(); }

 private:
  std::unique_ptr<TableRead> read_;
  std::unique_ptr<std::vector<DataSplit>> splits_;
  std::unique_ptr<RowBatchReader> rows_;
};

}  // namespace

Result<SplitReadOptions> FileStoreTable::SplitOptionsFor(const TableSchema& schema,
                                                         const ReadRequest& request,
                                                         int64_t batch_rows,
                                                         std::vector<DataField>* fields) const {
  SplitReadOptions options;
  options.batch_rows = batch_rows > 0 ? batch_rows : 1;
  FJORD_ASSIGN_OR_RAISE(std::optional<Predicate> filter,
                        ReadFilter(schema, request.where, request.partition));
  if (filter) options.filter = std::make_shared<const Predicate>(std::move(*filter));
  if (request.columns.empty()) {
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      options.projection.push_back(static_cast<int>(i));
    }
  } else {
    for (const std::string& c : request.columns) {
      int i = schema.FieldIndex(c);
      if (i < 0) return Status::Invalid("unknown column '", c, "' in table ", path_);
      options.projection.push_back(i);
    }
  }
  fields->clear();
  for (int i : options.projection) fields->push_back(schema.fields[static_cast<size_t>(i)]);
  return options;
}

Result<std::shared_ptr<RowBatchReader>> FileStoreTable::OpenSplits(
    const TableSchema& schema, std::vector<DataSplit> splits, SplitReadOptions options,
    std::shared_ptr<arrow::Schema>* arrow_schema) const {
  auto owned = std::make_unique<std::vector<DataSplit>>(std::move(splits));
  auto read = std::make_unique<TableRead>(io_, path_, schema, options.batch_rows);
  if (!*arrow_schema) {
    FJORD_ASSIGN_OR_RAISE(*arrow_schema, read->OutputSchema(*owned, options));
  }
  auto rows = std::make_shared<OwningReader>(std::move(read), std::move(owned));
  FJORD_RETURN_NOT_OK(rows->Open(std::move(options), *arrow_schema));
  return std::shared_ptr<RowBatchReader>(std::move(rows));
}

Result<ReadStream> FileStoreTable::OpenRead(const ReadRequest& request, int64_t batch_rows) const {
  FJORD_ASSIGN_OR_RAISE(ResolvedRead resolved, ResolveRead(request.selector));
  ReadStream out;
  FJORD_ASSIGN_OR_RAISE(SplitReadOptions options,
                        SplitOptionsFor(resolved.schema, request, batch_rows, &out.fields));
  FJORD_ASSIGN_OR_RAISE(ScanPlan plan, PlanResolved(resolved, options.filter.get()));
  std::vector<DataSplit> splits = std::move(plan.splits);
  options.threads = request.threads;
  options.in_split_order = request.in_split_order;
  out.snapshot = std::move(resolved.snapshot);
  out.schema = std::move(resolved.schema);
  if (resolved.incremental) {
    // Changes: each row's kind first, as streaming reads hand them out.
    options.with_row_kind = true;
    DataField kind;
    kind.name = "_row_kind";
    kind.type = DataType::String(false);
    out.fields.insert(out.fields.begin(), kind);
  }
  FJORD_ASSIGN_OR_RAISE(
      out.rows, OpenSplits(out.schema, std::move(splits), std::move(options), &out.arrow_schema));
  return out;
}

Result<std::unique_ptr<StreamTableScan>> FileStoreTable::NewStreamScan(
    const ReadRequest& request, std::optional<int64_t> consumer_next) const {
  FJORD_ASSIGN_OR_RAISE(
      ScanStartOptions start,
      ScanStartOptions::Make(options(), core_options_, !schema_.primary_keys.empty()));
  FJORD_ASSIGN_OR_RAISE(std::optional<Predicate> filter,
                        ReadFilter(schema_, request.where, request.partition));
  auto scan = std::make_unique<StreamTableScan>(io_, path_, schema_, core_options_, start,
                                                std::move(filter), consumer_next);
  FJORD_RETURN_NOT_OK(scan->Init());
  return scan;
}

Result<ReadResult> FileStoreTable::Read(const ReadRequest& request) const {
  FJORD_ASSIGN_OR_RAISE(ReadStream stream, OpenRead(request, int64_t{1} << 16));
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, stream.rows->Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  ReadResult result;
  result.schema = std::move(stream.schema);
  result.fields = std::move(stream.fields);
  result.snapshot = std::move(stream.snapshot);
  FJORD_ARROW_ASSIGN_OR_RAISE(result.rows,
                              arrow::Table::FromRecordBatches(stream.arrow_schema, batches));
  return result;
}

}  // namespace fjord
