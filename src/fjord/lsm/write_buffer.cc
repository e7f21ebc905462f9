#include "fjord/lsm/write_buffer.h"

#include <arrow/api.h>
#include <arrow/io/compressed.h>
#include <arrow/io/file.h>
#include <arrow/ipc/api.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/compression.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "fjord/common/arrow_status.h"
#include "fjord/format/gather_rows.h"

namespace fjord {

namespace {

// Reads a spill file batch by batch and deletes it at the end or on destruction.
// A spill file is an Arrow IPC stream, compressed as a whole (one zstd or LZ4 frame stream):
// compressing each buffer of each batch on its own, as IPC's own compression does, made a codec
// context per buffer (15% of a spilling write went to creating them and to the kernel mapping
// their memory).
Result<std::shared_ptr<arrow::util::Codec>> SpillCodec(const std::string& compression,
                                                       int32_t zstd_level) {
  if (compression == "zstd") {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto codec,
                                arrow::util::Codec::Create(arrow::Compression::ZSTD, zstd_level));
    return std::shared_ptr<arrow::util::Codec>(std::move(codec));
  }
  if (compression == "lz4") {
    FJORD_ARROW_ASSIGN_OR_RAISE(
        auto codec, arrow::util::Codec::Create(arrow::Compression::LZ4_FRAME,
                                               arrow::util::kUseDefaultCompressionLevel));
    return std::shared_ptr<arrow::util::Codec>(std::move(codec));
  }
  if (compression == "none" || compression == "uncompressed") {
    return std::shared_ptr<arrow::util::Codec>();
  }
  return Status::Invalid("option 'spill-compression': unsupported '", compression,
                         "' (zstd, lz4 or none)");
}

// Writes the run's batches to `file` as one IPC stream, compressed as a whole by `codec`.
Status WriteSpillStream(KvRunReader* run, const std::shared_ptr<arrow::Schema>& schema,
                        const std::shared_ptr<arrow::io::OutputStream>& file,
                        const std::shared_ptr<arrow::util::Codec>& codec) {
  std::shared_ptr<arrow::io::OutputStream> out = file;
  if (codec) {
    FJORD_ARROW_ASSIGN_OR_RAISE(out, arrow::io::CompressedOutputStream::Make(codec.get(), file));
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeStreamWriter(out, schema));
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
    if (!batch) break;
    FJORD_ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
  }
  FJORD_ARROW_RETURN_NOT_OK(writer->Close());
  FJORD_ARROW_RETURN_NOT_OK(out->Close());
  if (!file->closed()) FJORD_ARROW_RETURN_NOT_OK(file->Close());
  return Status::OK();
}

class SpillRunReader : public KvRunReader {
 public:
  SpillRunReader(std::string path, std::shared_ptr<arrow::util::Codec> codec,
                 arrow::MemoryPool* pool)
      : path_(std::move(path)),
        codec_(std::move(codec)),
        pool_(pool != nullptr ? pool : arrow::default_memory_pool()) {}
  ~SpillRunReader() override { Remove(); }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (!reader_) {
      if (done_) return std::shared_ptr<arrow::RecordBatch>();
      Status st = Open();
      if (!st.ok()) return Status::IOError("spill file ", path_, ": ", st.message());
    }
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = reader_->ReadNext(&batch);
    if (!st.ok()) return Status::IOError("spill file ", path_, ": ", st.ToString());
    if (!batch) Remove();
    return batch;
  }

 private:
  Status Open() {
    FJORD_ARROW_ASSIGN_OR_RAISE(file_, arrow::io::ReadableFile::Open(path_, pool_));
    std::shared_ptr<arrow::io::InputStream> in = file_;
    if (codec_) {
      FJORD_ARROW_ASSIGN_OR_RAISE(
          in, arrow::io::CompressedInputStream::Make(codec_.get(), file_, pool_));
    }
    in_ = in;
    arrow::ipc::IpcReadOptions read_options;
    read_options.memory_pool = pool_;
    FJORD_ARROW_ASSIGN_OR_RAISE(reader_,
                                arrow::ipc::RecordBatchStreamReader::Open(in_, read_options));
    return Status::OK();
  }

  void Remove() {
    reader_.reset();
    if (in_) (void)in_->Close();
    in_.reset();
    if (file_) (void)file_->Close();
    file_.reset();
    if (!done_) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
      done_ = true;
    }
  }

  std::string path_;
  std::shared_ptr<arrow::util::Codec> codec_;
  arrow::MemoryPool* pool_;
  std::shared_ptr<arrow::io::ReadableFile> file_;
  std::shared_ptr<arrow::io::InputStream> in_;
  std::shared_ptr<arrow::ipc::RecordBatchStreamReader> reader_;
  bool done_ = false;
};

