#include "fjord/lsm/lookup_file.h"

#include <arrow/api.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/api.h>
#include <arrow/util/byte_size.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "fjord/common/arrow_status.h"
#include "fjord/common/byte_order.h"

namespace fjord {

namespace {

constexpr uint64_t kMagic = 0x314b4f4f4c4a4446ULL;  // "FDJLOOK1"
constexpr int kFooterWords = 9;

// 64-bit hash of a byte string (a multiply-mix over 8-byte words); only this process reads it.
uint64_t HashKey(std::string_view key) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t h = 0x243F6A8885A308D3ULL ^ (key.size() * kMul);
  const auto* p = reinterpret_cast<const uint8_t*>(key.data());
  size_t n = key.size();
  while (n >= 8) {
    h = (h ^ LoadLittleEndian64(p)) * kMul;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  h = (h ^ tail) * kMul;
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32;
  return h;
}

Status PreadAll(int fd, uint8_t* out, uint64_t length, uint64_t offset, std::string_view source) {
  while (length > 0) {
    ssize_t n = ::pread(fd, out, length, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IOError("reading lookup file ", source, " at ", offset, ": ",
                             n == 0 ? "unexpected end" : std::strerror(errno));
    }
    out += n;
    offset += static_cast<uint64_t>(n);
    length -= static_cast<uint64_t>(n);
  }
  return Status::OK();
}

}  // namespace

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(const uint8_t** p, const uint8_t* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

// ---- Bloom filter

LookupBloomFilter LookupBloomFilter::ForEntries(int64_t entries, double fpp) {
  double n = static_cast<double>(std::max<int64_t>(entries, 1));
  double ln2 = std::log(2.0);
  double bits = std::ceil(-n * std::log(fpp) / (ln2 * ln2));
  uint64_t num_bits = std::max<uint64_t>(64, static_cast<uint64_t>(bits));
  num_bits = (num_bits + 63) / 64 * 64;
  int32_t hashes = std::max(1, static_cast<int32_t>(std::lround(bits / n * ln2)));
  return FromBits(std::string(num_bits / 8, '\0'), hashes);
}

LookupBloomFilter LookupBloomFilter::FromBits(std::string bits, int32_t hashes) {
  LookupBloomFilter f;
  f.bits_ = std::move(bits);
  f.num_bits_ = static_cast<uint64_t>(f.bits_.size()) * 8;
  f.hashes_ = hashes;
  return f;
}

void LookupBloomFilter::Add(std::string_view key) {
  uint64_t h = HashKey(key);
  uint64_t h1 = h, h2 = (h >> 33) | (h << 31) | 1;
  for (int32_t i = 0; i < hashes_; ++i) {
    uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) % num_bits_;
    bits_[bit >> 3] = static_cast<char>(static_cast<uint8_t>(bits_[bit >> 3]) | (1u << (bit & 7)));
  }
}

bool LookupBloomFilter::MayContain(std::string_view key) const {
  if (num_bits_ == 0) return true;
  uint64_t h = HashKey(key);
  uint64_t h1 = h, h2 = (h >> 33) | (h << 31) | 1;
  for (int32_t i = 0; i < hashes_; ++i) {
    uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) % num_bits_;
    if (!(static_cast<uint8_t>(bits_[bit >> 3]) & (1u << (bit & 7)))) return false;
  }
  return true;
}

int64_t LookupFileMeta::MemoryBytes() const {
  int64_t bytes = static_cast<int64_t>(sizeof(*this) + bloom.bits().size() +
                                       offsets.size() * (sizeof(uint64_t) + sizeof(uint32_t)));
  for (const std::string& k : last_keys) {
    bytes += static_cast<int64_t>(sizeof(std::string) + k.capacity());
  }
  return bytes;
}

// ---- Blocks

