#include "fjord/format/orc/rle_encoders.h"

#include <algorithm>

#include "fjord/format/orc/proto_writer.h"
#include "fjord/value.h"

namespace fjord::orc {

namespace {

int BitsOf(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

int VarintBytes(uint64_t v) { return v < 0x80 ? 1 : (BitsOf(v) + 6) / 7; }

// Appends `n` values of `width` bits each, most significant bit first, padded to a byte.
void PackBits(std::string* out, const uint64_t* values, int n, int width) {
  size_t start = out->size();
  size_t bytes = (static_cast<uint64_t>(n) * static_cast<uint64_t>(width) + 7) / 8;
  out->resize(start + bytes);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + start);
  if (width % 8 == 0) {
    int w = width / 8;
    for (int i = 0; i < n; ++i) {
      uint64_t v = values[i];
      for (int b = w - 1; b >= 0; --b) *p++ = static_cast<uint8_t>(v >> (8 * b));
    }
    return;
  }
  // Widths that are not whole bytes are at most 30 bits: a 64-bit accumulator holds one value
  // plus the at most 7 bits left of the previous ones.
  uint64_t acc = 0;
  int held = 0;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  for (int i = 0; i < n; ++i) {
    acc = (acc << width) | (values[i] & mask);
    held += width;
    while (held >= 8) {
      held -= 8;
      *p++ = static_cast<uint8_t>(acc >> held);
    }
    acc &= (uint64_t{1} << held) - 1;
  }
  if (held > 0) *p = static_cast<uint8_t>(acc << (8 - held));
}

void RunHeader(std::string* out, uint8_t encoding, uint32_t code, int n) {
  uint32_t len = static_cast<uint32_t>(n - 1);
  out->push_back(static_cast<char>((encoding << 6) | (code << 1) | ((len >> 8) & 1)));
  out->push_back(static_cast<char>(len & 0xff));
}

}  // namespace

int RleV2Width(int bits) {
  if (bits <= 1) return 1;
  if (bits <= 24) return bits;
  if (bits <= 32) return (bits + 1) / 2 * 2;  // 26, 28, 30, 32
  return (bits + 7) / 8 * 8;                  // 40, 48, 56, 64
}

uint32_t EncodeRleV2Width(int width) {
  if (width <= 24) return static_cast<uint32_t>(std::max(width, 1) - 1);
  switch (width) {
    case 26:
      return 24;
    case 28:
      return 25;
    case 30:
      return 26;
    case 32:
      return 27;
    case 40:
      return 28;
    case 48:
      return 29;
    case 56:
      return 30;
    default:
      return 31;
  }
}

// --- Byte RLE -------------------------------------------------------------------------------

void ByteRleEncoder::EmitLiterals(int n) {
  out_->push_back(static_cast<char>(-n));
  out_->append(reinterpret_cast<const char*>(literals_), static_cast<size_t>(n));
}

void ByteRleEncoder::Add(uint8_t b) {
  if (run_) {
    if (b == literals_[0]) {
      if (++count_ == 130) {
        out_->push_back(static_cast<char>(count_ - 3));
        out_->push_back(static_cast<char>(literals_[0]));
        run_ = false;
        count_ = 0;
        tail_ = 0;
      }
      return;
    }
    out_->push_back(static_cast<char>(count_ - 3));
    out_->push_back(static_cast<char>(literals_[0]));
    run_ = false;
    count_ = 0;
    tail_ = 0;
  }
  literals_[count_++] = b;
  tail_ = count_ > 1 && literals_[count_ - 2] == b ? tail_ + 1 : 1;
  if (tail_ == 3) {
    if (count_ > 3) EmitLiterals(count_ - 3);
    literals_[0] = b;
    count_ = 3;
    run_ = true;
    return;
  }
  if (count_ == 128) {
    EmitLiterals(128);
    count_ = 0;
    tail_ = 0;
  }
}

void ByteRleEncoder::Flush() {
  if (run_) {
    out_->push_back(static_cast<char>(count_ - 3));
    out_->push_back(static_cast<char>(literals_[0]));
  } else if (count_ > 0) {
    EmitLiterals(count_);
  }
  run_ = false;
  count_ = 0;
  tail_ = 0;
}

// --- Boolean RLE ----------------------------------------------------------------------------

void BoolRleEncoder::AddRepeated(bool v, int64_t n) {
  while (n > 0 && bits_ != 0) {
    Add(v);
    --n;
  }
  const uint8_t full = v ? 0xff : 0x00;
  for (; n >= 8; n -= 8) bytes_.Add(full);
  while (n-- > 0) Add(v);
}

void BoolRleEncoder::Flush() {
  if (bits_ > 0) bytes_.Add(current_);
  bytes_.Flush();
  current_ = 0;
  bits_ = 0;
}

// --- Integer RLE v2 -------------------------------------------------------------------------

uint64_t IntRleV2Encoder::Prepare(int64_t v) const {
  return signed_ ? ZigZagEncode(v) : static_cast<uint64_t>(v);
}

void IntRleV2Encoder::NewValue(int64_t v) {
  EndRun();
  run_value_ = v;
  run_length_ = 1;
}

void IntRleV2Encoder::EndRun() {
  if (run_length_ >= 3) {
    FlushLiterals();
    if (run_length_ <= 10) {
      WriteShortRepeat(run_value_, run_length_);
    } else {
      WriteFixedDelta(run_value_, 0, run_length_);
    }
  } else {
    for (int i = 0; i < run_length_; ++i) PushLiteral(run_value_);
  }
  run_length_ = 0;
}

void IntRleV2Encoder::Flush() {
  EndRun();
  FlushLiterals();
}

void IntRleV2Encoder::WriteShortRepeat(int64_t v, int count) {
  uint64_t u = Prepare(v);
  int width = std::max(1, (BitsOf(u) + 7) / 8);
  out_->push_back(static_cast<char>(((width - 1) << 3) | (count - 3)));
  for (int b = width - 1; b >= 0; --b) out_->push_back(static_cast<char>((u >> (8 * b)) & 0xff));
}

void IntRleV2Encoder::WriteFixedDelta(int64_t first, int64_t delta, int count) {
  RunHeader(out_, 3, 0, count);
  AppendVarint(out_, Prepare(first));
  AppendVarint(out_, ZigZagEncode(delta));
}

void IntRleV2Encoder::FlushLiterals() {
  int n = literal_count_;
  if (n == 0) return;
  literal_count_ = 0;
  uint64_t prepared[kMaxRun];
  uint64_t all = 0;
  for (int i = 0; i < n; ++i) {
    prepared[i] = Prepare(literals_[i]);
    all |= prepared[i];
  }
  int width = RleV2Width(BitsOf(all));
  uint64_t direct_bytes = 2 + (static_cast<uint64_t>(n) * static_cast<uint64_t>(width) + 7) / 8;
  if (TryDelta(literals_, n, direct_bytes)) return;
  RunHeader(out_, 1, EncodeRleV2Width(width), n);
  PackBits(out_, prepared, n, width);
}

bool IntRleV2Encoder::TryDelta(const int64_t* values, int n, uint64_t direct_bytes) {
  if (n < 2) return false;
  Int128 first_delta = static_cast<Int128>(values[1]) - values[0];
  if (first_delta > INT64_MAX || first_delta < INT64_MIN) return false;
  const bool up = first_delta >= 0;
  uint64_t magnitudes[kMaxRun];
  uint64_t all = 0;
  bool fixed = true;
  for (int i = 2; i < n; ++i) {
    Int128 d = static_cast<Int128>(values[i]) - values[i - 1];
    if (up ? d < 0 : d > 0) return false;
    fixed = fixed && d == first_delta;
    auto m = static_cast<uint64_t>(up ? d : -d);
    magnitudes[i - 2] = m;
    all |= m;
  }
  auto delta = static_cast<int64_t>(first_delta);
  uint64_t bytes = 2 + static_cast<uint64_t>(VarintBytes(Prepare(values[0]))) +
                   static_cast<uint64_t>(VarintBytes(ZigZagEncode(delta)));
  int width = 0;
  if (!fixed) {
    // Width code 0 means a fixed delta here, so 1-bit magnitudes take 2 bits.
    width = std::max(2, RleV2Width(BitsOf(all)));
    bytes += (static_cast<uint64_t>(n - 2) * static_cast<uint64_t>(width) + 7) / 8;
  }
  if (bytes >= direct_bytes) return false;
  RunHeader(out_, 3, fixed ? 0 : EncodeRleV2Width(width), n);
  AppendVarint(out_, Prepare(values[0]));
  AppendVarint(out_, ZigZagEncode(delta));
  if (!fixed) PackBits(out_, magnitudes, n - 2, width);
  return true;
}

}  // namespace fjord::orc