// A run read ahead on a thread of its own, up to kDepth batches: a flush of one bucket merging
// spill files on one thread spent about a fifth of its time decompressing and decoding them
// while the other core waited (docs/performance.md, "Spill files read ahead").
class ReadAheadRun : public KvRunReader {
 public:
  explicit ReadAheadRun(std::unique_ptr<KvRunReader> run) : run_(std::move(run)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~ReadAheadRun() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (final_) return *final_;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !queue_.empty(); });
    Result<std::shared_ptr<arrow::RecordBatch>> next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    cv_.notify_all();
    if (!next.ok() || *next == nullptr) final_ = next;  // the end or an error, for every later call
    return next;
  }

 private:
  static constexpr size_t kDepth = 2;

  void Loop() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stop_ || queue_.size() < kDepth; });
        if (stop_) return;
      }
      Result<std::shared_ptr<arrow::RecordBatch>> next = run_->Next();
      const bool last = !next.ok() || *next == nullptr;
      {
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back(std::move(next));
      }
      cv_.notify_all();
      if (last) return;
    }
  }

  std::unique_ptr<KvRunReader> run_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Result<std::shared_ptr<arrow::RecordBatch>>> queue_;
  bool stop_ = false;
  std::optional<Result<std::shared_ptr<arrow::RecordBatch>>> final_;  // the consumer's
  std::thread thread_;
};

// A merged stream as a run (its output is in merge order).
class MergedRun : public KvRunReader {
 public:
  explicit MergedRun(KvMergeReader* reader) : reader_(reader) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override { return reader_->Next(); }

 private:
  KvMergeReader* reader_;
};

// Types whose Arrow builders append slices of arrays (AppendArraySlice).
bool SliceAppendable(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST:
    case arrow::Type::MAP:
    case arrow::Type::STRUCT:
      for (const auto& child : type.fields()) {
        if (!SliceAppendable(*child->type())) return false;
      }
      return true;
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256:
      return true;
    default:
      return arrow::is_primitive(type.id());
  }
}

// Bytes a builder has reserved (its capacity, not what it holds yet): builders grow by doubling,
// so up to half of it is still empty.
int64_t BuilderCapacityBytes(const arrow::ArrayBuilder& builder) {
  const int64_t rows = builder.capacity();
  int64_t bytes = (rows + 7) / 8;  // the validity bitmap
  const arrow::DataType& type = *builder.type();
  switch (type.id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      bytes +=
          (rows + 1) * 4 + static_cast<const arrow::BinaryBuilder&>(builder).value_data_capacity();
      break;
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      bytes += (rows + 1) * 8 +
               static_cast<const arrow::LargeBinaryBuilder&>(builder).value_data_capacity();
      break;
    case arrow::Type::LIST:
    case arrow::Type::MAP:
      bytes += (rows + 1) * 4;
      break;
    case arrow::Type::LARGE_LIST:
      bytes += (rows + 1) * 8;
      break;
    default:
      if (const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(&type)) {
        bytes += rows * fixed->bit_width() / 8;
      }
      break;
  }
  for (int i = 0; i < builder.num_children(); ++i) {
    bytes += BuilderCapacityBytes(*const_cast<arrow::ArrayBuilder&>(builder).child_builder(i));
  }
  return bytes;
}

