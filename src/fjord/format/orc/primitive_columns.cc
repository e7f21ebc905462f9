// ORC column decoders for BOOLEAN, the integer kinds (and DATE), FLOAT/DOUBLE and the
// variable-length kinds STRING/CHAR/VARCHAR/BINARY (column_reader.h).
#include <arrow/api.h>
#include <arrow/util/bit_util.h>

#include <cstring>
#include <limits>

#include "fjord/common/arrow_status.h"
#include "fjord/format/orc/byte_rle.h"
#include "fjord/format/orc/column_common.h"

namespace fjord::orc {

namespace {

// A buffer of `v.length` values of T: value_at(j) for the j-th valid position, 0 elsewhere.
template <typename T, typename ValueAt>
Result<std::shared_ptr<arrow::Buffer>> Scatter(const Validity& v, ValueAt&& value_at) {
  FJORD_ASSIGN_OR_RAISE(auto buffer,
                        UninitializedBuffer(v.length * static_cast<int64_t>(sizeof(T))));
  auto* out = reinterpret_cast<T*>(buffer->mutable_data());
  if (v.valid.empty()) {
    for (int64_t i = 0; i < v.length; ++i) out[i] = value_at(i);
    return buffer;
  }
  int64_t j = 0;
  for (int64_t i = 0; i < v.length; ++i)
    out[i] = v.valid[static_cast<size_t>(i)] ? value_at(j++) : T{};
  return buffer;
}

Result<std::shared_ptr<arrow::ArrayData>> Make(const std::shared_ptr<arrow::DataType>& type,
                                               const Validity& v,
                                               std::vector<std::shared_ptr<arrow::Buffer>> rest) {
  FJORD_ASSIGN_OR_RAISE(auto bitmap, v.Bitmap());
  rest.insert(rest.begin(), bitmap);
  return arrow::ArrayData::Make(type, v.length, std::move(rest), v.null_count());
}

// The `n` bytes of a byte RLE stream (TINYINT).
Result<std::vector<int64_t>> ReadByteValues(const Column& c, int64_t n) {
  std::vector<int64_t> out;
  if (n == 0) return out;
  FJORD_ASSIGN_OR_RAISE(std::string_view data, c.Stream(StreamKind::kData));
  FJORD_RETURN_NOT_OK(c.CheckCount(StreamKind::kData, n, data.size(), kMaxIntsPerByte));
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  Status st = ByteRleDecoder(data).Next(bytes.data(), n);
  if (!st.ok()) return c.StreamError(StreamKind::kData, st);
  out.reserve(bytes.size());
  for (uint8_t b : bytes) out.push_back(static_cast<int8_t>(b));
  return out;
}

// Offsets (int64) of `lengths`, checked: every length non-negative, the total within `limit`.
Result<std::vector<int64_t>> Starts(const Column& c, const std::vector<int64_t>& lengths,
                                    int64_t limit) {
  std::vector<int64_t> starts(lengths.size() + 1, 0);
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0 || lengths[i] > limit - starts[i]) {
      return c.Corrupt("LENGTH stream: lengths exceed the ", limit, " bytes available");
    }
    starts[i + 1] = starts[i] + lengths[i];
  }
  return starts;
}

}  // namespace

Result<std::shared_ptr<arrow::ArrayData>> ReadBoolean(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type) {
  std::vector<uint8_t> values;
  if (v.non_null > 0) {
    FJORD_ASSIGN_OR_RAISE(std::string_view data, c.Stream(StreamKind::kData));
    FJORD_RETURN_NOT_OK(c.CheckCount(StreamKind::kData, v.non_null, data.size(), kMaxBitsPerByte));
    values.resize(static_cast<size_t>(v.non_null));
    Status st = BoolRleDecoder(data).Next(values.data(), v.non_null);
    if (!st.ok()) return c.StreamError(StreamKind::kData, st);
  }
  FJORD_ASSIGN_OR_RAISE(auto bits, ZeroedBuffer(arrow::bit_util::BytesForBits(v.length)));
  int64_t j = 0;
  for (int64_t i = 0; i < v.length; ++i) {
    if (v.IsValid(i) && values[static_cast<size_t>(j++)]) {
      arrow::bit_util::SetBit(bits->mutable_data(), i);
    }
  }
  return Make(arrow_type, v, {bits});
}

Result<std::shared_ptr<arrow::ArrayData>> ReadInteger(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type) {
  std::vector<int64_t> dense;
  if (c.orc().kind == OrcTypeKind::kByte) {
    FJORD_ASSIGN_OR_RAISE(dense, ReadByteValues(c, v.non_null));
  } else {
    FJORD_ASSIGN_OR_RAISE(dense, c.ReadInts(StreamKind::kData, true, v.non_null));
  }
  auto narrow = [&](auto zero) {
    using T = decltype(zero);
    return Scatter<T>(v, [&](int64_t j) { return static_cast<T>(dense[static_cast<size_t>(j)]); });
  };
  Result<std::shared_ptr<arrow::Buffer>> values = std::shared_ptr<arrow::Buffer>();
  switch (static_cast<const arrow::FixedWidthType&>(*arrow_type).bit_width()) {
    case 8:
      values = narrow(int8_t{0});
      break;
    case 16:
      values = narrow(int16_t{0});
      break;
    case 32:
      values = narrow(int32_t{0});
      break;
    default:
      values = narrow(int64_t{0});
      break;
  }
  FJORD_RETURN_NOT_OK(values.status());
  return Make(arrow_type, v, {*values});
}

