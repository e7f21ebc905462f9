#include "fjord/table/write/append_file_writer.h"

#include <arrow/api.h>

#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/common/batch_bytes.h"
#include "fjord/common/local_time.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/column_stats.h"

namespace fjord {

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
  // A local date-time, as Java stores it (LocalDateTime.now()).
  f.creation_time_millis = NowLocalMillis();
  f.delete_row_count = 0;
  f.file_source = 0;
  return f;
}

Result<AppendFileSettings> AppendFileSettings::Make(const TableSchema& schema,
                                                    const CoreOptions& options) {
  AppendFileSettings s;
  FJORD_ASSIGN_OR_RAISE(s.format, options.file_format());
  FJORD_ASSIGN_OR_RAISE(s.writer_options, DataFileWriterOptions::FromOptions(
                                              options.options(), schema.fields, s.format));
  s.dense_stats = options.metadata_stats_dense_store();
  s.prefix = options.data_file_prefix();
  s.target_file_size = options.target_file_size(/*has_primary_key=*/false);
  return s;
}

RollingAppendFileWriter::RollingAppendFileWriter(std::shared_ptr<FileIO> io,
                                                 const TableSchema* schema,
                                                 const AppendFileSettings* settings,
                                                 std::string bucket_dir, DataFileNamer* namer,
                                                 int64_t first_sequence, int32_t file_source)
    : io_(std::move(io)),
      schema_(schema),
      settings_(settings),
      dir_(std::move(bucket_dir)),
      namer_(namer),
      next_sequence_(first_sequence),
      file_source_(file_source) {}

RollingAppendFileWriter::~RollingAppendFileWriter() {
  if (!finished_) Abort();
}

void RollingAppendFileWriter::Abort() {
  (void)AwaitClosing();
  writer_.reset();
  for (const std::string& path : paths_) (void)io_->Delete(path);
  paths_.clear();
  files_.clear();
  finished_ = true;
}

Status RollingAppendFileWriter::AwaitClosing() {
  if (!closing_) return Status::OK();
  Status st = closing_->Wait();
  closing_.reset();
  if (st.ok()) files_.push_back(std::move(*closing_meta_));
  closing_meta_.reset();
  return st;
}

Status RollingAppendFileWriter::CloseFile() {
  FJORD_RETURN_NOT_OK(AwaitClosing());
  std::shared_ptr<DataFileWriter> writer = std::move(writer_);
  const int64_t first_sequence = next_sequence_;
  next_sequence_ += writer->row_count();
  auto meta = std::make_shared<DataFileMeta>();
  auto finish = [this, writer, meta, first_sequence, name = name_]() -> Status {
    FJORD_ASSIGN_OR_RAISE(DataFileWriteResult written, writer->Finish());
    FJORD_ASSIGN_OR_RAISE(
        *meta, AppendFileMeta(name, written, *schema_, settings_->dense_stats, first_sequence));
    meta->file_source = file_source_;
    return Status::OK();
  };
  closing_meta_ = meta;
  closing_ = std::make_shared<ClaimableTask>(std::move(finish));
  if (!settings_->background) return AwaitClosing();
  settings_->background([task = closing_] { return task->Run(); });
  return Status::OK();
}

Status RollingAppendFileWriter::Write(const arrow::RecordBatch& batch) {
  // The size is checked every kCheckRows rows, as Java's rolling writer does. Checks that cannot
  // trigger are skipped: where the writer's estimate grows by the rows' bytes (Parquet), rows go
  // in slices of up to half of what the file and its row group still have room for at the
  // batch's average row size, so that the file rolls after the same rows as with every check,
  // while Parquet gets large slices (it encodes a slice column by column: 1000-row slices keep
  // cycling through every column's dictionary and write twice as slowly).
  constexpr int64_t kCheckRows = 1000;
  const int64_t rows = batch.num_rows();
  FJORD_ASSIGN_OR_RAISE(int64_t bytes, RowBytes(batch));
  const int64_t row_bytes = std::max<int64_t>(1, bytes / std::max<int64_t>(1, rows));
  for (int64_t offset = 0; offset < rows;) {
    if (!writer_) {
      name_ = namer_->Next();
      paths_.push_back(JoinPath(dir_, name_));
      DataFileWriterOptions options = settings_->writer_options;
      if (paths_.size() == 1) options.parquet_first_block_size = first_row_group_bytes_;
      FJORD_ASSIGN_OR_RAISE(writer_,
                            DataFileWriter::Open(io_.get(), paths_.back(), settings_->format,
                                                 schema_->fields, options));
    }
    const int64_t room = std::min(settings_->target_file_size - writer_->EstimatedSize(),
                                  writer_->PredictableBytes());
    const int64_t checks = std::max<int64_t>(1, room / 2 / row_bytes / kCheckRows);
    const int64_t n = std::min(checks * kCheckRows, rows - offset);
    FJORD_RETURN_NOT_OK(writer_->Write(n == rows ? batch : *batch.Slice(offset, n)));
    offset += n;
    if (writer_->EstimatedSize() >= settings_->target_file_size) {
      // A row group encoded in the background is counted by its rows' bytes until it is done.
      FJORD_RETURN_NOT_OK(writer_->Settle());
      if (writer_->EstimatedSize() >= settings_->target_file_size) FJORD_RETURN_NOT_OK(CloseFile());
    }
  }
  return Status::OK();
}

Result<std::vector<DataFileMeta>> RollingAppendFileWriter::Finish() {
  if (writer_) FJORD_RETURN_NOT_OK(CloseFile());
  FJORD_RETURN_NOT_OK(AwaitClosing());
  finished_ = true;
  return std::move(files_);
}

}  // namespace fjord