Result<std::shared_ptr<const LookupBlock>> LookupBlock::Decode(
    std::shared_ptr<arrow::Buffer> bytes, const std::shared_ptr<arrow::Schema>& record_schema,
    std::string_view source) {
  auto block = std::make_shared<LookupBlock>();
  int64_t size = bytes->size();
  if (size < 8) return Status::Corruption("lookup file ", source, ": block of ", size, " bytes");
  const uint8_t* data = bytes->data();
  uint32_t n = LoadLittleEndian32(data + size - 4);
  uint32_t ipc_offset = LoadLittleEndian32(data + size - 8);
  int64_t offsets_at = size - 8 - 4 * static_cast<int64_t>(n);
  if (offsets_at < 0 || ipc_offset > offsets_at) {
    return Status::Corruption("lookup file ", source, ": block trailer out of range");
  }
  block->offsets_ = data + offsets_at;
  block->entries_ = n;
  if (record_schema) {
    auto ipc = arrow::SliceBuffer(bytes, ipc_offset, offsets_at - ipc_offset);
    arrow::io::BufferReader reader(ipc);
    arrow::ipc::DictionaryMemo memo;
    FJORD_ARROW_ASSIGN_OR_RAISE(
        block->records_,
        arrow::ipc::ReadRecordBatch(record_schema, &memo, arrow::ipc::IpcReadOptions::Defaults(),
                                    &reader));
    if (block->records_->num_rows() != n) {
      return Status::Corruption("lookup file ", source, ": block of ", n, " entries holds ",
                                block->records_->num_rows(), " records");
    }
  }
  block->bytes_ = std::move(bytes);
  return std::shared_ptr<const LookupBlock>(std::move(block));
}

std::string_view LookupBlock::Key(int64_t entry, const uint8_t** payload_at) const {
  const uint8_t* p = bytes_->data() + LoadLittleEndian32(offsets_ + 4 * entry);
  const uint8_t* end = offsets_;
  uint64_t len = 0;
  GetVarint(&p, end, &len);
  std::string_view key(reinterpret_cast<const char*>(p), len);
  if (payload_at) *payload_at = p + len;
  return key;
}

int64_t LookupBlock::Find(std::string_view key) const {
  int64_t lo = 0, hi = entries_;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (Key(mid, nullptr) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < entries_ && Key(lo, nullptr) == key) return lo;
  return -1;
}

std::string_view LookupBlock::Payload(int64_t entry) const {
  const uint8_t* p = nullptr;
  Key(entry, &p);
  uint64_t len = 0;
  GetVarint(&p, offsets_, &len);
  return std::string_view(reinterpret_cast<const char*>(p), len);
}

std::shared_ptr<arrow::RecordBatch> LookupBlock::Record(int64_t entry) const {
  return records_ ? records_->Slice(entry, 1) : nullptr;
}

int64_t LookupBlock::MemoryBytes() const {
  // The record batch reads its buffers out of bytes_ (zero-copy), so the block's bytes are all.
  return static_cast<int64_t>(sizeof(*this)) + bytes_->size();
}

// ---- Writer

Result<std::unique_ptr<LookupFileWriter>> LookupFileWriter::Open(
    std::string path, int64_t expected_entries, double bloom_fpp,
    std::shared_ptr<arrow::Schema> record_schema) {
  std::unique_ptr<LookupFileWriter> w(new LookupFileWriter());
  w->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (w->fd_ < 0) {
    return Status::IOError("creating lookup file ", path, ": ", std::strerror(errno));
  }
  w->path_ = std::move(path);
  if (bloom_fpp > 0 && bloom_fpp < 1) {
    w->meta_->has_bloom = true;
    w->meta_->bloom = LookupBloomFilter::ForEntries(expected_entries, bloom_fpp);
  }
  w->meta_->record_schema = std::move(record_schema);
  return w;
}

LookupFileWriter::~LookupFileWriter() {
  if (fd_ >= 0) {
    // Not finished: a failed build leaves nothing behind.
    ::close(fd_);
    ::unlink(path_.c_str());
  }
}

