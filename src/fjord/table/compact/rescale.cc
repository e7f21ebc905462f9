#include "fjord/table/compact/rescale.h"

#include <arrow/api.h>

#include <memory>

#include "fjord/common/ids.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/write/append_write.h"
#include "fjord/table/write/primary_key_write.h"

namespace fjord {

Status CheckRescalable(const FileStoreTable& table, int64_t buckets) {
  const CoreOptions& core = table.core_options();
  const bool pk = !table.schema().primary_keys.empty();
  if (buckets <= 0) {
    return Status::Invalid("cannot rescale ", table.path(), " to ", buckets,
                           " buckets: the bucket count must be greater than 0");
  }
  const int32_t current = core.bucket();
  if (current == -1) {
    return Status::Invalid(
        "cannot rescale ", table.path(), ": it has ", pk ? "dynamic buckets" : "no buckets",
        " (bucket = -1), and Java Paimon refuses changing 'bucket' from -1 (Cannot change bucket "
        "when it is -1)");
  }
  if (current == -2) {
    return Status::NotImplemented("cannot rescale ", table.path(),
                                  ": it is a postpone-bucket table (bucket = -2), which Fjord "
                                  "does not write");
  }
  // The rewrite is an ordinary write: refuse what the writers refuse before anything changes.
  FJORD_RETURN_NOT_OK(table.CheckOptions(OptionUse::kWrite));
  FJORD_RETURN_NOT_OK(table.CheckOptions(OptionUse::kRead));
  if (pk) return PrimaryKeyTableWrite::Create(&table).status();
  return AppendTableWrite::Create(&table).status();
}

Result<RescaleScope> PlanRescale(const FileStoreTable& table,
                                 const std::vector<PartitionSpec>& partitions) {
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table.snapshots().Latest());
  if (!latest) {
    return Status::Invalid("table ", table.path(),
                           " has no snapshot. No need to rescale (set 'bucket' with ALTER TABLE)");
  }
  TableScan scan(table.io(), table.path(), table.schema());
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
  std::vector<PartitionFilter> filters;
  for (const PartitionSpec& spec : partitions) {
    FJORD_ASSIGN_OR_RAISE(PartitionFilter f,
                          PartitionFilter::OfSpecs({spec}, table.schema(), table.core_options()));
    filters.push_back(std::move(f));
  }
  std::vector<bool> matched(filters.size(), false);
  RescaleScope scope;
  scope.snapshot_id = latest->id;
  for (const ManifestEntry& e : entries) {
    if (e.kind != FileKind::kAdd || e.bucket < 0) continue;
    bool in = filters.empty();
    for (size_t i = 0; i < filters.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(bool c, filters[i].Contains(e.partition));
      if (c) in = matched[i] = true;
    }
    if (!in) continue;
    ++scope.files;
    scope.partitions.insert(e.partition);
  }
  for (size_t i = 0; i < filters.size(); ++i) {
    if (matched[i]) continue;
    std::string text;
    for (const auto& [k, v] : partitions[i]) text += (text.empty() ? "" : ",") + k + "=" + v;
    return Status::Invalid("partition ", text, " of table ", table.path(),
                           " does not have any data files. No need to rescale");
  }
  if (scope.partitions.empty()) {
    return Status::Invalid("table ", table.path(),
                           " does not have any data files. No need to rescale");
  }
  for (const std::string& p : scope.partitions) {
    scope.partition_texts.push_back(PartitionDisplay(p, table.schema(), table.core_options()));
  }
  return scope;
}

Result<RescaleOutcome> RewriteBuckets(const FileStoreTable& base, const RescaleScope& scope) {
  // Write-only: no compaction, so the overwrite is one snapshot (Java's rescale sink commits the
  // new layout as one OVERWRITE too; compaction is left to later writers).
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table,
                        base.WithDynamicOptions({{"write-only", "true"}}));
  FJORD_RETURN_NOT_OK(CheckRescalable(*table, table->core_options().bucket()));
  const TableSchema& schema = table->schema();
  const bool pk = !schema.primary_keys.empty();

  ScanSelector at;
  at.snapshot_id = scope.snapshot_id;
  FJORD_ASSIGN_OR_RAISE(ScanPlan plan, table->Plan(at));
  std::vector<DataSplit> splits;
  for (DataSplit& s : plan.splits) {
    if (s.bucket >= 0 && (schema.partition_keys.empty() || scope.partitions.count(s.partition))) {
      splits.push_back(std::move(s));
    }
  }
  std::vector<DataField> fields;
  FJORD_ASSIGN_OR_RAISE(SplitReadOptions read_options,
                        table->SplitOptionsFor(schema, ReadRequest{}, 8192, &fields));
  std::shared_ptr<arrow::Schema> arrow_schema;
  FJORD_ASSIGN_OR_RAISE(
      std::shared_ptr<RowBatchReader> rows,
      table->OpenSplits(schema, std::move(splits), std::move(read_options), &arrow_schema));

  std::unique_ptr<PrimaryKeyTableWrite> pk_write;
  std::unique_ptr<AppendTableWrite> append_write;
  if (pk) {
    TableWriteOptions options;
    options.ignore_previous_files = true;
    FJORD_ASSIGN_OR_RAISE(pk_write, PrimaryKeyTableWrite::Create(table.get(), options));
  } else {
    FJORD_ASSIGN_OR_RAISE(append_write,
                          AppendTableWrite::Create(table.get(), {.ignore_previous_files = true}));
  }
  RescaleOutcome out;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch, rows->Next());
    if (!batch) break;
    if (batch->num_rows() == 0) continue;
    out.rows += batch->num_rows();
    auto t = arrow::Table::FromRecordBatches({batch});
    if (!t.ok()) return Status::IOError(t.status().ToString());
    FJORD_RETURN_NOT_OK(pk ? pk_write->Write(*t) : append_write->Write(*t));
  }
  std::vector<CommitMessage> messages;
  if (pk) {
    FJORD_ASSIGN_OR_RAISE(messages, pk_write->PrepareCommit(true));
  } else {
    FJORD_ASSIGN_OR_RAISE(messages, append_write->PrepareCommit());
  }
  // An overwrite commits no changelog (changelog-producer = input writes some): drop the files.
  for (CommitMessage& m : messages) {
    out.files_written += static_cast<int64_t>(m.new_files.size());
    if (m.changelog_files.empty()) continue;
    FJORD_ASSIGN_OR_RAISE(std::string dir, BucketPath(table->path(), schema, table->core_options(),
                                                      m.partition, m.bucket));
    for (const DataFileMeta& f : m.changelog_files) {
      (void)table->io()->Delete(JoinPath(dir, f.file_name));
    }
    m.changelog_files.clear();
  }
  FileStoreCommit commit(
      table->io(), table->path(), base.schema(), RandomUuid(),
      {{"commit.strict-mode.last-safe-snapshot", std::to_string(scope.snapshot_id)}});
  commit.set_filter_committed(false);
  FJORD_ASSIGN_OR_RAISE(
      out.snapshot_id,
      commit.OverwritePartitions(messages, Snapshot::kBatchCommitIdentifier, scope.partitions));
  return out;
}

}  // namespace fjord