// Every sorted chunk as a run of its own, read in slices of chunk_rows.
std::vector<std::unique_ptr<KvRunReader>> ChunkRuns(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& chunks, int64_t chunk_rows) {
  std::vector<std::unique_ptr<KvRunReader>> runs;
  for (const auto& chunk : chunks) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> slices;
    for (int64_t offset = 0; offset < chunk->num_rows(); offset += chunk_rows) {
      slices.push_back(chunk->Slice(offset, chunk_rows));
    }
    runs.push_back(MakeBatchRunReader(std::move(slices)));
  }
  return runs;
}

// Merges `runs` into a new spill file at `path` (every record kept, or with `last_record_wins`
// only each key's last); its size. On error the file is removed.
Result<int64_t> WriteRunFile(const std::string& path, const KvLayout& layout,
                             std::vector<std::unique_ptr<KvRunReader>> runs, int64_t chunk_rows,
                             const std::shared_ptr<arrow::util::Codec>& codec,
                             arrow::MemoryPool* pool, bool last_record_wins) {
  KvMergeOptions merge_options;
  merge_options.keep_all_records = !last_record_wins;
  merge_options.batch_rows = chunk_rows;
  merge_options.pool = pool;
  FJORD_ASSIGN_OR_RAISE(auto merged,
                        KvMergeReader::Make(layout, nullptr, std::move(runs), merge_options));
  MergedRun run(merged.get());
  auto file = arrow::io::FileOutputStream::Open(path);
  if (!file.ok()) return Status::IOError("cannot create spill file ", path, ": ", file.status());
  Status st = WriteSpillStream(&run, layout.schema, *file, codec);
  std::error_code ec;
  if (!st.ok()) {
    (void)(*file)->Close();
    std::filesystem::remove(path, ec);
    return st.WithContext("spill file ", path);
  }
  return static_cast<int64_t>(std::filesystem::file_size(path, ec));
}

// Sorts `batches` by (key, order, arrival) into one batch. The batches are sorted as they are
// and the rows copied once, in order, into the result (no concatenation first).
Result<std::shared_ptr<arrow::RecordBatch>> SortChunk(
    const KvLayout& layout, const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    arrow::MemoryPool* pool) {
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder key_encoder, layout.KeyEncoder());
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder order_encoder, layout.OrderEncoder());
  std::vector<EncodedRows> keys, order;
  std::vector<RowRef> refs;
  // Sorted as entries holding the first 8 bytes of both encodings: most comparisons end there,
  // without reaching into the encodings (a key of up to 8 bytes never does).
  struct Entry {
    uint64_t key_prefix;
    uint64_t order_prefix;
    uint32_t key_size;
    uint32_t order_size;
    size_t ref;  // index into refs, which are in arrival order
  };
  int64_t total_rows = 0;
  for (const auto& batch : batches) total_rows += batch->num_rows();
  std::vector<Entry> entries;
  entries.reserve(static_cast<size_t>(total_rows));
  refs.reserve(static_cast<size_t>(total_rows));
  for (size_t s = 0; s < batches.size(); ++s) {
    FJORD_ASSIGN_OR_RAISE(EncodedRows k, key_encoder.Encode(*batches[s]));
    FJORD_ASSIGN_OR_RAISE(EncodedRows o, order_encoder.Encode(*batches[s]));
    for (int64_t r = 0; r < batches[s]->num_rows(); ++r) {
      std::string_view kb = k[r], ob = o[r];
      entries.push_back({EncodedPrefix(kb), EncodedPrefix(ob), static_cast<uint32_t>(kb.size()),
                         static_cast<uint32_t>(ob.size()), refs.size()});
      refs.push_back({static_cast<int>(s), r});
    }
    keys.push_back(std::move(k));
    order.push_back(std::move(o));
  }
  auto tail = [&](const std::vector<EncodedRows>& enc, const Entry& a, const Entry& b,
                  uint32_t a_size, uint32_t b_size) {
    const RowRef& ra = refs[a.ref];
    const RowRef& rb = refs[b.ref];
    return CompareAfterEqualPrefix(
        a_size, b_size, [&] { return enc[static_cast<size_t>(ra.source)][ra.row]; },
        [&] { return enc[static_cast<size_t>(rb.source)][rb.row]; });
  };
  std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if (a.key_prefix != b.key_prefix) return a.key_prefix < b.key_prefix;
    int c = tail(keys, a, b, a.key_size, b.key_size);
    if (c != 0) return c < 0;
    if (a.order_prefix != b.order_prefix) return a.order_prefix < b.order_prefix;
    c = tail(order, a, b, a.order_size, b.order_size);
    if (c != 0) return c < 0;
    return a.ref < b.ref;  // arrival order
  });
  std::vector<RowRef> sorted_refs;
  sorted_refs.reserve(entries.size());
  for (const Entry& e : entries) sorted_refs.push_back(refs[e.ref]);
  refs = std::move(sorted_refs);
  return GatherRows(layout.schema, batches, refs, pool);
}

}  // namespace

