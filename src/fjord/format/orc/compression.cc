#include "fjord/format/orc/compression.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>

namespace fjord::orc {

namespace {

// RAII for a raw-inflate zlib stream.
class Inflater {
 public:
  Inflater() { ok_ = inflateInit2(&strm_, -15) == Z_OK; }
  ~Inflater() {
    if (ok_) inflateEnd(&strm_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  bool ok() const { return ok_; }
  z_stream* get() { return &strm_; }

 private:
  z_stream strm_{};
  bool ok_ = false;
};

}  // namespace

Decompressor::Decompressor(OrcCompression compression, uint64_t block_size)
    : compression_(compression), block_size_(block_size) {}

Decompressor::~Decompressor() {
  if (zstd_ != nullptr) ZSTD_freeDCtx(zstd_);
}

Result<size_t> Decompressor::DecompressChunk(std::string_view chunk, char* dst, size_t capacity) {
  switch (compression_) {
    case OrcCompression::kZlib: {
      Inflater inflater;
      if (!inflater.ok()) return Status::Internal("inflateInit2 failed");
      z_stream* s = inflater.get();
      s->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
      s->avail_in = static_cast<uInt>(chunk.size());
      s->next_out = reinterpret_cast<Bytef*>(dst);
      s->avail_out = static_cast<uInt>(capacity);
      int rc = inflate(s, Z_FINISH);
      if (rc != Z_STREAM_END) {
        if (s->avail_out == 0) return Status::Corruption("zlib chunk exceeds the block size");
        return Status::Corruption("invalid zlib data (", rc, ")");
      }
      return static_cast<size_t>(s->total_out);
    }
    case OrcCompression::kSnappy: {
      size_t length = 0;
      if (!snappy::GetUncompressedLength(chunk.data(), chunk.size(), &length)) {
        return Status::Corruption("invalid snappy data (bad length header)");
      }
      if (length > capacity) {
        return Status::Corruption("snappy chunk of ", length, " bytes exceeds the block size");
      }
      if (!snappy::RawUncompress(chunk.data(), chunk.size(), dst)) {
        return Status::Corruption("invalid snappy data");
      }
      return length;
    }
    case OrcCompression::kLz4: {
      int n = LZ4_decompress_safe(chunk.data(), dst, static_cast<int>(chunk.size()),
                                  static_cast<int>(capacity));
      if (n < 0) return Status::Corruption("invalid lz4 data or chunk exceeds the block size");
      return static_cast<size_t>(n);
    }
    case OrcCompression::kZstd: {
      if (zstd_ == nullptr) zstd_ = ZSTD_createDCtx();
      if (zstd_ == nullptr) return Status::Internal("ZSTD_createDCtx failed");
      size_t n = ZSTD_decompressDCtx(zstd_, dst, capacity, chunk.data(), chunk.size());
      if (ZSTD_isError(n)) {
        return Status::Corruption("invalid zstd data or chunk exceeds the block size: ",
                                  ZSTD_getErrorName(n));
      }
      return n;
    }
    default:
      return Status::NotImplemented("no decompressor for ORC codec ",
                                    OrcCompressionName(compression_));
  }
}

Status Decompressor::Decompress(std::string_view in, uint64_t max_bytes, std::string* out) {
  out->clear();
  if (compression_ == OrcCompression::kNone) {
    if (in.size() > max_bytes) return Status::Corruption("larger than ", max_bytes, " bytes");
    out->assign(in);
    return Status::OK();
  }
  if (compression_ == OrcCompression::kLzo) {
    return Status::NotImplemented("ORC files compressed with LZO are not supported");
  }
  size_t chunk_index = 0;
  while (!in.empty()) {
    if (in.size() < 3) return Status::Corruption("truncated compression chunk header");
    uint32_t header = static_cast<uint8_t>(in[0]) | (static_cast<uint8_t>(in[1]) << 8) |
                      (static_cast<uint32_t>(static_cast<uint8_t>(in[2])) << 16);
    in.remove_prefix(3);
    bool original = (header & 1) != 0;
    size_t length = header >> 1;
    if (length > in.size()) {
      return Status::Corruption("compression chunk ", chunk_index, " claims ", length,
                                " bytes but only ", in.size(), " remain");
    }
    if (length > block_size_) {
      return Status::Corruption("compression chunk ", chunk_index, " of ", length,
                                " bytes exceeds the block size ", block_size_);
    }
    std::string_view chunk = in.substr(0, length);
    in.remove_prefix(length);
    uint64_t room = max_bytes - std::min<uint64_t>(max_bytes, out->size());
    if (original) {
      if (length > room) return Status::Corruption("larger than ", max_bytes, " bytes");
      out->append(chunk);
    } else {
      auto capacity = static_cast<size_t>(std::min(block_size_, room));
      if (scratch_size_ < capacity) {
        scratch_.reset(new char[capacity]);
        scratch_size_ = capacity;
      }
      Result<size_t> n = DecompressChunk(chunk, scratch_.get(), capacity);
      if (!n.ok()) return n.status().WithContext("compression chunk ", chunk_index);
      out->append(scratch_.get(), *n);
    }
    ++chunk_index;
  }
  return Status::OK();
}

}  // namespace fjord::orc
