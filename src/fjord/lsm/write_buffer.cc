#include "fjord/lsm/write_buffer.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/api.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/compression.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>

#include "fjord/common/arrow_status.h"

namespace fjord {

namespace {

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

}  // namespace

// A sorted in-memory run: `rows` taken in `order`, `chunk_rows` at a time.
class SortedMemoryRunReader : public KvRunReader {
 public:
  SortedMemoryRunReader(std::shared_ptr<arrow::RecordBatch> rows, std::vector<int64_t> order,
                        int64_t chunk_rows)
      : rows_(std::move(rows)), order_(std::move(order)), chunk_rows_(chunk_rows) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= order_.size()) return std::shared_ptr<arrow::RecordBatch>();
    size_t end = std::min(order_.size(), next_ + static_cast<size_t>(chunk_rows_));
    std::vector<int64_t> chunk(order_.begin() + static_cast<std::ptrdiff_t>(next_),
                               order_.begin() + static_cast<std::ptrdiff_t>(end));
    next_ = end;
    return TakeRows(rows_, chunk);
  }

  // All records, unsorted: what a failed spill puts back into the buffer.
  const std::shared_ptr<arrow::RecordBatch>& rows() const { return rows_; }

 private:
  std::shared_ptr<arrow::RecordBatch> rows_;
  std::vector<int64_t> order_;
  int64_t chunk_rows_;
  size_t next_ = 0;
};

namespace {

// Reads a spill file batch by batch and deletes it at the end or on destruction.
class SpillRunReader : public KvRunReader {
 public:
  explicit SpillRunReader(std::string path) : path_(std::move(path)) {}
  ~SpillRunReader() override { Remove(); }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (!reader_) {
      if (done_) return std::shared_ptr<arrow::RecordBatch>();
      FJORD_ARROW_ASSIGN_OR_RAISE(file_, arrow::io::ReadableFile::Open(path_));
      FJORD_ARROW_ASSIGN_OR_RAISE(reader_, arrow::ipc::RecordBatchFileReader::Open(file_));
    }
    if (next_ >= reader_->num_record_batches()) {
      Remove();
      return std::shared_ptr<arrow::RecordBatch>();
    }
    auto batch = reader_->ReadRecordBatch(next_++);
    if (!batch.ok()) {
      return Status::IOError("spill file ", path_, ": ", batch.status().ToString());
    }
    return *batch;
  }

 private:
  void Remove() {
    reader_.reset();
    if (file_) (void)file_->Close();
    file_.reset();
    if (!done_) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
      done_ = true;
    }
  }

  std::string path_;
  std::shared_ptr<arrow::io::ReadableFile> file_;
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader_;
  int next_ = 0;
  bool done_ = false;
};

}  // namespace

SortBuffer::SortBuffer(KvLayout layout, SpillOptions options)
    : layout_(std::move(layout)), options_(std::move(options)) {}

SortBuffer::~SortBuffer() {
  for (const std::string& f : spill_files_) {
    std::error_code ec;
    std::filesystem::remove(f, ec);
  }
}

Status SortBuffer::Add(std::shared_ptr<arrow::RecordBatch> records) {
  if (records->num_rows() == 0) return Status::OK();
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(*records));
  memory_bytes_ += bytes;
  records_in_memory_ += records->num_rows();
  batches_.push_back(std::move(records));
  return Status::OK();
}

Result<std::unique_ptr<KvRunReader>> SortBuffer::SortedMemoryRun() {
  FJORD_ASSIGN_OR_RAISE(auto run, SortInMemory());
  return std::unique_ptr<KvRunReader>(std::move(run));
}

Result<std::unique_ptr<SortedMemoryRunReader>> SortBuffer::SortInMemory() {
  std::shared_ptr<arrow::RecordBatch> rows;
  if (batches_.size() == 1) {
    rows = batches_[0];
  } else {
    FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::ConcatenateRecordBatches(batches_));
  }
  batches_.clear();
  memory_bytes_ = 0;
  records_in_memory_ = 0;
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder key_encoder, layout_.KeyEncoder());
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder order_encoder, layout_.OrderEncoder());
  FJORD_ASSIGN_OR_RAISE(EncodedRows keys, key_encoder.Encode(*rows));
  FJORD_ASSIGN_OR_RAISE(EncodedRows order, order_encoder.Encode(*rows));
  std::vector<int64_t> indices(static_cast<size_t>(rows->num_rows()));
  std::iota(indices.begin(), indices.end(), 0);
  std::sort(indices.begin(), indices.end(), [&](int64_t a, int64_t b) {
    int c = CompareBytes(keys[a], keys[b]);
    if (c != 0) return c < 0;
    c = CompareBytes(order[a], order[b]);
    if (c != 0) return c < 0;
    return a < b;
  });
  return std::make_unique<SortedMemoryRunReader>(std::move(rows), std::move(indices),
                                                 options_.chunk_rows);
}