Status LookupFileWriter::Append(std::string_view bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Status::IOError("writing lookup file ", path_, ": ", std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
  offset_ += bytes.size();
  return Status::OK();
}

Status LookupFileWriter::FlushRecords() {
  if (open_part_batch_) {
    record_parts_.push_back(
        open_part_batch_->Slice(open_part_begin_, open_part_end_ - open_part_begin_));
    open_part_batch_.reset();
  }
  return Status::OK();
}

Status LookupFileWriter::Add(std::string_view key, std::string_view payload,
                             const std::shared_ptr<arrow::RecordBatch>& records, int64_t row) {
  if (any_key_ && !(last_key_ < key)) {
    return Status::Invalid("lookup file ", path_, ": keys out of order or repeated");
  }
  entry_offsets_.push_back(static_cast<uint32_t>(block_.size()));
  PutVarint(&block_, key.size());
  block_.append(key);
  PutVarint(&block_, payload.size());
  block_.append(payload);
  last_key_.assign(key);
  any_key_ = true;
  if (meta_->has_bloom) meta_->bloom.Add(key);
  if (meta_->record_schema) {
    if (open_part_batch_ != records || row != open_part_end_) {
      FJORD_RETURN_NOT_OK(FlushRecords());
      open_part_batch_ = records;
      open_part_begin_ = row;
      // The block's share of the batch's memory, for cutting blocks.
      record_bytes_per_row_ = records->num_rows() > 0
                                  ? arrow::util::TotalBufferSize(*records) / records->num_rows()
                                  : 0;
    }
    open_part_end_ = row + 1;
    record_bytes_ += record_bytes_per_row_;
  }
  if (static_cast<int64_t>(block_.size()) + record_bytes_ >= kLookupBlockBytes) {
    return FlushBlock();
  }
  return Status::OK();
}

Status LookupFileWriter::FlushBlock() {
  if (entry_offsets_.empty()) return Status::OK();
  uint32_t ipc_offset = static_cast<uint32_t>(block_.size());
  if (meta_->record_schema) {
    FJORD_RETURN_NOT_OK(FlushRecords());
    std::shared_ptr<arrow::RecordBatch> rows;
    if (record_parts_.size() == 1) {
      rows = record_parts_[0];
    } else {
      FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::ConcatenateRecordBatches(record_parts_));
    }
    record_parts_.clear();
    record_bytes_ = 0;
    // IPC buffers are read in place: their start must be 8-aligned within the block.
    block_.resize((block_.size() + 7) / 8 * 8, '\0');
    ipc_offset = static_cast<uint32_t>(block_.size());
    FJORD_ARROW_ASSIGN_OR_RAISE(
        auto ipc, arrow::ipc::SerializeRecordBatch(*rows, arrow::ipc::IpcWriteOptions::Defaults()));
    block_.append(reinterpret_cast<const char*>(ipc->data()), static_cast<size_t>(ipc->size()));
  }
  // Blocks end (so the next one starts) 8-aligned in the file, as the reader's buffer is.
  size_t trailer = 4 * entry_offsets_.size() + 8;
  block_.resize((block_.size() + trailer + 7) / 8 * 8 - trailer, '\0');
  for (uint32_t o : entry_offsets_) AppendLittleEndian32(&block_, o);
  AppendLittleEndian32(&block_, ipc_offset);
  AppendLittleEndian32(&block_, static_cast<uint32_t>(entry_offsets_.size()));
  meta_->last_keys.push_back(last_key_);
  meta_->offsets.push_back(offset_);
  meta_->lengths.push_back(static_cast<uint32_t>(block_.size()));
  FJORD_RETURN_NOT_OK(Append(block_));
  block_.clear();
  entry_offsets_.clear();
  return Status::OK();
}

Result<int64_t> LookupFileWriter::Finish(std::shared_ptr<const LookupFileMeta>* meta) {
  FJORD_RETURN_NOT_OK(FlushBlock());
  std::string tail;
  uint64_t bloom_offset = offset_;
  if (meta_->has_bloom) tail.append(meta_->bloom.bits());
  uint64_t index_offset = offset_ + tail.size();
  for (size_t b = 0; b < meta_->last_keys.size(); ++b) {
    PutVarint(&tail, meta_->last_keys[b].size());
    tail.append(meta_->last_keys[b]);
    PutVarint(&tail, meta_->offsets[b]);
    PutVarint(&tail, meta_->lengths[b]);
  }
  uint64_t schema_offset = offset_ + tail.size();
  if (meta_->record_schema) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto schema, arrow::ipc::SerializeSchema(*meta_->record_schema));
    tail.append(reinterpret_cast<const char*>(schema->data()), static_cast<size_t>(schema->size()));
  }
  uint64_t end = offset_ + tail.size();
  AppendLittleEndian64(&tail, bloom_offset);
  AppendLittleEndian64(&tail, index_offset - bloom_offset);
  AppendLittleEndian64(&tail, static_cast<uint64_t>(meta_->has_bloom ? meta_->bloom.hashes() : 0));
  AppendLittleEndian64(&tail, index_offset);
  AppendLittleEndian64(&tail, schema_offset - index_offset);
  AppendLittleEndian64(&tail, schema_offset);
  AppendLittleEndian64(&tail, end - schema_offset);
  AppendLittleEndian64(&tail, meta_->last_keys.size());
  AppendLittleEndian64(&tail, kMagic);
  FJORD_RETURN_NOT_OK(Append(tail));
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(path_.c_str());
    return Status::IOError("closing lookup file ", path_, ": ", std::strerror(errno));
  }
  fd_ = -1;
  *meta = std::move(meta_);
  return static_cast<int64_t>(offset_);
}