int64_t SortChunkBytes(int64_t write_buffer_size) {
  return std::clamp<int64_t>(write_buffer_size / 16, int64_t{4} << 20, int64_t{16} << 20);
}

SortBuffer::SortBuffer(KvLayout layout, SpillOptions options)
    : layout_(std::move(layout)), options_(std::move(options)) {
  for (const auto& field : layout_.schema->fields()) {
    small_supported_ = small_supported_ && SliceAppendable(*field->type());
  }
}

SortBuffer::~SortBuffer() {
  (void)CollectSorts();  // the tasks use the buffer's layout and pool
  for (const std::string& f : spill_files_) {
    std::error_code ec;
    std::filesystem::remove(f, ec);
  }
}

Status SortBuffer::Add(std::shared_ptr<arrow::RecordBatch> records) {
  if (records->num_rows() == 0) return Status::OK();
  records_in_memory_ += records->num_rows();
  if (records->num_rows() < kSmallBatchRows && small_supported_) {
    FJORD_RETURN_NOT_OK(AppendSmall(*records));
  } else {
    FJORD_ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(*records));
    memory_bytes_ += bytes;
    pending_bytes_ += bytes;
    FJORD_RETURN_NOT_OK(FinishSmall());  // the rows that came first stay first
    pending_.push_back(std::move(records));
  }
  if (pending_bytes_ >= options_.sort_chunk_bytes) return SealPending(/*background=*/true);
  return Status::OK();
}

Status SortBuffer::AppendSmall(const arrow::RecordBatch& records) {
  // A writer of many buckets hands each a few rows per Write. Kept as batches, their Arrow
  // objects (arrays, buffers, each allocation rounded up) take many times the rows' bytes, which
  // the budget does not see; appended to one builder per column they cost their bytes.
  if (small_.empty()) {
    for (const auto& field : layout_.schema->fields()) {
      FJORD_ARROW_ASSIGN_OR_RAISE(
          std::unique_ptr<arrow::ArrayBuilder> builder,
          arrow::MakeBuilder(field->type(),
                             options_.pool ? options_.pool : arrow::default_memory_pool()));
      small_.push_back(std::move(builder));
    }
  }
  for (int c = 0; c < records.num_columns(); ++c) {
    arrow::ArraySpan span(*records.column_data(c));
    FJORD_ARROW_RETURN_NOT_OK(
        small_[static_cast<size_t>(c)]->AppendArraySlice(span, 0, records.num_rows()));
  }
  small_rows_ += records.num_rows();
  // The budget counts what the builders reserved, not the rows' bytes: builders grow by doubling,
  // and a thousand buckets' half-empty builders took the writer past twice its buffer, unseen.
  int64_t reserved = 0;
  for (const auto& builder : small_) reserved += BuilderCapacityBytes(*builder);
  memory_bytes_ += reserved - small_bytes_;
  pending_bytes_ += reserved - small_bytes_;
  small_bytes_ = reserved;
  if (small_rows_ >= kSmallBatchRows) return FinishSmall();
  return Status::OK();
}

