// A hand-written reader of the protobuf wire format
// (https://protobuf.dev/programming-guides/encoding/), enough for ORC's tail and stripe footers:
// varints, fixed 32/64-bit values and length-delimited fields. Groups (wire types 3 and 4, which
// ORC never uses) are corruption. Nothing here allocates.
#pragma once

#include <cstdint>
#include <string_view>

#include "fjord/result.h"

namespace fjord::orc {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// One decoded field of a message.
struct ProtoField {
  uint32_t number = 0;
  uint32_t wire = 0;
  uint64_t value = 0;      // kVarint, kFixed64, kFixed32
  std::string_view bytes;  // kLengthDelimited (a view into the message)
};

// Reads a base-128 varint from the front of `*in`. False when truncated, longer than 10 bytes or
// past 64 bits; `*in` is then unchanged.
bool ReadVarint(std::string_view* in, uint64_t* out);

// Splits the next field off the front of `*data`. Corruption (with a message naming the field,
// without a source) when the field is malformed.
Status ReadProtoField(std::string_view* data, ProtoField* field);

// Calls `on_field(const ProtoField&)` (returning Status) for each field of `message`, in order,
// unknown fields included.
template <typename OnField>
Status ForEachProtoField(std::string_view message, OnField&& on_field) {
  while (!message.empty()) {
    ProtoField f;
    FJORD_RETURN_NOT_OK(ReadProtoField(&message, &f));
    FJORD_RETURN_NOT_OK(on_field(f));
  }
  return Status::OK();
}

// Protobuf's sint64 (zigzag) decoding.
inline int64_t ZigZagDecode(uint64_t n) { return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1)); }

}  // namespace fjord::orc
