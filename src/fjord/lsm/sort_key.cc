#include "fjord/lsm/sort_key.h"

#include <arrow/api.h>

#include <bit>
#include <cstring>

namespace fjord {

namespace {

enum class Kind { kBool, kInt8, kInt16, kInt32, kInt64, kFloat, kDouble, kDecimal, kBytes };

Result<Kind> KindOf(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Kind::kBool;
    case TypeRoot::kTinyInt:
      return Kind::kInt8;
    case TypeRoot::kSmallInt:
      return Kind::kInt16;
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return Kind::kInt32;
    case TypeRoot::kBigInt:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return Kind::kInt64;
    case TypeRoot::kFloat:
      return Kind::kFloat;
    case TypeRoot::kDouble:
      return Kind::kDouble;
    case TypeRoot::kDecimal:
      return Kind::kDecimal;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return Kind::kBytes;
    default:
      return Status::NotImplemented("sorting by a column of type ", type.ToString(),
                                    " is not supported (keys and sequence fields must be of an "
                                    "atomic type)");
  }
}

int FixedWidth(Kind kind) {
  switch (kind) {
    case Kind::kBool:
    case Kind::kInt8:
      return 1;
    case Kind::kInt16:
      return 2;
    case Kind::kInt32:
    case Kind::kFloat:
      return 4;
    case Kind::kInt64:
    case Kind::kDouble:
      return 8;
    case Kind::kDecimal:
      return 16;
    case Kind::kBytes:
      return -1;
  }
  return -1;
}

template <typename U>
void PutBigEndian(char* out, U v) {
  for (int i = static_cast<int>(sizeof(U)) - 1; i >= 0; --i) {
    out[i] = static_cast<char>(v & 0xff);
    v = static_cast<U>(v >> 8);
  }
}

template <typename S>
void PutSigned(char* out, S v) {
  using U = std::make_unsigned_t<S>;
  U u = static_cast<U>(v) ^ (U{1} << (sizeof(U) * 8 - 1));
  PutBigEndian(out, u);
}

uint32_t FloatBits(float f) {
  if (f == 0.0f) f = 0.0f;         // -0.0 == 0.0, as Java's comparison of the values
  if (f != f) return 0xffffffffu;  // NaN after +Infinity
  uint32_t b = std::bit_cast<uint32_t>(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

uint64_t DoubleBits(double d) {
  if (d == 0.0) d = 0.0;
  if (d != d) return ~uint64_t{0};
  uint64_t b = std::bit_cast<uint64_t>(d);
  return (b & (uint64_t{1} << 63)) ? ~b : (b | (uint64_t{1} << 63));
}

// Bytes of a string: every 0x00 becomes 0x00 0xFF and 0x00 0x00 ends it, so the encoding is
// prefix-free and unsigned-lexicographic with shorter prefixes first.
size_t EscapedSize(std::string_view v) {
  size_t n = v.size() + 2;
  for (char c : v) n += c == '\0';
  return n;
}

char* PutEscaped(char* out, std::string_view v) {
  for (char c : v) {
    *out++ = c;
    if (c == '\0') *out++ = static_cast<char>(0xff);
  }
  *out++ = '\0';
  *out++ = '\0';
  return out;
}

std::string_view BytesAt(const arrow::Array& array, int64_t row) {
  if (array.type_id() == arrow::Type::STRING) {
    return static_cast<const arrow::StringArray&>(array).GetView(row);
  }
  if (array.type_id() == arrow::Type::LARGE_STRING) {
    return static_cast<const arrow::LargeStringArray&>(array).GetView(row);
  }
  if (array.type_id() == arrow::Type::LARGE_BINARY) {
    return static_cast<const arrow::LargeBinaryArray&>(array).GetView(row);
  }
  if (array.type_id() == arrow::Type::FIXED_SIZE_BINARY) {
    return static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row);
  }
  return static_cast<const arrow::BinaryArray&>(array).GetView(row);
}

// Writes the encodings of column `array` (kind `kind`) for every row at `cursors[row]`.
void EncodeColumn(const arrow::Array& array, Kind kind, bool nullable, bool descending,
                  std::vector<char*>& cursors) {
  int64_t n = array.length();
  for (int64_t r = 0; r < n; ++r) {
    char*& out = cursors[static_cast<size_t>(r)];
    char* begin = out;
    if (nullable) {
      if (array.IsNull(r)) {
        *out++ = 0;
        if (descending) *begin = static_cast<char>(~*begin);
        continue;
      }
      *out++ = 1;
    }
    switch (kind) {
      case Kind::kBool:
        *out++ = static_cast<const arrow::BooleanArray&>(array).Value(r) ? 1 : 0;
        break;
      case Kind::kInt8:
        PutSigned(out, static_cast<const arrow::Int8Array&>(array).Value(r));
        out += 1;
        break;
      case Kind::kInt16:
        PutSigned(out, static_cast<const arrow::Int16Array&>(array).Value(r));
        out += 2;
        break;
      case Kind::kInt32: {
        // INT, DATE (date32) and TIME (time32[ms]) share the int32 layout.
        const auto* values = array.data()->GetValues<int32_t>(1);
        PutSigned(out, values[r]);
        out += 4;
        break;
      }
      case Kind::kInt64: {
        const auto* values = array.data()->GetValues<int64_t>(1);
        PutSigned(out, values[r]);
        out += 8;
        break;
      }
      case Kind::kFloat:
        PutBigEndian(out, FloatBits(static_cast<const arrow::FloatArray&>(array).Value(r)));
        out += 4;
        break;
      case Kind::kDouble:
        PutBigEndian(out, DoubleBits(static_cast<const arrow::DoubleArray&>(array).Value(r)));
        out += 8;
        break;
      case Kind::kDecimal: {
        arrow::Decimal128 d(static_cast<const arrow::Decimal128Array&>(array).GetValue(r));
        PutSigned(out, d.high_bits());
        PutBigEndian(out + 8, d.low_bits());
        out += 16;
        break;
      }
      case Kind::kBytes:
        out = PutEscaped(out, BytesAt(array, r));
        break;
    }
    if (descending) {
      for (char* p = begin; p < out; ++p) *p = static_cast<char>(~*p);
    }
  }
}

}  // namespace

Result<SortKeyEncoder> SortKeyEncoder::Make(std::vector<SortColumn> columns) {
  for (const SortColumn& c : columns) FJORD_RETURN_NOT_OK(KindOf(*c.type).status());
  SortKeyEncoder e;
  e.columns_ = std::move(columns);
  return e;
}

Result<EncodedRows> SortKeyEncoder::Encode(const arrow::RecordBatch& batch) const {
  int64_t n = batch.num_rows();
  EncodedRows out;
  std::vector<size_t> sizes(static_cast<size_t>(n), 0);
  std::vector<Kind> kinds;
  for (const SortColumn& c : columns_) {
    if (c.column < 0 || c.column >= batch.num_columns()) {
      return Status::Invalid("sort column ", c.column, " is not in a batch of ",
                             batch.num_columns(), " columns");
    }
    FJORD_ASSIGN_OR_RAISE(Kind kind, KindOf(*c.type));
    kinds.push_back(kind);
    const arrow::Array& array = *batch.column(c.column);
    // Nullability comes from the type alone, so every batch encodes a value the same way.
    bool nullable = c.type->nullable();
    if (!nullable && array.null_count() > 0) {
      return Status::Invalid("sort column '", batch.schema()->field(c.column)->name(),
                             "' is NOT NULL but holds ", array.null_count(), " NULLs");
    }
    int width = FixedWidth(kind);
    for (int64_t r = 0; r < n; ++r) {
      size_t& s = sizes[static_cast<size_t>(r)];
      if (nullable) {
        ++s;
        if (array.IsNull(r)) continue;
      }
      s += width >= 0 ? static_cast<size_t>(width) : EscapedSize(BytesAt(array, r));
    }
  }
  out.ends_.resize(static_cast<size_t>(n));
  size_t total = 0;
  for (int64_t r = 0; r < n; ++r) {
    total += sizes[static_cast<size_t>(r)];
    out.ends_[static_cast<size_t>(r)] = total;
  }
  out.bytes_.resize(total);
  std::vector<char*> cursors(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    cursors[static_cast<size_t>(r)] =
        out.bytes_.data() + (r == 0 ? 0 : out.ends_[static_cast<size_t>(r - 1)]);
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    const SortColumn& c = columns_[i];
    EncodeColumn(*batch.column(c.column), kinds[i], c.type->nullable(), c.descending, cursors);
  }
  return out;
}

}  // namespace fjord
