// A hand-written writer of the protobuf wire format (https://protobuf.dev/programming-guides/
// encoding/), the counterpart of protobuf.h: enough for ORC's PostScript, Footer, Metadata and
// stripe footers. Fields are appended in the order the caller writes them; submessages are built
// in their own ProtoWriter and added as bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/orc/protobuf.h"

namespace fjord::orc {

// Appends the base-128 varint of `v` to `out`.
inline void AppendVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Protobuf's sint64 (zigzag) encoding.
inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

class ProtoWriter {
 public:
  // uint32/uint64/bool/enum fields.
  ProtoWriter& Uint(uint32_t field, uint64_t v) {
    Tag(field, kVarint);
    AppendVarint(&out_, v);
    return *this;
  }
  // int32 fields: negative values take ten bytes, as protobuf writes them.
  ProtoWriter& Int32(uint32_t field, int32_t v) {
    return Uint(field, static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  // sint32/sint64 fields.
  ProtoWriter& Sint(uint32_t field, int64_t v) { return Uint(field, ZigZagEncode(v)); }
  ProtoWriter& Double(uint32_t field, double v) {
    Tag(field, kFixed64);
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    return *this;
  }
  // string/bytes fields and submessages.
  ProtoWriter& Bytes(uint32_t field, std::string_view bytes) {
    Tag(field, kLengthDelimited);
    AppendVarint(&out_, bytes.size());
    out_.append(bytes);
    return *this;
  }
  // A packed repeated uint32/uint64 field (nothing when `values` is empty).
  template <typename T>
  ProtoWriter& Packed(uint32_t field, const std::vector<T>& values) {
    if (values.empty()) return *this;
    std::string packed;
    for (T v : values) AppendVarint(&packed, static_cast<uint64_t>(v));
    return Bytes(field, packed);
  }

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }
  bool empty() const { return out_.empty(); }

 private:
  void Tag(uint32_t field, uint32_t wire) { AppendVarint(&out_, (uint64_t{field} << 3) | wire); }

  std::string out_;
};

}  // namespace fjord::orc
