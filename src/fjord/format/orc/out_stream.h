// The writing side of ORC's generic compression (compression.h has the reading side): a stream's
// bytes are cut into blocks of the file's compression block size and each block is stored as one
// chunk behind a 3-byte little-endian header (length << 1) | isOriginal. A block the codec cannot
// shrink is stored as it is (isOriginal = 1), as ORC's writers do. Without compression (NONE) the
// bytes are stored as they are, without headers.
//
// Codecs: ZLIB (raw deflate), SNAPPY (raw snappy), LZ4 (raw LZ4 block), ZSTD (one zstd frame per
// chunk); LZO is not supported.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fjord/format/orc/orc_types.h"
#include "fjord/result.h"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
struct z_stream_s;

namespace fjord::orc {

// Compresses blocks with one codec; keeps the codec context between calls. Not thread-safe.
class Compressor {
 public:
  // `level`: the zstd level for ZSTD, the zlib level (-1 = zlib's default) for ZLIB; ignored
  // otherwise. `filtered`: zlib's Z_FILTERED strategy (for streams of small integers). Invalid
  // for levels out of range; NotImplemented for LZO and NONE (which needs no compressor).
  static Result<std::unique_ptr<Compressor>> Make(OrcCompression compression, int level,
                                                  bool filtered = false);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  OrcCompression compression() const { return compression_; }

  // Appends the chunk of `block` (header included) to `out`.
  Status AppendChunk(std::string_view block, std::string* out);

 private:
  Compressor(OrcCompression compression, int level, bool filtered);

  OrcCompression compression_;
  int level_;
  bool filtered_;
  ZSTD_CCtx* zstd_ = nullptr;
  std::unique_ptr<::z_stream_s> deflate_;  // initialised on first use, reset per chunk
};

// One stream of a stripe being written. Encoders append raw bytes to buffer(); Spill() turns the
// whole blocks among them into chunks (so that a stream holds at most one block uncompressed),
// Finish() the rest. Not thread-safe.
class OutStream {
 public:
  // `compressor` (not owned; nullptr for NONE) must outlive the stream.
  OutStream(Compressor* compressor, uint64_t block_size)
      : compressor_(compressor), block_size_(block_size) {}

  std::string* buffer() { return &pending_; }
  // Compresses the whole blocks of the buffered bytes.
  Status Spill();
  // Compresses everything buffered; output() is then the stream's stored bytes.
  Status Finish();
  const std::string& output() const { return out_; }
  // Stored bytes so far plus the uncompressed bytes not yet compressed.
  uint64_t BufferedBytes() const { return out_.size() + pending_.size(); }
  // Empties the stream for the next stripe.
  void Reset() {
    out_.clear();
    pending_.clear();
  }

 private:
  Compressor* compressor_;
  uint64_t block_size_;
  std::string pending_;  // not yet compressed
  std::string out_;      // chunks
};

}  // namespace fjord::orc
