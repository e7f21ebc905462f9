#include "fjord/lsm/kv_file_writer.h"

#include <arrow/api.h>

#include <chrono>

#include "fjord/common/arrow_status.h"
#include "fjord/common/ids.h"
#include "fjord/common/local_time.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/column_stats.h"

namespace fjord {

namespace {

constexpr int32_t kKeyFieldIdStart = 1073741823;  // Integer.MAX_VALUE / 2
constexpr int32_t kSequenceNumberFieldId = 2147483646;
constexpr int32_t kValueKindFieldId = 2147483645;

std::string JoinDir(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace

DataFileNamer::DataFileNamer(std::string prefix, std::string extension)
    : prefix_(std::move(prefix)),
      uuid_(RandomUuid()),
      extension_(std::move(extension)),
      counter_(std::make_shared<std::atomic<int64_t>>(0)) {}

std::string DataFileNamer::Next() {
  return prefix_ + uuid_ + "-" + std::to_string((*counter_)++) + "." + extension_;
}

DataFileNamer DataFileNamer::WithPrefix(std::string prefix) const {
  DataFileNamer other = *this;
  other.prefix_ = std::move(prefix);
  return other;
}

std::vector<DataField> KeyValuePhysicalFields(const TableSchema& schema) {
  std::vector<DataField> out;
  std::vector<std::string> keys = schema.TrimmedPrimaryKeys();
  if (keys.empty()) keys = schema.primary_keys;
  for (const std::string& k : keys) {
    const DataField* f = schema.FindField(k);
    if (!f) continue;
    out.push_back(
        DataField{kKeyFieldIdStart + f->id, "_KEY_" + k, f->type->WithNullable(false), {}, {}});
  }
  out.push_back(
      DataField{kSequenceNumberFieldId, kSequenceNumberColumn, DataType::BigInt(false), {}, {}});
  out.push_back(DataField{kValueKindFieldId, kValueKindColumn, DataType::TinyInt(false), {}, {}});
  for (const DataField& f : schema.fields) out.push_back(f);
  return out;
}

Result<std::unique_ptr<KvFileWriter>> KvFileWriter::Make(std::shared_ptr<FileIO> io,
                                                         const TableSchema& schema,
                                                         std::string bucket_dir, int32_t level,
                                                         DataFileNamer* namer,
                                                         int32_t file_source) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  return Make(std::move(io), schema, options, std::move(bucket_dir), level, namer, file_source);
}

Result<std::unique_ptr<KvFileWriter>> KvFileWriter::Make(
    std::shared_ptr<FileIO> io, const TableSchema& schema, const CoreOptions& options,
    std::string bucket_dir, int32_t level, DataFileNamer* namer, int32_t file_source) {
  std::unique_ptr<KvFileWriter> w(new KvFileWriter());
  w->io_ = std::move(io);
  w->schema_ = schema;
  FJORD_ASSIGN_OR_RAISE(w->layout_, KvLayout::Make(schema, options));
  w->bucket_dir_ = std::move(bucket_dir);
  w->level_ = level;
  w->file_source_ = file_source;
  w->namer_ = namer;
  FJORD_ASSIGN_OR_RAISE(w->format_, options.file_format());
  w->physical_ = KeyValuePhysicalFields(schema);
  FJORD_ASSIGN_OR_RAISE(w->writer_options_, DataFileWriterOptions::FromOptions(
                                                options.options(), w->physical_, w->format_));
  // Columns whose values are unique in a data file are written plain: a dictionary would only
  // fill up and fall back. The sequence number is one per record; a data file belongs to one
  // sorted run (one record per key) of one partition, so a key of one field (trimmed of the
  // partition) is unique too, in `_KEY_<k>` and in the value column `<k>`.
  w->writer_options_.parquet_plain_columns = {kSequenceNumberColumn};
  if (w->layout_.key_columns.size() == 1) {
    const std::string& key = w->layout_.fields[static_cast<size_t>(w->layout_.key_columns[0])].name;
    w->writer_options_.parquet_plain_columns.push_back("_KEY_" + key);
    w->writer_options_.parquet_plain_columns.push_back(key);
  }
  // Row groups held and written column after column: merged output is gathered anyway, and
  // staging would copy it once more into one batch (DataFileWriterOptions).
  w->writer_options_.parquet_hold_row_group = true;
  w->dense_stats_ = options.metadata_stats_dense_store();
  w->target_file_size_ = options.target_file_size(/*has_primary_key=*/true);
  return w;
}

KvFileWriter::~KvFileWriter() = default;

Status KvFileWriter::Write(const std::shared_ptr<arrow::RecordBatch>& records) {
  // Like Java's rolling writer, check the file size every 1000 records.
  constexpr int64_t kCheckRollingRecords = 1000;
  for (int64_t offset = 0; offset < records->num_rows(); offset += kCheckRollingRecords) {
    FJORD_RETURN_NOT_OK(WriteSlice(records->Slice(offset, kCheckRollingRecords)));
  }
  return Status::OK();
}

Status KvFileWriter::WriteSlice(const std::shared_ptr<arrow::RecordBatch>& records) {
  int64_t n = records->num_rows();
  if (n == 0) return Status::OK();
  if (!current_) {
    current_name_ = namer_->Next();
    std::string path = JoinDir(bucket_dir_, current_name_);
    FJORD_ASSIGN_OR_RAISE(
        current_, DataFileWriter::Open(io_.get(), path, format_, physical_, writer_options_));
    written_paths_.push_back(path);
    first_row_ = records->Slice(0, 1);
    min_seq_ = INT64_MAX;
    max_seq_ = INT64_MIN;
    deletes_ = 0;
  }
  // Physical layout: key columns, _SEQUENCE_NUMBER, _VALUE_KIND, then every table column.
  arrow::ArrayVector columns;
  for (int k : layout_.key_columns) columns.push_back(records->column(k));
  auto seq = std::static_pointer_cast<arrow::Int64Array>(
      records->column(layout_.sequence_number_column()));
  auto kind =
      std::static_pointer_cast<arrow::Int8Array>(records->column(layout_.value_kind_column()));
  columns.push_back(seq);
  columns.push_back(kind);
  for (size_t f = 0; f < layout_.fields.size(); ++f) {
    columns.push_back(records->column(static_cast<int>(f)));
  }
  arrow::FieldVector fields;
  for (size_t i = 0; i < columns.size(); ++i) {
    fields.push_back(arrow::field(physical_[i].name, columns[i]->type()));
  }
  auto physical = arrow::RecordBatch::Make(arrow::schema(fields), n, columns);
  for (int64_t r = 0; r < n; ++r) {
    min_seq_ = std::min(min_seq_, seq->Value(r));
    max_seq_ = std::max(max_seq_, seq->Value(r));
    int8_t k = kind->Value(r);
    deletes_ += (k == 1 || k == 3);
  }
  FJORD_RETURN_NOT_OK(current_->Write(*physical));
  last_row_ = records->Slice(n - 1, 1);
  if (current_->EstimatedSize() >= target_file_size_) FJORD_RETURN_NOT_OK(CloseCurrent());
  return Status::OK();
}

Status KvFileWriter::CloseCurrent() {
  if (!current_) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(DataFileWriteResult written, current_->Finish());
  current_.reset();
  size_t k = layout_.key_columns.size();
  std::vector<DataField> key_fields(physical_.begin(),
                                    physical_.begin() + static_cast<std::ptrdiff_t>(k));
  std::vector<DataTypePtr> key_types;
  for (const DataField& f : key_fields) key_types.push_back(f.type);
  auto key_row = [&](const arrow::RecordBatch& one) -> Result<std::string> {
    std::vector<Value> values;
    for (size_t i = 0; i < k; ++i) {
      int column = layout_.key_columns[i];
      FJORD_ASSIGN_OR_RAISE(Value v, ValueFromArrow(*one.column(column), 0, *key_types[i]));
      values.push_back(std::move(v));
    }
    return EncodeStoredBinaryRow(values, key_types);
  };
  DataFileMeta f;
  f.file_name = current_name_;
  f.file_size = written.file_size;
  f.row_count = written.row_count;
  FJORD_ASSIGN_OR_RAISE(f.min_key, key_row(*first_row_));
  FJORD_ASSIGN_OR_RAISE(f.max_key, key_row(*last_row_));
  // Key statistics cover every key column (never dense); value statistics follow the modes.
  std::vector<DataColumnStats> key_stats(written.stats.begin(),
                                         written.stats.begin() + static_cast<std::ptrdiff_t>(k));
  std::vector<StatsMode> key_modes(written.stats_modes.begin(),
                                   written.stats_modes.begin() + static_cast<std::ptrdiff_t>(k));
  FJORD_ASSIGN_OR_RAISE(SimpleStatsRows key_rows,
                        BuildSimpleStats(key_fields, key_stats, key_modes, false));
  FJORD_ASSIGN_OR_RAISE(EncodedSimpleStats key_encoded, EncodeSimpleStats(key_rows));
  f.key_stats =
      SimpleStats{key_encoded.min_values, key_encoded.max_values, key_encoded.null_counts};
  std::vector<DataColumnStats> value_stats(
      written.stats.begin() + static_cast<std::ptrdiff_t>(k + 2), written.stats.end());
  std::vector<StatsMode> value_modes(
      written.stats_modes.begin() + static_cast<std::ptrdiff_t>(k + 2), written.stats_modes.end());
  FJORD_ASSIGN_OR_RAISE(SimpleStatsRows value_rows,
                        BuildSimpleStats(schema_.fields, value_stats, value_modes, dense_stats_));
  FJORD_ASSIGN_OR_RAISE(EncodedSimpleStats value_encoded, EncodeSimpleStats(value_rows));
  f.value_stats =
      SimpleStats{value_encoded.min_values, value_encoded.max_values, value_encoded.null_counts};
  f.value_stats_cols = value_rows.stats_cols;
  f.min_sequence_number = min_seq_;
  f.max_sequence_number = max_seq_;
  f.schema_id = schema_.id;
  f.level = level_;
  // A local date-time, as Java stores it (LocalDateTime.now()).
  f.creation_time_millis = NowLocalMillis();
  f.delete_row_count = deletes_;
  f.file_source = file_source_;
  done_.push_back(std::move(f));
  return Status::OK();
}

Result<std::vector<DataFileMeta>> KvFileWriter::Finish() {
  FJORD_RETURN_NOT_OK(CloseCurrent());
  written_paths_.clear();
  return std::move(done_);
}

void KvFileWriter::Abort() {
  current_.reset();
  for (const std::string& p : written_paths_) (void)io_->Delete(p);
  written_paths_.clear();
  done_.clear();
}

}  // namespace fjord
