// Decoders of ORC's byte and boolean run-length encodings (ORC Specification v1, "Byte Run Length
// Encoding" and "Boolean Run Length Encoding").
//
// Byte RLE: a control byte 0..127 starts a run of (control + 3) copies of the next byte; a
// control byte -128..-1 starts (-control) literal bytes. Boolean RLE is byte RLE over bytes whose
// bits, most significant first, are the values.
//
// The decoders read a whole decompressed stream held by the caller (which must outlive them) and
// never read past its end: asking for more values than the stream holds is Corruption.
#pragma once

#include <cstdint>
#include <string_view>

#include "fjord/result.h"

namespace fjord::orc {

class ByteRleDecoder {
 public:
  explicit ByteRleDecoder(std::string_view data);

  // The next `n` values into `out`.
  Status Next(uint8_t* out, int64_t n);

 private:
  Status ReadHeader();

  const uint8_t* pos_;
  const uint8_t* end_;
  int64_t remaining_ = 0;  // values left in the current run or literal group
  bool repeat_ = false;
  uint8_t value_ = 0;  // the repeated byte of a run
};

class BoolRleDecoder {
 public:
  explicit BoolRleDecoder(std::string_view data) : bytes_(data) {}

  // The next `n` values into `out`, one byte (0 or 1) each.
  Status Next(uint8_t* out, int64_t n);

 private:
  ByteRleDecoder bytes_;
  uint8_t current_ = 0;
  int bits_left_ = 0;
};

}  // namespace fjord::orc
