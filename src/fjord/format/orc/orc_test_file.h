// Hand-made ORC files for tests: a protobuf writer, encoders for the simplest forms of the
// stream encodings (byte RLE literals, integer RLE v1 literals) and a file builder that lays out
// stripes, stripe footers and the tail as the ORC specification describes. Uncompressed, or
// compressed with ZSTD chunks. Test code only.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/orc/orc_tail.h"

namespace fjord::orc::testing {

class Pb {
 public:
  static void Varint(std::string* out, uint64_t v) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  }
  Pb& Int(uint32_t field, uint64_t v) {
    Varint(&out_, uint64_t{field} << 3);
    Varint(&out_, v);
    return *this;
  }
  Pb& Bytes(uint32_t field, std::string_view b) {
    Varint(&out_, (uint64_t{field} << 3) | 2);
    Varint(&out_, b.size());
    out_.append(b);
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

// Byte RLE as literal groups of at most 128 bytes.
inline std::string ByteRle(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 128) {
    size_t n = std::min<size_t>(128, bytes.size() - i);
    out.push_back(static_cast<char>(256 - n));
    out.append(reinterpret_cast<const char*>(bytes.data() + i), n);
  }
  return out;
}

// Boolean RLE: bits most significant first, then byte RLE.
inline std::string BoolRle(const std::vector<bool>& bits) {
  std::vector<uint8_t> bytes((bits.size() + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) bytes[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
  }
  return ByteRle(bytes);
}

// Integer RLE v1 as literal groups of at most 128 varints (zigzag when signed).
inline std::string IntRleV1(const std::vector<int64_t>& values, bool is_signed) {
  std::string out;
  for (size_t i = 0; i < values.size(); i += 128) {
    size_t n = std::min<size_t>(128, values.size() - i);
    out.push_back(static_cast<char>(256 - n));
    for (size_t j = i; j < i + n; ++j) {
      auto v = static_cast<uint64_t>(values[j]);
      if (is_signed) v = (v << 1) ^ static_cast<uint64_t>(values[j] >> 63);
      Pb::Varint(&out, v);
    }
  }
  return out;
}

struct TestType {
  OrcTypeKind kind;
  std::vector<uint32_t> subtypes = {};
  std::vector<std::string> names = {};
  std::optional<uint32_t> precision = std::nullopt;
  std::optional<uint32_t> scale = std::nullopt;
};

struct TestStream {
  uint32_t column;
  uint32_t kind;  // StreamKind
  std::string bytes;
};

struct TestStripe {
  uint64_t rows = 0;
  std::vector<TestStream> streams;
  std::vector<uint32_t> encodings;  // ColumnEncoding kind per column (DIRECT when missing)
  std::vector<uint32_t> dictionary_sizes = {};
  std::optional<std::string> timezone = std::nullopt;
};

// ORC's chunk framing of `data` compressed with zstd (one chunk) or uncompressed.
inline std::string Frame(OrcCompression codec, const std::string& data) {
  if (codec == OrcCompression::kNone) return data;
  std::string out(ZSTD_compressBound(data.size()) + 3, '\0');
  size_t n = ZSTD_compress(out.data() + 3, out.size() - 3, data.data(), data.size(), 1);
  uint32_t header = static_cast<uint32_t>(n) << 1;
  out[0] = static_cast<char>(header);
  out[1] = static_cast<char>(header >> 8);
  out[2] = static_cast<char>(header >> 16);
  out.resize(n + 3);
  return out;
}

// A whole file. `has_null` gives each column's hasNull statistic (none when shorter).
inline std::string BuildOrcFile(const std::vector<TestType>& types,
                                const std::vector<TestStripe>& stripes,
                                const std::vector<bool>& has_null = {},
                                OrcCompression codec = OrcCompression::kNone) {
  std::string file = "ORC";
  Pb footer;
  uint64_t rows = 0;
  for (const TestStripe& s : stripes) {
    uint64_t offset = file.size();
    Pb sf;
    std::string data;
    for (const TestStream& st : s.streams) {
      std::string framed = Frame(codec, st.bytes);
      data += framed;
      sf.Bytes(1, Pb().Int(1, st.kind).Int(2, st.column).Int(3, framed.size()).str());
    }
    for (size_t c = 0; c < s.encodings.size(); ++c) {
      Pb e;
      e.Int(1, s.encodings[c]);
      if (c < s.dictionary_sizes.size()) e.Int(2, s.dictionary_sizes[c]);
      sf.Bytes(2, e.str());
    }
    if (s.timezone) sf.Bytes(3, *s.timezone);
    std::string sf_bytes = Frame(codec, sf.str());
    file += data + sf_bytes;
    footer.Bytes(3, Pb().Int(1, offset)
                        .Int(2, 0)
                        .Int(3, data.size())
                        .Int(4, sf_bytes.size())
                        .Int(5, s.rows)
                        .str());
    rows += s.rows;
  }
  for (const TestType& t : types) {
    Pb tp;
    tp.Int(1, static_cast<uint64_t>(t.kind));
    for (uint32_t sub : t.subtypes) tp.Int(2, sub);
    for (const std::string& n : t.names) tp.Bytes(3, n);
    if (t.precision) tp.Int(5, *t.precision);
    if (t.scale) tp.Int(6, *t.scale);
    footer.Bytes(4, tp.str());
  }
  footer.Int(6, rows);
  for (bool h : has_null) footer.Bytes(7, Pb().Int(1, rows).Int(10, h ? 1 : 0).str());
  std::string footer_bytes = Frame(codec, footer.str());
  file += footer_bytes;
  Pb ps;
  ps.Int(1, footer_bytes.size()).Int(2, static_cast<uint64_t>(codec));
  if (codec != OrcCompression::kNone) ps.Int(3, 256 * 1024);
  ps.Int(5, 0).Bytes(8000, "ORC");
  file += ps.str();
  file.push_back(static_cast<char>(ps.str().size()));
  return file;
}

}  // namespace fjord::orc::testing
