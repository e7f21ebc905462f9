#include "fjord/table/append_write.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <chrono>

#include "fjord/common/arrow_status.h"
#include "fjord/common/ids.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/column_stats.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/options.h"
#include "fjord/table/partition_path.h"
#include "fjord/table/row_router.h"

namespace fjord {

namespace {

std::vector<DataTypePtr> NullableTypes(const std::vector<DataField>& fields) {
  std::vector<DataTypePtr> out;
  for (const DataField& f : fields) out.push_back(f.type->WithNullable(true));
  return out;
}

}  // namespace

Result<DataFileMeta> AppendFileMeta(const std::string& file_name,
                                    const DataFileWriteResult& written, const TableSchema& schema,
                                    bool dense_stats, int64_t first_sequence) {
  FJORD_ASSIGN_OR_RAISE(
      SimpleStatsRows stats_rows,
      BuildSimpleStats(schema.fields, written.stats, written.stats_modes, dense_stats));
  FJORD_ASSIGN_OR_RAISE(EncodedSimpleStats stats, EncodeSimpleStats(stats_rows));
  FJORD_ASSIGN_OR_RAISE(std::string empty_row, EncodeStoredBinaryRow({}, {}));
  DataFileMeta f;
  f.file_name = file_name;
  f.file_size = written.file_size;
  f.row_count = written.row_count;
  f.min_key = f.max_key = empty_row;
  f.key_stats = SimpleStats{empty_row, empty_row, std::vector<std::optional<int64_t>>{}};
  f.value_stats = SimpleStats{stats.min_values, stats.max_values, stats.null_counts};
  f.value_stats_cols = stats_rows.stats_cols;
  f.min_sequence_number = first_sequence;
  f.max_sequence_number = first_sequence + written.row_count - 1;
  f.schema_id = schema.id;
  f.creation_time_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  f.delete_row_count = 0;
  f.file_source = 0;
  return f;
}

Result<std::unique_ptr<AppendTableWrite>> AppendTableWrite::Create(const Table* table) {
  if (!table->schema().primary_keys.empty()) {
    return Status::NotImplemented("writing primary-key tables (", table->path(),
                                  ") needs the write buffer, which is not built yet");
  }
  EnsureArrowCompute();
  return std::unique_ptr<AppendTableWrite>(new AppendTableWrite(table));
}

Status AppendTableWrite::Write(const std::shared_ptr<arrow::Table>& input) {
  const TableSchema& schema = table_->schema();
  // Columns in schema order, canonical types, NOT NULL enforced before anything is kept.
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  FJORD_ARROW_ASSIGN_OR_RAISE(auto combined, input->CombineChunks());
  for (const DataField& f : schema.fields) {
    auto column = combined->GetColumnByName(f.name);
    if (!column) return Status::Invalid("input has no column '", f.name, "'");
    std::shared_ptr<arrow::Array> array;
    if (column->num_chunks() == 0) {
      FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(*f.type));
      FJORD_ARROW_ASSIGN_OR_RAISE(array, arrow::MakeEmptyArray(type));
    } else {
      array = column->chunk(0);
    }
    Result<std::shared_ptr<arrow::Array>> canonical = ToCanonical(array, *f.type);
    if (!canonical.ok()) return canonical.status().WithContext("column '", f.name, "'");
    if (!f.type->nullable() && (*canonical)->null_count() > 0) {
      return Status::Invalid("column '", f.name, "' is NOT NULL but the input has ",
                             (*canonical)->null_count(),
                             " NULLs; nothing of this batch was written");
    }
    FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
    fields.push_back(af);
    columns.push_back(*canonical);
  }
  auto rows = arrow::Table::Make(arrow::schema(fields), columns, combined->num_rows());
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), combined->num_rows(), columns);
  FJORD_ASSIGN_OR_RAISE(RowRouter router, RowRouter::Make(schema));
  FJORD_ASSIGN_OR_RAISE(auto groups, router.Route(*batch));
  for (auto& [key, indices] : groups) {
    arrow::Int64Builder b;
    FJORD_ARROW_RETURN_NOT_OK(b.AppendValues(indices));
    FJORD_ARROW_ASSIGN_OR_RAISE(auto idx, b.Finish());
    FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(rows, idx));
    pending_[key].push_back(taken.table());
  }
  return Status::OK();
}

