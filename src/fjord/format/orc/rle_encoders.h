// Encoders of ORC's run-length encodings (ORC Specification v1, "Run Length Encoding"), the
// counterparts of byte_rle.h and int_rle.h. Each appends to a byte string owned by the caller
// (an OutStream's buffer) and holds back a partial run or group until Flush(), which ends the
// stream: call it once, after the last value of a stripe, then the encoder starts afresh.
//
// Byte RLE: runs of 3..130 equal bytes as (count - 3, byte); other bytes in literal groups of at
// most 128 as (-count, bytes...). Boolean RLE: bits most significant first, eight to a byte, the
// last byte padded with zeros, then byte RLE.
//
// Integer RLE v2: runs of 3..10 equal values as SHORT_REPEAT, longer runs of equal values as
// DELTA with a fixed delta of 0 (up to 512 values); everything else in groups of at most 512
// values as DIRECT (bit-packed, widths rounded up to the ones ORC allows) or, when the group is
// monotonic and that is smaller, DELTA (bit-packed delta magnitudes). PATCHED_BASE is not
// produced (any reader decodes the others as well).
#pragma once

#include <cstdint>
#include <string>

namespace fjord::orc {

class ByteRleEncoder {
 public:
  explicit ByteRleEncoder(std::string* out) : out_(out) {}

  void Add(uint8_t b);
  void Flush();

 private:
  void EmitLiterals(int n);

  std::string* out_;
  uint8_t literals_[128];
  int count_ = 0;  // literals_ held, or the length of the run
  bool run_ = false;
  int tail_ = 0;  // equal bytes at the end of literals_
};

class BoolRleEncoder {
 public:
  explicit BoolRleEncoder(std::string* out) : bytes_(out) {}

  void Add(bool v) {
    current_ = static_cast<uint8_t>(current_ | (v ? 0x80 >> bits_ : 0));
    if (++bits_ == 8) {
      bytes_.Add(current_);
      current_ = 0;
      bits_ = 0;
    }
  }
  // `n` copies of `v`.
  void AddRepeated(bool v, int64_t n);
  void Flush();

 private:
  ByteRleEncoder bytes_;
  uint8_t current_ = 0;
  int bits_ = 0;
};

class IntRleV2Encoder {
 public:
  IntRleV2Encoder(std::string* out, bool is_signed) : out_(out), signed_(is_signed) {}

  void Add(int64_t v) {
    if (run_length_ > 0 && v == run_value_) {
      if (++run_length_ == kMaxRun) EndRun();
      return;
    }
    NewValue(v);
  }
  void Flush();

 private:
  static constexpr int kMaxRun = 512;

  void NewValue(int64_t v);
  // Writes the pending run of equal values (run_length_ >= 3) or moves it to the literals.
  void EndRun();
  void PushLiteral(int64_t v) {
    literals_[literal_count_++] = v;
    if (literal_count_ == kMaxRun) FlushLiterals();
  }
  void FlushLiterals();
  void WriteShortRepeat(int64_t v, int count);
  void WriteFixedDelta(int64_t first, int64_t delta, int count);
  // Whether DELTA is smaller than DIRECT for the literals (then writes it).
  bool TryDelta(const int64_t* values, int n, uint64_t direct_bytes);
  uint64_t Prepare(int64_t v) const;  // zigzag when signed

  std::string* out_;
  bool signed_;
  int64_t literals_[kMaxRun];
  int literal_count_ = 0;
  int64_t run_value_ = 0;
  int run_length_ = 0;
};

// The bit width of the 5-bit width codes of RLE v2 that holds `bits` bits (1..64), rounded up to
// one of the widths the codes express, and its code.
int RleV2Width(int bits);
uint32_t EncodeRleV2Width(int width);

}  // namespace fjord::orc