Result<std::string> SortBuffer::WriteSpillFile(KvRunReader* run) {
  std::error_code ec;
  std::filesystem::create_directories(options_.spill_dir, ec);
  if (ec) {
    return Status::IOError("cannot create spill directory ", options_.spill_dir, ": ",
                           ec.message());
  }
  std::string path = (std::filesystem::path(options_.spill_dir) /
                      ("spill-" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "-" +
                       std::to_string(spill_counter_++) + ".arrow"))
                         .string();
  arrow::ipc::IpcWriteOptions ipc = arrow::ipc::IpcWriteOptions::Defaults();
  if (options_.compression == "zstd" || options_.compression == "lz4") {
    auto type =
        options_.compression == "zstd" ? arrow::Compression::ZSTD : arrow::Compression::LZ4_FRAME;
    int level = options_.compression == "zstd" ? options_.zstd_level
                                               : arrow::util::kUseDefaultCompressionLevel;
    FJORD_ARROW_ASSIGN_OR_RAISE(ipc.codec, arrow::util::Codec::Create(type, level));
  } else if (options_.compression != "none" && options_.compression != "uncompressed") {
    return Status::Invalid("option 'spill-compression': unsupported '", options_.compression,
                           "' (zstd, lz4 or none)");
  }
  auto out = arrow::io::FileOutputStream::Open(path);
  if (!out.ok()) return Status::IOError("cannot create spill file ", path, ": ", out.status());
  FJORD_ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(*out, layout_.schema, ipc));
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
    if (!batch) break;
    Status st = FromArrow(writer->WriteRecordBatch(*batch));
    if (!st.ok()) {
      std::filesystem::remove(path, ec);
      return st.WithContext("spill file ", path);
    }
  }
  FJORD_ARROW_RETURN_NOT_OK(writer->Close());
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t size, (*out)->Tell());
  FJORD_ARROW_RETURN_NOT_OK((*out)->Close());
  spilled_bytes_ += size;
  return path;
}

Status SortBuffer::Spill() {
  if (batches_.empty()) return Status::OK();
  int64_t n = records_in_memory_;
  int64_t bytes = memory_bytes_;
  FJORD_ASSIGN_OR_RAISE(auto run, SortInMemory());
  Result<std::string> path = WriteSpillFile(run.get());
  if (!path.ok()) {
    // Nothing is lost: the records go back into memory.
    batches_ = {run->rows()};
    records_in_memory_ = n;
    memory_bytes_ = bytes;
    return path.status();
  }
  spill_files_.push_back(*path);
  records_spilled_ += n;
  if (static_cast<int32_t>(spill_files_.size()) >= options_.max_spill_files) {
    return MergeSpillFiles();
  }
  return Status::OK();
}

Status SortBuffer::MergeSpillFiles() {
  std::vector<std::unique_ptr<KvRunReader>> runs;
  for (const std::string& f : spill_files_) runs.push_back(std::make_unique<SpillRunReader>(f));
  spill_files_.clear();
  KvMergeOptions merge_options;
  merge_options.keep_all_records = true;
  merge_options.batch_rows = options_.chunk_rows;
  FJORD_ASSIGN_OR_RAISE(auto merged,
                        KvMergeReader::Make(layout_, nullptr, std::move(runs), merge_options));
  struct MergedRun : KvRunReader {
    KvMergeReader* reader;
    Result<std::shared_ptr<arrow::RecordBatch>> Next() override { return reader->Next(); }
  } run;
  run.reader = merged.get();
  FJORD_ASSIGN_OR_RAISE(std::string path, WriteSpillFile(&run));
  spill_files_.push_back(path);
  return Status::OK();
}

Result<std::vector<std::unique_ptr<KvRunReader>>> SortBuffer::TakeRuns() {
  std::vector<std::unique_ptr<KvRunReader>> runs;
  if (!batches_.empty()) {
    FJORD_ASSIGN_OR_RAISE(auto run, SortedMemoryRun());
    runs.push_back(std::move(run));
  }
  for (const std::string& f : spill_files_) runs.push_back(std::make_unique<SpillRunReader>(f));
  spill_files_.clear();
  records_spilled_ = 0;
  spilled_bytes_ = 0;
  return runs;
}

}  // namespace fjord