Status SortBuffer::FinishSmall() {
  if (small_rows_ == 0) return Status::OK();
  arrow::ArrayVector columns;
  for (auto& builder : small_) {
    std::shared_ptr<arrow::Array> column;
    FJORD_ARROW_RETURN_NOT_OK(builder->Finish(&column));
    columns.push_back(std::move(column));
  }
  auto batch = arrow::RecordBatch::Make(layout_.schema, small_rows_, std::move(columns));
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(*batch));
  memory_bytes_ += bytes - small_bytes_;
  pending_bytes_ += bytes - small_bytes_;
  small_rows_ = 0;
  small_bytes_ = 0;
  pending_.push_back(std::move(batch));
  return Status::OK();
}

Status SortBuffer::SealPending(bool background) {
  FJORD_RETURN_NOT_OK(FinishSmall());
  if (background && options_.background) {
    if (pending_.empty()) return Status::OK();
    // One chunk sorted beside the buffer at a time: when the last one is still being sorted (or
    // waits for a thread), its sort ends first, here if it has not started. Chunks queued behind
    // a busy pool would let the records come in faster than the spills take them out, and the
    // writer's memory reach its hard limit (1.5x the budget) where it stayed near the budget.
    FJORD_RETURN_NOT_OK(CollectSorts());
    // Sorted on another thread while the buffer takes the next records; its bytes stay counted
    // as pending until CollectSorts takes the sorted chunk.
    sorting_ = std::make_unique<Sorting>();
    sorting_->input_bytes = pending_bytes_;
    sorting_->task = std::make_shared<ClaimableTask>(
        [this, out = sorting_.get(), batches = std::move(pending_)]() -> Status {
          FJORD_ASSIGN_OR_RAISE(out->sorted, SortChunk(layout_, batches, options_.pool));
          return Status::OK();
        });
    pending_.clear();
    pending_bytes_ = 0;
    options_.background([task = sorting_->task] { return task->Run(); });
    return Status::OK();
  }
  FJORD_RETURN_NOT_OK(CollectSorts());
  if (pending_.empty()) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(auto sorted, SortChunk(layout_, pending_, options_.pool));
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(*sorted));
  memory_bytes_ += bytes - pending_bytes_;
  pending_.clear();
  pending_bytes_ = 0;
  sorted_.push_back(std::move(sorted));
  return Status::OK();
}

Status SortBuffer::CollectSorts() {
  if (!sorting_) return Status::OK();
  // A failed sort loses its records: the buffer's owner must be discarded (as after a failed
  // spill job).
  std::unique_ptr<Sorting> sorting = std::move(sorting_);
  FJORD_RETURN_NOT_OK(sorting->task->Wait());
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(*sorting->sorted));
  memory_bytes_ += bytes - sorting->input_bytes;
  sorted_.push_back(std::move(sorting->sorted));
  return Status::OK();
}

Result<std::string> SortBuffer::NextSpillPath() {
  std::error_code ec;
  std::filesystem::create_directories(options_.spill_dir, ec);
  if (ec) {
    return Status::IOError("cannot create spill directory ", options_.spill_dir, ": ",
                           ec.message());
  }
  if (!spill_codec_made_) {
    FJORD_ASSIGN_OR_RAISE(spill_codec_, SpillCodec(options_.compression, options_.zstd_level));
    spill_codec_made_ = true;
  }
  return (std::filesystem::path(options_.spill_dir) /
          ("spill-" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "-" +
           std::to_string(spill_counter_++) + ".arrow"))
      .string();
}

