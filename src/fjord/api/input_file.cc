// Input files as rows (InputFileReader, ReadInputFile): JSON lines, CSV and Parquet converted to a
// table's columns, batch by batch, for `fjord write` and for users who want the same reading.

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <arrow/io/api.h>
#include <parquet/arrow/reader.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <variant>

#include "fjord/common/arrow_status.h"
#include "fjord/common/recycling_pool.h"
#include "fjord/format/input_columns.h"
#include "fjord/format/input_rows.h"
#include "fjord/row_text.h"
#include "fjord/table.h"
#include "fjord/table_commit.h"
#include "fjord/table_write.h"

namespace fjord {

namespace {

using BatchPtr = std::shared_ptr<arrow::RecordBatch>;

// The input file mapped into memory: its pages come from the page cache, not copied into fresh
// (zeroed) memory.
Result<std::shared_ptr<arrow::Buffer>> MapWholeFile(const std::string& path) {
  auto file = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
  if (!file.ok())
    return Status::NotFound("cannot open input ", path, ": ", file.status().message());
  auto size = (*file)->GetSize();
  if (!size.ok()) return Status::IOError("cannot read input ", path, ": ", size.status().message());
  auto buffer = (*file)->ReadAt(0, *size);
  if (!buffer.ok()) {
    return Status::IOError("cannot read input ", path, ": ", buffer.status().message());
  }
  return *buffer;
}

class InputFileReaderImpl : public InputFileReader {
 public:
  // The next batch; nullptr when the file is read.
  virtual Result<BatchPtr> NextBatch() = 0;

  Result<bool> Next(struct ArrowSchema* schema, struct ArrowArray* array) override {
    FJORD_ASSIGN_OR_RAISE(BatchPtr batch, NextBatch());
    if (!batch) return false;
    FJORD_RETURN_NOT_OK(FromArrow(arrow::ExportRecordBatch(*batch, array, schema)));
    return true;
  }
};

// JSON lines or CSV, mapped whole; the pages of the text already read are handed back to the
// kernel after each batch, so that the file does not stay in the process's memory.
class TextInputReader : public InputFileReaderImpl {
 public:
  static Result<std::unique_ptr<TextInputReader>> Open(const std::string& path, InputFormat format,
                                                       const TableSchema& schema,
                                                       const InputOptions& options) {
    std::unique_ptr<TextInputReader> r(new TextInputReader(path, schema, options));
    FJORD_ASSIGN_OR_RAISE(r->mapped_, MapWholeFile(path));
    std::string_view text(reinterpret_cast<const char*>(r->mapped_->data()),
                          static_cast<size_t>(r->mapped_->size()));
    if (format == InputFormat::kJsonLines) {
      r->reader_.emplace<JsonLinesReader>(text, r->fields_, path);
    } else {
      CsvOptions csv;
      csv.null_literal = options.csv_null;
      FJORD_ASSIGN_OR_RAISE(CsvRowsReader reader, CsvRowsReader::Open(text, r->fields_, csv, path));
      r->reader_.emplace<CsvRowsReader>(std::move(reader));
    }
    return r;
  }

  Result<BatchPtr> NextBatch() override {
    const auto bytes = static_cast<size_t>(std::max<int64_t>(batch_bytes_, 1));
    std::optional<InputRows> rows;
    if (auto* json = std::get_if<JsonLinesReader>(&reader_)) {
      FJORD_ASSIGN_OR_RAISE(rows, json->Next(bytes));
      Release(json->position());
    } else if (auto* csv = std::get_if<CsvRowsReader>(&reader_)) {
      FJORD_ASSIGN_OR_RAISE(rows, csv->Next(bytes));
      Release(csv->position());
    }
    if (!rows) {
      if (any_) return BatchPtr();
      // No rows at all: one empty batch of the table's columns.
      FJORD_ASSIGN_OR_RAISE(rows, ParseJsonLines({}, fields_, path_));
    }
    any_ = true;
    return InputRowsToBatch(*rows, path_);
  }

 private:
  TextInputReader(std::string path, const TableSchema& schema, const InputOptions& options)
      : path_(std::move(path)), fields_(schema.fields), batch_bytes_(options.batch_bytes) {}

