#include "fjord/format/orc/int_rle.h"

#include <algorithm>
#include <cstring>

namespace fjord::orc {

namespace {

int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

int64_t Add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// The smallest of the widths the writers bit-pack patch entries with that holds `bits` bits.
int ClosestFixedBits(int bits) {
  if (bits <= 24) return std::max(bits, 1);
  if (bits <= 32) return (bits + 1) / 2 * 2;  // 26, 28, 30, 32
  return (bits + 7) / 8 * 8;                  // 40, 48, 56, 64
}

// A cursor over a stream's bytes with the primitive reads both versions use.
class Cursor {
 public:
  explicit Cursor(std::string_view data)
      : pos_(reinterpret_cast<const uint8_t*>(data.data())), end_(pos_ + data.size()) {}

  bool AtEnd() const { return pos_ == end_; }

  Status Byte(uint8_t* out) {
    if (pos_ == end_) return Truncated();
    *out = *pos_++;
    return Status::OK();
  }

  Status Varint(uint64_t* out) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ == end_) return Truncated();
      uint8_t b = *pos_++;
      if (shift == 63 && b > 1) return Status::Corruption("integer RLE: varint exceeds 64 bits");
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = result;
        return Status::OK();
      }
    }
    return Status::Corruption("integer RLE: varint exceeds 64 bits");
  }

  Status BigEndian(int bytes, uint64_t* out) {
    if (end_ - pos_ < bytes) return Truncated();
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | *pos_++;
    *out = v;
    return Status::OK();
  }

  // `count` values of `bits` bits each, most significant bit first, then up to the next byte.
  Status Unpack(int bits, int64_t count, int64_t* out) {
    uint64_t total_bits = static_cast<uint64_t>(bits) * static_cast<uint64_t>(count);
    uint64_t bytes = (total_bits + 7) / 8;
    if (static_cast<uint64_t>(end_ - pos_) < bytes) return Truncated();
    if (bits % 8 == 0) {
      int width = bits / 8;
      for (int64_t i = 0; i < count; ++i) {
        uint64_t v = 0;
        for (int b = 0; b < width; ++b) v = (v << 8) | *pos_++;
        out[i] = static_cast<int64_t>(v);
      }
      return Status::OK();
    }
    if (bits <= 56) {
      // A 64-bit accumulator holds the next value's bits plus at most 7 more.
      const uint8_t* p = pos_;
      const uint64_t mask = (uint64_t{1} << bits) - 1;
      uint64_t acc = 0;
      int held = 0;
      for (int64_t i = 0; i < count; ++i) {
        while (held < bits) {
          acc = (acc << 8) | *p++;
          held += 8;
        }
        held -= bits;
        out[i] = static_cast<int64_t>((acc >> held) & mask);
        acc &= (uint64_t{1} << held) - 1;
      }
      pos_ += bytes;
      return Status::OK();
    }
    uint64_t bit = 0;
    for (int64_t i = 0; i < count; ++i) {
      uint64_t v = 0;
      int need = bits;
      while (need > 0) {
        int avail = 8 - static_cast<int>(bit & 7);
        int take = std::min(avail, need);
        uint32_t byte = pos_[bit >> 3];
        v = (v << take) | ((byte >> (avail - take)) & ((1u << take) - 1));
        need -= take;
        bit += static_cast<uint64_t>(take);
      }
      out[i] = static_cast<int64_t>(v);
    }
    pos_ += bytes;
    return Status::OK();
  }

 private:
  static Status Truncated() {
    return Status::Corruption("integer RLE: stream ends inside a run or before all values");
  }

  const uint8_t* pos_;
  const uint8_t* end_;
};

class IntRleV1Decoder final : public IntRleDecoder {
 public:
  IntRleV1Decoder(std::string_view data, bool is_signed) : in_(data), signed_(is_signed) {}

