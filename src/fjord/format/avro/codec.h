// The block compression codecs of Avro container files (specification, "Required Codecs" and
// "Optional Codecs"):
//   null       the bytes as they are
//   deflate    raw deflate (RFC 1951: no zlib header or checksum)
//   snappy     raw snappy, then the CRC-32 of the uncompressed bytes, 4 bytes big-endian
//   zstandard  one (or more) zstd frames, which may or may not record the content size
// bzip2 and xz are valid Avro codecs that Fjord does not implement (NotImplemented).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fjord/result.h"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace fjord::avro {

enum class Codec : uint8_t { kNull, kDeflate, kSnappy, kZstandard };

// The name stored under "avro.codec": "null", "deflate", "snappy", "zstandard".
std::string_view CodecName(Codec codec);
// The codec for an "avro.codec" name; NotImplemented for bzip2/xz, Invalid for unknown names.
Result<Codec> CodecFromName(std::string_view name);
// The level used when none is given: zstandard 1 (what Paimon writes manifests with), deflate 6
// (zlib's default, which Java's -1 means); 0 for codecs without levels.
int DefaultCompressionLevel(Codec codec);

// Compresses and decompresses blocks, keeping the codec contexts between calls. Not thread-safe;
// use one per thread.
class BlockCodec {
 public:
  BlockCodec() = default;
  ~BlockCodec();
  BlockCodec(const BlockCodec&) = delete;
  BlockCodec& operator=(const BlockCodec&) = delete;

  // Whether zstandard frames carry a content checksum (verified by every reader, Java's included),
  // so that a damaged block is an error rather than wrong values. On by default.
  void set_zstd_checksum(bool on) { zstd_checksum_ = on; }

  // Replaces `out` with the compressed `in`. Invalid for a level the codec does not accept.
  Status Compress(Codec codec, int level, std::string_view in, std::string* out);

  // Replaces `out` with the decompressed `in`. Corruption when `in` is not valid for the codec,
  // fails its checksum, or would decompress to more than `max_size` bytes (checked before that
  // much is allocated). Errors carry no file name; the caller adds it.
  Status Decompress(Codec codec, std::string_view in, int64_t max_size, std::string* out);

 private:
  Status DecompressZstd(std::string_view in, int64_t max_size, std::string* out);
  Status DecompressDeflate(std::string_view in, int64_t max_size, std::string* out);
  Status DecompressSnappy(std::string_view in, int64_t max_size, std::string* out);

  ZSTD_CCtx* zstd_cctx_ = nullptr;
  ZSTD_DCtx* zstd_dctx_ = nullptr;
  bool zstd_checksum_ = true;
};

}  // namespace fjord::avro