  // Drops the mapping's pages below `position` (read; the batches hold copies of what they need).
  void Release(size_t position) {
    static const auto kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    auto* base = const_cast<uint8_t*>(mapped_->data());
    if (reinterpret_cast<uintptr_t>(base) % kPage != 0) return;
    const size_t end = position / kPage * kPage;
    if (end > released_) {
      madvise(base + released_, end - released_, MADV_DONTNEED);
      released_ = end;
    }
  }

  std::string path_;
  std::vector<DataField> fields_;
  int64_t batch_bytes_;
  std::shared_ptr<arrow::Buffer> mapped_;
  std::variant<std::monostate, JsonLinesReader, CsvRowsReader> reader_;
  size_t released_ = 0;
  bool any_ = false;
};

// Parquet, a record batch at a time.
class ParquetInputReader : public InputFileReaderImpl {
 public:
  static Result<std::unique_ptr<ParquetInputReader>> Open(const std::string& path,
                                                          const TableSchema& schema,
                                                          const InputOptions& options) {
    const int64_t batch_bytes = options.batch_bytes;
    std::unique_ptr<ParquetInputReader> r(new ParquetInputReader(path, schema));
    auto file = arrow::io::ReadableFile::Open(path, r->pool_.get());
    if (!file.ok())
      return Status::NotFound("cannot open input ", path, ": ", file.status().message());
    auto reader = parquet::arrow::OpenFile(*file, r->pool_.get());
    if (!reader.ok())
      return Status::Invalid(path, ": not a Parquet file: ", reader.status().message());
    r->file_ = std::move(*reader);
    r->file_->set_use_threads(options.threads != 1);
    // Batches of about 4 x batch_bytes of rows, as the file's metadata sizes them, and at least
    // 64Ki rows (Arrow's reader costs about 20 ms a batch more, whatever its size: 1M rows of 14
    // columns in batches of 64Ki rows took 16% more CPU than in one) unless rows so wide that
    // 64Ki of them pass 16 x batch_bytes: then what that holds.
    auto metadata = r->file_->parquet_reader()->metadata();
    int64_t bytes = 0;
    for (int g = 0; g < metadata->num_row_groups(); ++g) {
      bytes += metadata->RowGroup(g)->total_byte_size();
    }
    const int64_t rows = metadata->num_rows();
    const double per_row = rows > 0 ? static_cast<double>(bytes) / static_cast<double>(rows) : 1.0;
    const double want = 4.0 * static_cast<double>(batch_bytes) / std::max(per_row, 1.0);
    const double fewest = std::min(65536.0, 4.0 * want);
    r->file_->set_batch_size(
        std::max<int64_t>(1, static_cast<int64_t>(std::min(std::max(want, fewest), 1e12))));
    auto batches = r->file_->GetRecordBatchReader();
    if (!batches.ok()) return Status::Invalid(path, ": ", batches.status().message());
    r->batches_ = std::move(*batches);
    return r;
  }

  Result<BatchPtr> NextBatch() override {
    auto next = batches_->Next();
    if (!next.ok()) return Status::Invalid(path_, ": ", next.status().message());
    std::shared_ptr<arrow::Table> table;
    if (*next) {
      auto made = arrow::Table::FromRecordBatches({*next});
      if (!made.ok()) return Status::Invalid(path_, ": ", made.status().message());
      table = *made;
    } else if (any_) {
      return BatchPtr();
    } else {
      // No rows at all: the file's columns are still checked against the table's.
      auto empty = arrow::Table::MakeEmpty(batches_->schema());
      if (!empty.ok()) return Status::Invalid(path_, ": ", empty.status().message());
      table = *empty;
    }
    any_ = true;
    FJORD_ASSIGN_OR_RAISE(BatchPtr batch, InputToTableColumns(table, fields_, path_, rows_ + 1));
    rows_ += batch->num_rows();
    return batch;
  }

 private:
  ParquetInputReader(std::string path, const TableSchema& schema)
      : path_(std::move(path)), fields_(schema.fields) {}