  Status Next(int64_t* out, int64_t n) override {
    while (n > 0) {
      if (remaining_ == 0) FJORD_RETURN_NOT_OK(ReadHeader());
      int64_t m = std::min(n, remaining_);
      if (run_) {
        for (int64_t i = 0; i < m; ++i) {
          out[i] = value_;
          value_ = Add(value_, delta_);
        }
      } else {
        for (int64_t i = 0; i < m; ++i) FJORD_RETURN_NOT_OK(Value(&out[i]));
      }
      out += m;
      n -= m;
      remaining_ -= m;
    }
    return Status::OK();
  }

 private:
  Status Value(int64_t* out) {
    uint64_t v = 0;
    FJORD_RETURN_NOT_OK(in_.Varint(&v));
    *out = signed_ ? UnZigZag(v) : static_cast<int64_t>(v);
    return Status::OK();
  }

  Status ReadHeader() {
    uint8_t control = 0;
    FJORD_RETURN_NOT_OK(in_.Byte(&control));
    if (control < 0x80) {
      run_ = true;
      remaining_ = control + 3;
      uint8_t delta = 0;
      FJORD_RETURN_NOT_OK(in_.Byte(&delta));
      delta_ = static_cast<int8_t>(delta);
      return Value(&value_);
    }
    run_ = false;
    remaining_ = 256 - control;
    return Status::OK();
  }

  Cursor in_;
  bool signed_;
  int64_t remaining_ = 0;
  bool run_ = false;
  int64_t delta_ = 0;
  int64_t value_ = 0;
};

class IntRleV2Decoder final : public IntRleDecoder {
 public:
  IntRleV2Decoder(std::string_view data, bool is_signed) : in_(data), signed_(is_signed) {}

  Status Next(int64_t* out, int64_t n) override {
    while (n > 0) {
      if (used_ == size_) FJORD_RETURN_NOT_OK(ReadRun());
      int64_t m = std::min<int64_t>(n, size_ - used_);
      std::memcpy(out, values_ + used_, static_cast<size_t>(m) * sizeof(int64_t));
      out += m;
      n -= m;
      used_ += static_cast<int>(m);
    }
    return Status::OK();
  }

 private:
  int64_t Decoded(uint64_t v) const { return signed_ ? UnZigZag(v) : static_cast<int64_t>(v); }

  Status ReadRun() {
    uint8_t h0 = 0;
    FJORD_RETURN_NOT_OK(in_.Byte(&h0));
    used_ = 0;
    switch (h0 >> 6) {
      case 0:
        return ShortRepeat(h0);
      case 1:
        return Direct(h0);
      case 2:
        return PatchedBase(h0);
      default:
        return Delta(h0);
    }
  }

  // The 9-bit run length of the two-byte headers.
  Status Length(uint8_t h0) {
    uint8_t h1 = 0;
    FJORD_RETURN_NOT_OK(in_.Byte(&h1));
    size_ = (((h0 & 1) << 8) | h1) + 1;
    return Status::OK();
  }

  Status ShortRepeat(uint8_t h0) {
    int width = ((h0 >> 3) & 7) + 1;
    size_ = (h0 & 7) + 3;
    uint64_t v = 0;
    FJORD_RETURN_NOT_OK(in_.BigEndian(width, &v));
    std::fill(values_, values_ + size_, Decoded(v));
    return Status::OK();
  }

  Status Direct(uint8_t h0) {
    int bits = DecodeRleV2Width((h0 >> 1) & 0x1f);
    FJORD_RETURN_NOT_OK(Length(h0));
    FJORD_RETURN_NOT_OK(in_.Unpack(bits, size_, values_));
    if (signed_) {
      for (int i = 0; i < size_; ++i) values_[i] = UnZigZag(static_cast<uint64_t>(values_[i]));
    }
    return Status::OK();
  }