Result<int64_t> AppendTableWrite::NextSequence(const std::string& partition, int32_t bucket) {
  if (!sequences_loaded_) {
    // Sequence numbers continue from the files already in each bucket.
    sequences_loaded_ = true;
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table_->snapshots().Latest());
    if (latest) {
      TableScan scan(table_->io(), table_->path(), table_->schema());
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
      for (const ManifestEntry& e : entries) {
        int64_t& next = next_sequence_[{e.partition, e.bucket}];
        next = std::max(next, e.file.max_sequence_number + 1);
      }
    }
  }
  return next_sequence_[{partition, bucket}];
}

Result<std::vector<CommitMessage>> AppendTableWrite::PrepareCommit() {
  const TableSchema& schema = table_->schema();
  Options options = Options::FromTable(schema.EffectiveOptions());
  FJORD_ASSIGN_OR_RAISE(FileFormat format,
                        ParseFileFormat(options.GetOr("file.format", "parquet")));
  FJORD_ASSIGN_OR_RAISE(DataFileWriterOptions writer_options,
                        DataFileWriterOptions::FromOptions(options, schema.fields, format));
  bool dense = options.GetOr("metadata.stats-dense-store", "true") == "true";
  std::string prefix = options.GetOr("data-file.prefix", "data-");
  std::string default_partition = options.GetOr("partition.default-name", "__DEFAULT_PARTITION__");
  int32_t total_buckets = static_cast<int32_t>(std::stoll(options.GetOr("bucket", "-1")));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> target, options.GetMemorySize("target-file-size"));
  const int64_t target_file_size = target.value_or(int64_t{256} << 20);  // append tables: 256 MB
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> partition_types = NullableTypes(partition_fields);
  std::vector<CommitMessage> messages;
  std::string uuid = RandomUuid();
  int counter = 0;
  for (auto& [key, parts] : pending_) {
    const auto& [partition, bucket] = key;
    FJORD_ARROW_ASSIGN_OR_RAISE(auto rows, arrow::ConcatenateTables(parts));
    FJORD_ASSIGN_OR_RAISE(std::vector<Value> pvalues,
                          DecodeStoredBinaryRow(partition, partition_types));
    std::string dir = table_->path();
    std::string ppath = PartitionPath(partition_fields, pvalues, default_partition);
    if (!ppath.empty()) dir = JoinPath(dir, ppath);
    dir = JoinPath(dir, "bucket-" + std::to_string(bucket));
    // Roll to a new file once target-file-size is reached, checking every 1000 rows as Java's
    // rolling writer does.
    FJORD_ASSIGN_OR_RAISE(int64_t first_seq, NextSequence(partition, bucket));
    FJORD_ARROW_ASSIGN_OR_RAISE(auto batches, arrow::TableBatchReader(*rows).ToRecordBatches());
    CommitMessage message{partition, bucket, total_buckets > 0 ? total_buckets : -1, {}, {}};
    std::unique_ptr<DataFileWriter> writer;
    std::string name;
    std::vector<std::string> written_paths;
    auto close_file = [&]() -> Status {
      FJORD_ASSIGN_OR_RAISE(DataFileWriteResult written, writer->Finish());
      writer.reset();
      FJORD_ASSIGN_OR_RAISE(DataFileMeta f,
                            AppendFileMeta(name, written, schema, dense, first_seq));
      first_seq += written.row_count;
      message.new_files.push_back(std::move(f));
      return Status::OK();
    };
    auto write_all = [&]() -> Status {
      for (const auto& batch : batches) {
        for (int64_t offset = 0; offset < batch->num_rows(); offset += 1000) {
          if (!writer) {
            name = prefix + uuid + "-" + std::to_string(counter++) + "." +
                   std::string(FileFormatName(format));
            written_paths.push_back(JoinPath(dir, name));
            FJORD_ASSIGN_OR_RAISE(
                writer, DataFileWriter::Open(table_->io().get(), written_paths.back(), format,
                                             schema.fields, writer_options));
          }
          FJORD_RETURN_NOT_OK(writer->Write(*batch->Slice(offset, 1000)));
          if (writer->EstimatedSize() >= target_file_size) FJORD_RETURN_NOT_OK(close_file());
        }
      }
      if (writer) FJORD_RETURN_NOT_OK(close_file());
      return Status::OK();
    };
    Status st = write_all();
    if (!st.ok()) {
      writer.reset();
      for (const std::string& path : written_paths) (void)table_->io()->Delete(path);
      return st;
    }
    next_sequence_[key] = first_seq;
    if (!message.new_files.empty()) messages.push_back(std::move(message));
  }
  pending_.clear();
  return messages;
}

}  // namespace fjord