  std::string path_;
  std::vector<DataField> fields_;
  // The batches' pages, recycled from batch to batch (recycling_pool.h); a batch the writer still
  // holds keeps the pool alive.
  RecyclingPool::Handle pool_ = RecyclingPool::Make();
  std::unique_ptr<parquet::arrow::FileReader> file_;
  std::shared_ptr<arrow::RecordBatchReader> batches_;
  int64_t rows_ = 0;  // read so far
  bool any_ = false;
};

Result<std::unique_ptr<InputFileReaderImpl>> OpenInput(const std::string& path, InputFormat format,
                                                       const TableSchema& schema,
                                                       const InputOptions& options) {
  if (format == InputFormat::kParquet) {
    FJORD_ASSIGN_OR_RAISE(auto reader, ParquetInputReader::Open(path, schema, options));
    return std::unique_ptr<InputFileReaderImpl>(std::move(reader));
  }
  FJORD_ASSIGN_OR_RAISE(auto reader, TextInputReader::Open(path, format, schema, options));
  return std::unique_ptr<InputFileReaderImpl>(std::move(reader));
}

}  // namespace

Result<InputFormat> ParseInputFormat(std::string_view name) {
  if (name == "jsonl") return InputFormat::kJsonLines;
  if (name == "csv") return InputFormat::kCsv;
  if (name == "parquet") return InputFormat::kParquet;
  return Status::Invalid("unknown input format '", name, "' (jsonl, csv or parquet)");
}

Result<std::unique_ptr<InputFileReader>> InputFileReader::Open(const std::string& path,
                                                               InputFormat format,
                                                               const TableSchema& schema,
                                                               const InputOptions& options) {
  FJORD_ASSIGN_OR_RAISE(auto reader, OpenInput(path, format, schema, options));
  return std::unique_ptr<InputFileReader>(std::move(reader));
}

Status WriteInputFile(const Table& table, InputFileReader& input, TableWrite& writer,
                      int64_t identifier) {
  Status st;
  while (st.ok()) {
    struct ArrowSchema schema;
    struct ArrowArray array;
    Result<bool> next = input.Next(&schema, &array);
    if (!next.ok()) {
      st = next.status();
    } else if (!*next) {
      return Status::OK();
    } else {
      st = writer.Write(&schema, &array);
    }
  }
  Result<CommitMessages> written = writer.PrepareCommit(identifier);
  Status aborted = written.status();
  if (aborted.ok()) {
    Result<std::unique_ptr<TableCommit>> commit = table.NewCommit(NewCommitUser());
    aborted = commit.ok() ? (*commit)->Abort(*written) : commit.status();
  }
  if (aborted.ok()) return st;
  return Status(st.code(), st.message() +
                               " (and the files written for the rows before it could not be "
                               "deleted: " +
                               aborted.ToString() + "; `fjord orphans` removes them)");
}

Status ReadInputFile(const std::string& path, InputFormat format, const TableSchema& schema,
                     struct ArrowArrayStream* out, const InputOptions& options) {
  InputOptions whole = options;
  whole.batch_bytes = std::numeric_limits<int64_t>::max();  // text: one batch
  FJORD_ASSIGN_OR_RAISE(auto reader, OpenInput(path, format, schema, whole));
  std::vector<BatchPtr> batches;
  bool kinds = false;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(BatchPtr batch, reader->NextBatch());
    if (!batch) break;
    kinds = kinds || batch->num_columns() > static_cast<int>(schema.fields.size());
    batches.push_back(std::move(batch));
  }
  // One schema for all: the row kinds wherever a batch has them (+I where it has none).
  for (BatchPtr& batch : batches) {
    if (!kinds || batch->num_columns() > static_cast<int>(schema.fields.size())) continue;
    arrow::Int8Builder builder;
    FJORD_RETURN_NOT_OK(FromArrow(builder.AppendEmptyValues(batch->num_rows())));
    std::shared_ptr<arrow::Array> zeros;
    FJORD_RETURN_NOT_OK(FromArrow(builder.Finish(&zeros)));
    auto with_kinds = batch->AddColumn(batch->num_columns(),
                                       arrow::field(kRowKindColumn, arrow::int8(), false), zeros);
    if (!with_kinds.ok()) return Status::Invalid(path, ": ", with_kinds.status().message());
    batch = *with_kinds;
  }
  auto table = arrow::Table::FromRecordBatches(batches);
  if (!table.ok()) return Status::Invalid(path, ": ", table.status().message());
  auto combined = (*table)->CombineChunksToBatch();
  if (!combined.ok()) return Status::Invalid(path, ": ", combined.status().message());
  auto stream = arrow::RecordBatchReader::Make({*combined}, (*combined)->schema());
  if (!stream.ok()) return Status::Internal(stream.status().message());
  return FromArrow(arrow::ExportRecordBatchReader(*stream, out));
}

}  // namespace fjord