  Status PatchedBase(uint8_t h0) {
    int bits = DecodeRleV2Width((h0 >> 1) & 0x1f);
    FJORD_RETURN_NOT_OK(Length(h0));
    uint8_t h2 = 0, h3 = 0;
    FJORD_RETURN_NOT_OK(in_.Byte(&h2));
    FJORD_RETURN_NOT_OK(in_.Byte(&h3));
    int base_bytes = ((h2 >> 5) & 7) + 1;
    int patch_bits = DecodeRleV2Width(h2 & 0x1f);
    int gap_bits = ((h3 >> 5) & 7) + 1;
    int patches = h3 & 0x1f;
    if (patch_bits + gap_bits > 64 || (patches > 0 && bits + patch_bits > 64)) {
      return Status::Corruption("integer RLE v2: patched base with ", bits, "-bit values, ",
                                patch_bits, "-bit patches and ", gap_bits, "-bit gaps");
    }
    uint64_t raw_base = 0;
    FJORD_RETURN_NOT_OK(in_.BigEndian(base_bytes, &raw_base));
    // Sign and magnitude: the top bit of the base's bytes is the sign.
    uint64_t sign = uint64_t{1} << (base_bytes * 8 - 1);
    int64_t base = (raw_base & sign) != 0 ? -static_cast<int64_t>(raw_base & ~sign)
                                          : static_cast<int64_t>(raw_base);
    FJORD_RETURN_NOT_OK(in_.Unpack(bits, size_, values_));
    int64_t entries[31];
    FJORD_RETURN_NOT_OK(in_.Unpack(ClosestFixedBits(patch_bits + gap_bits), patches, entries));
    uint64_t patch_mask = patch_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << patch_bits) - 1;
    int64_t at = 0;
    for (int p = 0; p < patches; ++p) {
      auto entry = static_cast<uint64_t>(entries[p]);
      uint64_t gap = patch_bits == 64 ? 0 : entry >> patch_bits;
      uint64_t patch = entry & patch_mask;
      at += static_cast<int64_t>(gap);
      // A gap of 255 with an empty patch only moves on (gaps longer than 255).
      if (gap == 255 && patch == 0) continue;
      if (at >= size_) {
        return Status::Corruption("integer RLE v2: patch at ", at, " past the run of ", size_);
      }
      values_[at] = static_cast<int64_t>(static_cast<uint64_t>(values_[at]) | (patch << bits));
    }
    for (int i = 0; i < size_; ++i) values_[i] = Add(base, values_[i]);
    return Status::OK();
  }

  Status Delta(uint8_t h0) {
    uint32_t code = (h0 >> 1) & 0x1f;
    int bits = code == 0 ? 0 : DecodeRleV2Width(code);
    FJORD_RETURN_NOT_OK(Length(h0));
    uint64_t first = 0, delta_base = 0;
    FJORD_RETURN_NOT_OK(in_.Varint(&first));
    FJORD_RETURN_NOT_OK(in_.Varint(&delta_base));
    int64_t delta = UnZigZag(delta_base);
    values_[0] = Decoded(first);
    if (size_ == 1) return Status::OK();
    values_[1] = Add(values_[0], delta);
    if (bits == 0) {
      for (int i = 2; i < size_; ++i) values_[i] = Add(values_[i - 1], delta);
      return Status::OK();
    }
    FJORD_RETURN_NOT_OK(in_.Unpack(bits, size_ - 2, values_ + 2));
    for (int i = 2; i < size_; ++i) {
      auto d = static_cast<uint64_t>(values_[i]);
      values_[i] = static_cast<int64_t>(delta >= 0 ? static_cast<uint64_t>(values_[i - 1]) + d
                                                   : static_cast<uint64_t>(values_[i - 1]) - d);
    }
    return Status::OK();
  }

  Cursor in_;
  bool signed_;
  int64_t values_[512];
  int size_ = 0;
  int used_ = 0;
};

}  // namespace

int DecodeRleV2Width(uint32_t code) {
  static constexpr int kWide[] = {26, 28, 30, 32, 40, 48, 56, 64};
  code &= 0x1f;
  return code < 24 ? static_cast<int>(code) + 1 : kWide[code - 24];
}

std::unique_ptr<IntRleDecoder> MakeIntRleDecoder(std::string_view data, RleVersion version,
                                                 bool is_signed) {
  if (version == RleVersion::kV1) return std::make_unique<IntRleV1Decoder>(data, is_signed);
  return std::make_unique<IntRleV2Decoder>(data, is_signed);
}

}  // namespace fjord::orc
