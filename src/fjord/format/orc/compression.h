// ORC's generic compression (ORC Specification v1, "Compression"): a compressed stream is a
// sequence of chunks, each behind a 3-byte little-endian header (length << 1) | isOriginal; an
// original chunk holds its bytes as they are, any other is one block of the file's codec that
// decompresses to at most the compression block size. ZLIB chunks are raw deflate, LZ4 chunks
// raw LZ4 blocks, ZSTD chunks zstd frames, SNAPPY chunks raw snappy. LZO is not supported.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fjord/format/orc/orc_types.h"
#include "fjord/result.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace fjord::orc {

// Undoes the chunk framing of streams of one file. Keeps a scratch buffer and the codec context
// between calls; not thread-safe.
class Decompressor {
 public:
  // `block_size` is the file's compressionBlockSize (ignored for kNone).
  Decompressor(OrcCompression compression, uint64_t block_size);
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Replaces `*out` with the decompressed bytes of `in`. Corruption (naming the chunk, without a
  // source) when the framing or a chunk is invalid or the result would exceed `max_bytes`;
  // NotImplemented for LZO.
  Status Decompress(std::string_view in, uint64_t max_bytes, std::string* out);

 private:
  Result<size_t> DecompressChunk(std::string_view chunk, char* dst, size_t capacity);

  OrcCompression compression_;
  uint64_t block_size_;
  std::unique_ptr<char[]> scratch_;
  size_t scratch_size_ = 0;
  ZSTD_DCtx* zstd_ = nullptr;
};

}  // namespace fjord::orc