Status SortBuffer::Spill() {
  FJORD_RETURN_NOT_OK(SealPending());
  if (sorted_.empty()) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(std::string path, NextSpillPath());
  // On error nothing is lost: the sorted chunks stay in memory.
  FJORD_ASSIGN_OR_RAISE(
      int64_t bytes,
      WriteRunFile(path, layout_, ChunkRuns(sorted_, options_.chunk_rows), options_.chunk_rows,
                   spill_codec_, options_.pool, options_.last_record_wins));
  spilled_bytes_ += bytes;
  MarkSpilled(std::move(path));
  if (static_cast<int32_t>(spill_files_.size()) >= options_.max_spill_files) {
    return MergeSpillFiles();
  }
  return Status::OK();
}

Result<std::unique_ptr<SpillJob>> SortBuffer::TakeSpill() {
  FJORD_RETURN_NOT_OK(SealPending());
  if (sorted_.empty()) return std::unique_ptr<SpillJob>();
  // The job's file will be one more: merging first keeps the files within the limit.
  if (static_cast<int32_t>(spill_files_.size()) + 1 >= options_.max_spill_files) {
    FJORD_RETURN_NOT_OK(MergeSpillFiles());
  }
  FJORD_ASSIGN_OR_RAISE(std::string path, NextSpillPath());
  std::unique_ptr<SpillJob> job(new SpillJob());
  job->layout_ = layout_;
  job->chunk_rows_ = options_.chunk_rows;
  job->chunks_ = std::move(sorted_);
  job->path_ = path;
  job->codec_ = spill_codec_;
  job->pool_ = options_.pool;
  job->last_record_wins_ = options_.last_record_wins;
  job->memory_bytes_ = memory_bytes_;
  job->spilled_bytes_ = &spilled_bytes_;
  MarkSpilled(std::move(path));
  return job;
}

void SortBuffer::MarkSpilled(std::string path) {
  spill_files_.push_back(std::move(path));
  records_spilled_ += records_in_memory_;
  records_in_memory_ = 0;
  memory_bytes_ = 0;
  sorted_.clear();
}

Status SpillJob::Write() {
  FJORD_ASSIGN_OR_RAISE(file_bytes_, WriteRunFile(path_, layout_, ChunkRuns(chunks_, chunk_rows_),
                                                  chunk_rows_, codec_, pool_, last_record_wins_));
  *spilled_bytes_ += file_bytes_;
  return Status::OK();
}

Status SortBuffer::MergeSpillFiles() {
  std::vector<std::unique_ptr<KvRunReader>> runs;
  for (const std::string& f : spill_files_)
    runs.push_back(std::make_unique<SpillRunReader>(f, spill_codec_, options_.pool));
  spill_files_.clear();
  FJORD_ASSIGN_OR_RAISE(std::string path, NextSpillPath());
  FJORD_ASSIGN_OR_RAISE(
      int64_t bytes, WriteRunFile(path, layout_, std::move(runs), options_.chunk_rows, spill_codec_,
                                  options_.pool, options_.last_record_wins));
  spilled_bytes_ += bytes;
  spill_files_.push_back(path);
  return Status::OK();
}

Result<std::vector<std::unique_ptr<KvRunReader>>> SortBuffer::TakeRuns(bool read_ahead) {
  FJORD_RETURN_NOT_OK(SealPending());
  std::vector<std::unique_ptr<KvRunReader>> runs = ChunkRuns(sorted_, options_.chunk_rows);
  sorted_.clear();
  memory_bytes_ = 0;
  records_in_memory_ = 0;
  read_ahead = read_ahead && spill_files_.size() <= kMaxReadAheadRuns;
  for (const std::string& f : spill_files_) {
    auto run = std::make_unique<SpillRunReader>(f, spill_codec_, options_.pool);
    if (read_ahead) {
      runs.push_back(std::make_unique<ReadAheadRun>(std::move(run)));
    } else {
      runs.push_back(std::move(run));
    }
  }
  spill_files_.clear();
  records_spilled_ = 0;
  spilled_bytes_.store(0);
  return runs;
}

}  // namespace fjord