// ---- Readers

Result<std::shared_ptr<const LookupFileMeta>> ReadLookupFileMeta(int fd, int64_t size,
                                                                 std::string_view source) {
  constexpr int64_t kFooter = 8 * kFooterWords;
  if (size < kFooter) return Status::Corruption("lookup file ", source, " is truncated");
  uint8_t footer[kFooter];
  FJORD_RETURN_NOT_OK(PreadAll(fd, footer, kFooter, static_cast<uint64_t>(size - kFooter), source));
  uint64_t w[kFooterWords];
  for (int i = 0; i < kFooterWords; ++i) w[i] = LoadLittleEndian64(footer + 8 * i);
  if (w[8] != kMagic) return Status::Corruption("lookup file ", source, ": bad magic");
  uint64_t tail_begin = w[0];
  uint64_t tail_end = w[5] + w[6];
  if (tail_end + kFooter != static_cast<uint64_t>(size) || tail_begin > tail_end) {
    return Status::Corruption("lookup file ", source, ": footer out of range");
  }
  std::string tail(tail_end - tail_begin, '\0');
  FJORD_RETURN_NOT_OK(
      PreadAll(fd, reinterpret_cast<uint8_t*>(tail.data()), tail.size(), tail_begin, source));
  auto meta = std::make_shared<LookupFileMeta>();
  if (w[2] > 0) {
    meta->has_bloom = true;
    meta->bloom = LookupBloomFilter::FromBits(tail.substr(0, w[1]), static_cast<int32_t>(w[2]));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(tail.data()) + (w[3] - tail_begin);
  const uint8_t* end = p + w[4];
  for (uint64_t b = 0; b < w[7]; ++b) {
    uint64_t len = 0, offset = 0, length = 0;
    if (!GetVarint(&p, end, &len) || static_cast<uint64_t>(end - p) < len) {
      return Status::Corruption("lookup file ", source, ": block index truncated");
    }
    meta->last_keys.emplace_back(reinterpret_cast<const char*>(p), len);
    p += len;
    if (!GetVarint(&p, end, &offset) || !GetVarint(&p, end, &length)) {
      return Status::Corruption("lookup file ", source, ": block index truncated");
    }
    meta->offsets.push_back(offset);
    meta->lengths.push_back(static_cast<uint32_t>(length));
  }
  if (w[6] > 0) {
    auto buffer = std::make_shared<arrow::Buffer>(
        reinterpret_cast<const uint8_t*>(tail.data()) + (w[5] - tail_begin),
        static_cast<int64_t>(w[6]));
    arrow::io::BufferReader reader(buffer);
    arrow::ipc::DictionaryMemo memo;
    FJORD_ARROW_ASSIGN_OR_RAISE(meta->record_schema, arrow::ipc::ReadSchema(&reader, &memo));
  }
  return std::shared_ptr<const LookupFileMeta>(std::move(meta));
}

Result<std::shared_ptr<const LookupBlock>> ReadLookupBlock(int fd, const LookupFileMeta& meta,
                                                           size_t block, std::string_view source) {
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> buffer,
                              arrow::AllocateResizableBuffer(meta.lengths[block]));
  FJORD_RETURN_NOT_OK(
      PreadAll(fd, buffer->mutable_data(), meta.lengths[block], meta.offsets[block], source));
  return LookupBlock::Decode(std::move(buffer), meta.record_schema, source);
}

}  // namespace fjord