Result<std::shared_ptr<arrow::ArrayData>> ReadFloating(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type) {
  const int64_t width = c.orc().kind == OrcTypeKind::kFloat ? 4 : 8;
  std::string_view data;
  if (v.non_null > 0) {
    FJORD_ASSIGN_OR_RAISE(data, c.Stream(StreamKind::kData));
    if (static_cast<uint64_t>(v.non_null) > data.size() / static_cast<uint64_t>(width)) {
      return c.Corrupt("DATA stream of ", data.size(), " bytes cannot hold ", v.non_null,
                       " values of ", width, " bytes");
    }
  }
  auto value_at = [&](int64_t j) -> double {
    const char* p = data.data() + j * width;
    if (width == 4) {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    double d;
    std::memcpy(&d, p, 8);
    return d;
  };
  std::shared_ptr<arrow::Buffer> values;
  if (arrow_type->id() == arrow::Type::FLOAT) {
    FJORD_ASSIGN_OR_RAISE(
        values, Scatter<float>(v, [&](int64_t j) { return static_cast<float>(value_at(j)); }));
  } else {
    FJORD_ASSIGN_OR_RAISE(values, Scatter<double>(v, value_at));
  }
  return Make(arrow_type, v, {values});
}

Result<std::shared_ptr<arrow::ArrayData>> ReadBinaryLike(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type) {
  constexpr int64_t kMaxBytes = std::numeric_limits<int32_t>::max();
  // Per valid row: the start and length of its bytes in `blob`.
  std::string_view blob;
  std::vector<int64_t> starts;  // DIRECT: by row; DICTIONARY: by dictionary entry
  std::vector<int64_t> indices;
  if (c.dictionary()) {
    auto dict_size = static_cast<int64_t>(c.encoding().dictionary_size);
    FJORD_ASSIGN_OR_RAISE(indices, c.ReadInts(StreamKind::kData, false, v.non_null));
    FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> lengths,
                          c.ReadInts(StreamKind::kLength, false, v.non_null > 0 ? dict_size : 0));
    const std::string* dict = c.OptionalStream(StreamKind::kDictionaryData);
    auto available = static_cast<int64_t>(dict == nullptr ? 0 : dict->size());
    FJORD_ASSIGN_OR_RAISE(starts, Starts(c, lengths, available));
    if (dict != nullptr) blob = *dict;
    for (int64_t& index : indices) {
      if (index < 0 || index >= dict_size) {
        return c.Corrupt("DATA stream: dictionary index ", static_cast<uint64_t>(index),
                         " out of range (dictionary of ", dict_size, ")");
      }
    }
  } else {
    FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> lengths,
                          c.ReadInts(StreamKind::kLength, false, v.non_null));
    const std::string* data = c.OptionalStream(StreamKind::kData);
    auto available = static_cast<int64_t>(data == nullptr ? 0 : data->size());
    FJORD_ASSIGN_OR_RAISE(starts, Starts(c, lengths, available));
    if (data != nullptr) blob = *data;
  }
  const bool dictionary = c.dictionary();
  auto entry = [&](int64_t j) { return dictionary ? indices[static_cast<size_t>(j)] : j; };
  int64_t total = 0;
  if (dictionary) {
    for (int64_t j = 0; j < v.non_null; ++j) {
      auto e = static_cast<size_t>(entry(j));
      total += starts[e + 1] - starts[e];
      if (total > kMaxBytes) break;
    }
  } else {
    total = starts.back();
  }
  if (total > kMaxBytes) {
    return c.Corrupt("more than ", kMaxBytes, " bytes of values in one stripe");
  }
  FJORD_ASSIGN_OR_RAISE(auto offsets, UninitializedBuffer((v.length + 1) * 4));
  FJORD_ASSIGN_OR_RAISE(auto bytes, UninitializedBuffer(total));
  auto* off = reinterpret_cast<int32_t*>(offsets->mutable_data());
  uint8_t* out = bytes->mutable_data();
  // DIRECT values lie in row order in the DATA stream: one copy. Dictionary values one by one.
  if (!dictionary && total > 0) std::memcpy(out, blob.data(), static_cast<size_t>(total));
  int64_t pos = 0;
  int64_t j = 0;
  for (int64_t i = 0; i < v.length; ++i) {
    off[i] = static_cast<int32_t>(pos);
    if (!v.IsValid(i)) continue;
    auto e = static_cast<size_t>(entry(j++));
    int64_t n = starts[e + 1] - starts[e];
    if (dictionary && n > 0) {
      std::memcpy(out + pos, blob.data() + starts[e], static_cast<size_t>(n));
    }
    pos += n;
  }
  off[v.length] = static_cast<int32_t>(pos);
  return Make(arrow_type, v, {offsets, bytes});
}

}  // namespace fjord::orc
