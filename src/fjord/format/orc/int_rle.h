// Decoders of ORC's integer run-length encodings (ORC Specification v1, "Integer Run Length
// Encoding, version 1" and "version 2").
//
// Version 1: a control byte 0..127 starts a run of (control + 3) values from a varint base with a
// fixed signed-byte delta; -128..-1 starts (-control) literal varints.
// Version 2: four sub-encodings chosen per run of at most 512 values by the top two bits of the
// header: short repeat, direct (bit-packed, big-endian), patched base (bit-packed offsets from a
// sign-magnitude base, with a patch list for the widest values) and delta (a base, a delta base
// and bit-packed delta magnitudes, or a fixed delta).
//
// Signed streams zigzag-encode their varints and their short-repeat, direct and delta base
// values. Unsigned values come out as the same 64-bit pattern in an int64_t. Arithmetic wraps
// (modulo 2^64) as the writers' does.
//
// The decoders read a whole decompressed stream held by the caller (which must outlive them) and
// never read past its end: a truncated or malformed run is Corruption.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "fjord/result.h"

namespace fjord::orc {

enum class RleVersion : uint8_t { kV1, kV2 };

class IntRleDecoder {
 public:
  virtual ~IntRleDecoder() = default;
  // The next `n` values into `out`.
  virtual Status Next(int64_t* out, int64_t n) = 0;
};

std::unique_ptr<IntRleDecoder> MakeIntRleDecoder(std::string_view data, RleVersion version,
                                                 bool is_signed);

// The bit width of a 5-bit encoded width of RLE v2 (1..64).
int DecodeRleV2Width(uint32_t code);

}  // namespace fjord::orc
