#include "fjord/format/avro/codec.h"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <limits>

#include "fjord/common/byte_order.h"

namespace fjord::avro {

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kZstandard:
      return "zstandard";
  }
  return "?";
}

Result<Codec> CodecFromName(std::string_view name) {
  if (name == "null") return Codec::kNull;
  if (name == "deflate") return Codec::kDeflate;
  if (name == "snappy") return Codec::kSnappy;
  if (name == "zstandard") return Codec::kZstandard;
  if (name == "bzip2" || name == "xz") {
    return Status::NotImplemented("the Avro codec '", name, "' is not supported");
  }
  return Status::Invalid("unknown Avro codec '", name, "'");
}

int DefaultCompressionLevel(Codec codec) {
  switch (codec) {
    case Codec::kZstandard:
      return 1;
    case Codec::kDeflate:
      return 6;
    default:
      return 0;
  }
}

BlockCodec::~BlockCodec() {
  ZSTD_freeCCtx(zstd_cctx_);
  ZSTD_freeDCtx(zstd_dctx_);
}

namespace {

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed large inputs in pieces.
  while (!data.empty()) {
    size_t n = std::min<size_t>(data.size(), std::numeric_limits<uInt>::max());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

// RAII for a zlib stream.
class ZStream {
 public:
  ZStream() = default;
  ~ZStream() {
    if (inflate_) inflateEnd(&strm_);
    if (deflate_) deflateEnd(&strm_);
  }
  ZStream(const ZStream&) = delete;
  ZStream& operator=(const ZStream&) = delete;
  bool InitInflate() { return inflate_ = inflateInit2(&strm_, -15) == Z_OK; }
  bool InitDeflate(int level) {
    return deflate_ = deflateInit2(&strm_, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  }
  z_stream* get() { return &strm_; }

 private:
  z_stream strm_{};
  bool inflate_ = false;
  bool deflate_ = false;
};

// The next output size to try: double, but never past `max_size` (+1, to detect going over).
size_t Grow(size_t current, int64_t max_size) {
  size_t cap = static_cast<size_t>(max_size) + 1;
  return std::min(cap, std::max<size_t>(current * 2, 4096));
}

}  // namespace

Status BlockCodec::Compress(Codec codec, int level, std::string_view in, std::string* out) {
  out->clear();
  switch (codec) {
    case Codec::kNull:
      out->assign(in);
      return Status::OK();
    case Codec::kDeflate: {
      if (level < -1 || level > 9) return Status::Invalid("deflate level ", level, " not in -1..9");
      ZStream z;
      if (!z.InitDeflate(level)) return Status::Internal("deflateInit2 failed");
      z_stream* s = z.get();
      out->resize(deflateBound(s, static_cast<uLong>(in.size())) + 16);
      s->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
      s->avail_in = static_cast<uInt>(in.size());
      s->next_out = reinterpret_cast<Bytef*>(out->data());
      s->avail_out = static_cast<uInt>(out->size());
      int rc = deflate(s, Z_FINISH);
      if (rc != Z_STREAM_END) return Status::Internal("deflate failed: ", rc);
      out->resize(s->total_out);
      return Status::OK();
    }
    case Codec::kSnappy: {
      size_t n = 0;
      out->resize(snappy::MaxCompressedLength(in.size()) + 4);
      snappy::RawCompress(in.data(), in.size(), out->data(), &n);
      uint32_t crc = Crc32(in);
      StoreBigEndian32(out->data() + n, crc);
      out->resize(n + 4);
      return Status::OK();
    }
    case Codec::kZstandard: {
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return Status::Invalid("zstandard level ", level, " not in ", ZSTD_minCLevel(), "..",
                               ZSTD_maxCLevel());
      }
      if (zstd_cctx_ == nullptr) zstd_cctx_ = ZSTD_createCCtx();
      if (zstd_cctx_ == nullptr) return Status::Internal("ZSTD_createCCtx failed");
      out->resize(ZSTD_compressBound(in.size()));
      ZSTD_CCtx_reset(zstd_cctx_, ZSTD_reset_session_and_parameters);
      ZSTD_CCtx_setParameter(zstd_cctx_, ZSTD_c_compressionLevel, level);
      ZSTD_CCtx_setParameter(zstd_cctx_, ZSTD_c_checksumFlag, zstd_checksum_ ? 1 : 0);
      size_t n = ZSTD_compress2(zstd_cctx_, out->data(), out->size(), in.data(), in.size());
      if (ZSTD_isError(n))
        return Status::Internal("zstd compression failed: ", ZSTD_getErrorName(n));
      out->resize(n);
      return Status::OK();
    }
  }
  return Status::Internal("unknown codec");
}

Status BlockCodec::Decompress(Codec codec, std::string_view in, int64_t max_size,
                              std::string* out) {
  switch (codec) {
    case Codec::kNull:
      if (static_cast<int64_t>(in.size()) > max_size) {
        return Status::Corruption("block of ", in.size(), " bytes exceeds the limit of ", max_size);
      }
      out->assign(in);
      return Status::OK();
    case Codec::kDeflate:
      return DecompressDeflate(in, max_size, out);
    case Codec::kSnappy:
      return DecompressSnappy(in, max_size, out);
    case Codec::kZstandard:
      return DecompressZstd(in, max_size, out);
  }
  return Status::Internal("unknown codec");
}

Status BlockCodec::DecompressZstd(std::string_view in, int64_t max_size, std::string* out) {
  if (zstd_dctx_ == nullptr) zstd_dctx_ = ZSTD_createDCtx();
  if (zstd_dctx_ == nullptr) return Status::Internal("ZSTD_createDCtx failed");
  ZSTD_DCtx_reset(zstd_dctx_, ZSTD_reset_session_only);
  // Java's ZstdOutputStream writes frames without the content size, and a damaged frame may
  // claim any size, so the recorded size is only a hint: believe it up to a plausible ratio and
  // grow from there.
  unsigned long long hint = ZSTD_getFrameContentSize(in.data(), in.size());
  const size_t plausible = std::max<size_t>(in.size() * 16, 64 << 10);
  size_t initial = Grow(in.size() * 4, max_size);
  if (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR) {
    initial = static_cast<size_t>(
                  std::min<unsigned long long>({hint, static_cast<unsigned long long>(max_size),
                                                static_cast<unsigned long long>(plausible)})) +
              1;
  }
  out->resize(initial);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t produced = 0;
  size_t last = 1;  // not at a frame end
  while (input.pos < input.size || last != 0) {
    if (produced == out->size()) {
      if (static_cast<int64_t>(produced) > max_size) break;
      out->resize(Grow(out->size(), max_size));
    }
    ZSTD_outBuffer output{out->data(), out->size(), produced};
    size_t in_before = input.pos;
    last = ZSTD_decompressStream(zstd_dctx_, &output, &input);
    if (ZSTD_isError(last)) {
      return Status::Corruption("invalid zstandard data: ", ZSTD_getErrorName(last));
    }
    bool progressed = output.pos != produced || input.pos != in_before;
    produced = output.pos;
    if (static_cast<int64_t>(produced) > max_size) break;
    if (!progressed && produced < out->size()) {
      // Room left for output and nothing moved: the frame ends before its end mark.
      return Status::Corruption(input.pos == input.size ? "truncated zstandard frame"
                                                        : "zstandard decoder made no progress");
    }
  }
  if (static_cast<int64_t>(produced) > max_size) {
    return Status::Corruption("block decompresses to more than the limit of ", max_size, " bytes");
  }
  out->resize(produced);
  return Status::OK();
}

Status BlockCodec::DecompressDeflate(std::string_view in, int64_t max_size, std::string* out) {
  ZStream z;
  if (!z.InitInflate()) return Status::Internal("inflateInit2 failed");
  z_stream* s = z.get();
  if (in.size() > std::numeric_limits<uInt>::max()) {
    return Status::Corruption("deflate block too large");
  }
  s->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s->avail_in = static_cast<uInt>(in.size());
  out->resize(Grow(in.size() * 4, max_size));
  size_t produced = 0;
  while (true) {
    if (produced == out->size()) {
      if (static_cast<int64_t>(produced) > max_size) break;
      out->resize(Grow(out->size(), max_size));
    }
    size_t room = std::min<size_t>(out->size() - produced, std::numeric_limits<uInt>::max());
    s->next_out = reinterpret_cast<Bytef*>(out->data() + produced);
    s->avail_out = static_cast<uInt>(room);
    uInt in_before = s->avail_in;
    int rc = inflate(s, Z_NO_FLUSH);
    produced += room - s->avail_out;
    bool progressed = s->avail_in != in_before || s->avail_out != room;
    if (rc == Z_STREAM_END) {
      if (s->avail_in != 0) {
        return Status::Corruption(s->avail_in, " bytes follow the end of the deflate stream");
      }
      if (static_cast<int64_t>(produced) > max_size) break;
      out->resize(produced);
      return Status::OK();
    }
    if (rc == Z_BUF_ERROR && s->avail_in == 0) {
      return Status::Corruption("truncated deflate stream");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status::Corruption("invalid deflate data: ", s->msg ? s->msg : "error", " (zlib code ",
                                rc, ")");
    }
    if (s->avail_out != 0 && (s->avail_in == 0 || !progressed)) {
      // Room left for output, yet the stream did not end: the input ends early.
      return Status::Corruption("truncated deflate stream");
    }
  }
  return Status::Corruption("block decompresses to more than the limit of ", max_size, " bytes");
}

Status BlockCodec::DecompressSnappy(std::string_view in, int64_t max_size, std::string* out) {
  if (in.size() < 4) return Status::Corruption("snappy block shorter than its 4-byte checksum");
  std::string_view data = in.substr(0, in.size() - 4);
  size_t length = 0;
  if (!snappy::GetUncompressedLength(data.data(), data.size(), &length)) {
    return Status::Corruption("invalid snappy data (bad length header)");
  }
  if (length > static_cast<uint64_t>(max_size)) {
    return Status::Corruption("block decompresses to ", length, " bytes, more than the limit of ",
                              max_size);
  }
  out->resize(length);
  if (!snappy::RawUncompress(data.data(), data.size(), out->data())) {
    return Status::Corruption("invalid snappy data");
  }
  uint32_t expected = LoadBigEndian32(in.data() + in.size() - 4);
  uint32_t actual = Crc32(*out);
  if (expected != actual) {
    return Status::Corruption("snappy block checksum mismatch (stored ", expected, ", computed ",
                              actual, ")");
  }
  return Status::OK();
}

}  // namespace fjord::avro
