#include "fjord/format/orc/out_stream.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>

namespace fjord::orc {

namespace {

// The largest chunk a 3-byte header can describe.
constexpr uint64_t kMaxChunk = (uint64_t{1} << 23) - 1;

void PutHeader(char* at, uint64_t length, bool original) {
  uint64_t header = (length << 1) | (original ? 1 : 0);
  at[0] = static_cast<char>(header & 0xff);
  at[1] = static_cast<char>((header >> 8) & 0xff);
  at[2] = static_cast<char>((header >> 16) & 0xff);
}

}  // namespace

Result<std::unique_ptr<Compressor>> Compressor::Make(OrcCompression compression, int level,
                                                     bool filtered) {
  switch (compression) {
    case OrcCompression::kZlib:
      if (level < -1 || level > 9) return Status::Invalid("zlib level ", level, " not in -1..9");
      break;
    case OrcCompression::kZstd:
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return Status::Invalid("zstd level ", level, " not in ", ZSTD_minCLevel(), "..",
                               ZSTD_maxCLevel());
      }
      break;
    case OrcCompression::kSnappy:
    case OrcCompression::kLz4:
      break;
    default:
      return Status::NotImplemented("ORC compression ", OrcCompressionName(compression),
                                    " is not supported for writing");
  }
  return std::unique_ptr<Compressor>(new Compressor(compression, level, filtered));
}

Compressor::Compressor(OrcCompression compression, int level, bool filtered)
    : compression_(compression), level_(level), filtered_(filtered) {}

Compressor::~Compressor() {
  if (zstd_ != nullptr) ZSTD_freeCCtx(zstd_);
  if (deflate_) deflateEnd(deflate_.get());
}

Status Compressor::AppendChunk(std::string_view block, std::string* out) {
  const size_t start = out->size();
  size_t bound = 0;
  switch (compression_) {
    case OrcCompression::kZlib:
      bound = deflateBound(nullptr, static_cast<uLong>(block.size()));
      break;
    case OrcCompression::kSnappy:
      bound = snappy::MaxCompressedLength(block.size());
      break;
    case OrcCompression::kLz4:
      bound = static_cast<size_t>(LZ4_compressBound(static_cast<int>(block.size())));
      break;
    case OrcCompression::kZstd:
      bound = ZSTD_compressBound(block.size());
      break;
    default:
      return Status::Internal("no compressor for ", OrcCompressionName(compression_));
  }
  out->resize(start + 3 + bound);
  char* dst = out->data() + start + 3;
  size_t n = 0;
  switch (compression_) {
    case OrcCompression::kZlib: {
      if (!deflate_) {
        auto strm = std::make_unique<z_stream>();
        if (deflateInit2(strm.get(), level_, Z_DEFLATED, -15, 8,
                         filtered_ ? Z_FILTERED : Z_DEFAULT_STRATEGY) != Z_OK) {
          return Status::Internal("deflateInit2 failed");
        }
        deflate_ = std::move(strm);
      } else if (deflateReset(deflate_.get()) != Z_OK) {
        return Status::Internal("deflateReset failed");
      }
      z_stream* s = deflate_.get();
      s->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
      s->avail_in = static_cast<uInt>(block.size());
      s->next_out = reinterpret_cast<Bytef*>(dst);
      s->avail_out = static_cast<uInt>(bound);
      int rc = deflate(s, Z_FINISH);
      if (rc != Z_STREAM_END) return Status::Internal("deflate failed: ", rc);
      n = static_cast<size_t>(s->total_out);
      break;
    }
    case OrcCompression::kSnappy:
      snappy::RawCompress(block.data(), block.size(), dst, &n);
      break;
    case OrcCompression::kLz4: {
      int r = LZ4_compress_default(block.data(), dst, static_cast<int>(block.size()),
                                   static_cast<int>(bound));
      if (r <= 0) return Status::Internal("LZ4 compression failed");
      n = static_cast<size_t>(r);
      break;
    }
    case OrcCompression::kZstd: {
      if (zstd_ == nullptr) zstd_ = ZSTD_createCCtx();
      if (zstd_ == nullptr) return Status::Internal("ZSTD_createCCtx failed");
      ZSTD_CCtx_reset(zstd_, ZSTD_reset_session_and_parameters);
      ZSTD_CCtx_setParameter(zstd_, ZSTD_c_compressionLevel, level_);
      n = ZSTD_compress2(zstd_, dst, bound, block.data(), block.size());
      if (ZSTD_isError(n))
        return Status::Internal("zstd compression failed: ", ZSTD_getErrorName(n));
      break;
    }
    default:
      break;
  }
  if (n >= block.size()) {
    // Not smaller: stored as it is.
    out->resize(start + 3 + block.size());
    std::copy(block.begin(), block.end(), out->data() + start + 3);
    PutHeader(out->data() + start, block.size(), true);
  } else {
    out->resize(start + 3 + n);
    PutHeader(out->data() + start, n, false);
  }
  return Status::OK();
}

Status OutStream::Spill() {
  if (compressor_ == nullptr) {
    if (out_.empty()) {
      out_.swap(pending_);
    } else {
      out_.append(pending_);
      pending_.clear();
    }
    return Status::OK();
  }
  const uint64_t block = std::min(block_size_, kMaxChunk);
  if (pending_.size() < block) return Status::OK();
  size_t done = 0;
  while (pending_.size() - done >= block) {
    FJORD_RETURN_NOT_OK(
        compressor_->AppendChunk(std::string_view(pending_).substr(done, block), &out_));
    done += block;
  }
  pending_.erase(0, done);
  return Status::OK();
}

Status OutStream::Finish() {
  FJORD_RETURN_NOT_OK(Spill());
  if (compressor_ != nullptr && !pending_.empty()) {
    FJORD_RETURN_NOT_OK(compressor_->AppendChunk(pending_, &out_));
    pending_.clear();
  }
  return Status::OK();
}

}  // namespace fjord::orc
