// ORC column decoder for DECIMAL (column_reader.h). Two encodings:
//   - DATA: unbounded zigzag base-128 varints (here up to 128 bits) and SECONDARY: each value's
//     scale as signed integer RLE (ORC v0.11/v0.12, what Java and C++ writers produce);
//   - decimal64 (precision <= 18, ORC's "UNSTABLE-PRE-2.0" files): DATA as signed integer RLE at
//     the type's scale and no SECONDARY stream.
// Values come out at the Paimon type's scale: scaled up exactly, or truncated toward zero.
#include <arrow/api.h>
#include <arrow/util/decimal.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/orc/column_common.h"

namespace fjord::orc {

namespace {

constexpr int64_t kMaxScale = 38;

// A zigzag varint of up to 128 bits from the front of [*pos, end). False when truncated or wider.
bool ReadVarint128(const uint8_t** pos, const uint8_t* end, arrow::Decimal128* out) {
  uint64_t lo = 0, hi = 0;
  for (int shift = 0;; shift += 7) {
    if (*pos == end || shift >= 128) return false;
    uint8_t b = *(*pos)++;
    uint64_t bits = b & 0x7f;
    if (shift < 64) {
      lo |= bits << shift;
      if (shift > 57) hi |= bits >> (64 - shift);
    } else {
      if (shift > 121 && (bits >> (128 - shift)) != 0) return false;
      hi |= bits << (shift - 64);
    }
    if ((b & 0x80) == 0) break;
  }
  bool negative = (lo & 1) != 0;
  lo = (lo >> 1) | (hi << 63);
  hi >>= 1;
  if (negative) {
    lo = ~lo;
    hi = ~hi;
  }
  *out = arrow::Decimal128(static_cast<int64_t>(hi), lo);
  return true;
}

Result<arrow::Decimal128> Rescale(const Column& c, const arrow::Decimal128& value, int64_t from,
                                  int32_t to) {
  if (from < 0 || from > kMaxScale) {
    return c.Corrupt("SECONDARY stream: scale ", from, " out of range");
  }
  if (from == to) return value;
  if (from < to) return value.IncreaseScaleBy(to - static_cast<int32_t>(from));
  return value.ReduceScaleBy(static_cast<int32_t>(from) - to, /*round=*/false);
}

}  // namespace

Result<std::shared_ptr<arrow::ArrayData>> ReadDecimal(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type) {
  const int32_t scale = static_cast<const arrow::Decimal128Type&>(*arrow_type).scale();
  std::vector<arrow::Decimal128> dense;
  if (v.non_null > 0) {
    dense.reserve(static_cast<size_t>(v.non_null));
    if (c.OptionalStream(StreamKind::kSecondary) != nullptr) {
      FJORD_ASSIGN_OR_RAISE(std::string_view data, c.Stream(StreamKind::kData));
      FJORD_RETURN_NOT_OK(c.CheckCount(StreamKind::kData, v.non_null, data.size(), 1));
      FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> scales,
                            c.ReadInts(StreamKind::kSecondary, true, v.non_null));
      const auto* pos = reinterpret_cast<const uint8_t*>(data.data());
      const uint8_t* end = pos + data.size();
      for (int64_t j = 0; j < v.non_null; ++j) {
        arrow::Decimal128 value;
        if (!ReadVarint128(&pos, end, &value)) {
          return c.Corrupt("DATA stream: truncated varint or one wider than 128 bits (value ", j,
                           ")");
        }
        FJORD_ASSIGN_OR_RAISE(value, Rescale(c, value, scales[static_cast<size_t>(j)], scale));
        dense.push_back(value);
      }
    } else {
      uint32_t precision = c.orc().precision.value_or(0);
      if (precision == 0 || precision > 18) {
        return c.Corrupt("the stripe has no SECONDARY stream");
      }
      FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ints,
                            c.ReadInts(StreamKind::kData, true, v.non_null));
      int64_t file_scale = c.orc().scale.value_or(0);
      for (int64_t x : ints) {
        FJORD_ASSIGN_OR_RAISE(auto value, Rescale(c, arrow::Decimal128(x), file_scale, scale));
        dense.push_back(value);
      }
    }
  }
  FJORD_ASSIGN_OR_RAISE(auto values, ZeroedBuffer(v.length * 16));
  uint8_t* out = values->mutable_data();
  int64_t j = 0;
  for (int64_t i = 0; i < v.length; ++i) {
    if (v.IsValid(i)) dense[static_cast<size_t>(j++)].ToBytes(out + i * 16);
  }
  FJORD_ASSIGN_OR_RAISE(auto bitmap, v.Bitmap());
  return arrow::ArrayData::Make(arrow_type, v.length, {bitmap, values}, v.null_count());
}

}  // namespace fjord::orc
