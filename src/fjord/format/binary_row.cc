#include "fjord/format/binary_row.h"

#include <bit>
#include <cstring>
#include <limits>

#include "fjord/common/byte_order.h"

namespace fjord {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the BinaryRow codec copies little-endian words straight from memory");

constexpr uint64_t kInlineMark = uint64_t{1} << 63;
constexpr size_t kMaxInlineBytes = 7;
constexpr int32_t kMaxNanosOfMilli = 999999;
constexpr size_t kMaxSectionSize = std::numeric_limits<int32_t>::max();

// Decoding budget on top of the input size. Well-formed data never decodes to more Values than it
// has bytes, nor copies more bytes than it has, except through MULTISET counts; malformed data can
// point many slots at one chunk and multiply. These bounds stop such a bomb early.
constexpr int64_t kExtraDecodedValues = int64_t{1} << 18;
constexpr int64_t kExtraDecodedBytes = int64_t{16} << 20;

size_t RoundToWord(size_t n) { return (n + 7) & ~size_t{7}; }

template <typename T>
void Put(std::string& buf, size_t pos, T v) {
  std::memcpy(buf.data() + pos, &v, sizeof(T));
}

template <typename T>
T Get(std::string_view buf, size_t pos) {
  T v;
  std::memcpy(&v, buf.data() + pos, sizeof(T));
  return v;
}

uint64_t OffsetAndSize(size_t offset, uint64_t size) {
  return (static_cast<uint64_t>(offset) << 32) | size;
}

bool IsCompactDecimal(const DataType& t) {
  return t.precision() <= DataType::kCompactDecimalPrecision;
}
bool IsCompactTimestamp(const DataType& t) {
  return t.precision() <= DataType::kCompactTimestampPrecision;
}
bool IsTimestamp(TypeRoot r) { return r == TypeRoot::kTimestamp || r == TypeRoot::kTimestampLtz; }

// Width of one element in a BinaryArray's fixed part; 0 for types BinaryRow does not support.
size_t ArrayElementSize(TypeRoot r) {
  switch (r) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
      return 1;
    case TypeRoot::kSmallInt:
      return 2;
    case TypeRoot::kInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return 4;
    case TypeRoot::kBigInt:
    case TypeRoot::kDouble:
    case TypeRoot::kDecimal:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return 8;
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
    case TypeRoot::kVector:
      return 0;
  }
  return 0;
}

Status Unsupported(const DataType& t) {
  return Status::NotImplemented("BinaryRow does not support ", t.ToString(), " yet");
}

// Java's BigInteger.toByteArray(): minimal big-endian two's complement, written to `out`.
size_t UnscaledBytes(Int128 v, char out[16]) {
  __extension__ typedef unsigned __int128 UInt128;
  // Bits that differ from the sign, plus the sign bit itself, rounded up to bytes.
  UInt128 m = static_cast<UInt128>(v < 0 ? ~v : v);
  auto hi = static_cast<uint64_t>(m >> 64);
  auto lo = static_cast<uint64_t>(m);
  int significant = hi != 0 ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo);
  size_t n = static_cast<size_t>(significant / 8 + 1);
  UInt128 u = static_cast<UInt128>(v);
  for (size_t i = n; i-- > 0;) {
    out[i] = static_cast<char>(static_cast<unsigned char>(u & 0xff));
    u >>= 8;
  }
  return n;
}

const char* StorageName(const Value& v) {
  static constexpr const char* kNames[] = {"null",      "boolean", "int8",   "int16", "int32",
                                           "int64",     "float",   "double", "bytes", "decimal",
                                           "timestamp", "list",    "map"};
  size_t i = v.storage().index();
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

Status Mismatch(const Value& v, const DataType& t) {
  return Status::Invalid("a ", t.ToString(), " column cannot hold a ", StorageName(v), " value");
}

bool IsIntegral(const Value& v) {
  return v.is<int8_t>() || v.is<int16_t>() || v.is<int32_t>() || v.is<int64_t>();
}

Result<int64_t> IntegerOf(const Value& v, const DataType& t, int64_t min, int64_t max) {
  if (!IsIntegral(v)) return Mismatch(v, t);
  int64_t x = v.AsInt64();
  if (x < min || x > max) return Status::Invalid(x, " is out of range for ", t.ToString());
  return x;
}

// ---------------------------------------------------------------------------------------------
// Encoding. Everything is appended to one buffer; nested rows/arrays/maps are written in place at
// the end of their parent's variable part, so no temporary buffers are needed. Positions, never
// pointers, are kept across appends.

// The row or array whose slots are being filled.
struct Section {
  size_t base;        // first byte; variable offsets count from here
  size_t null_bits;   // first byte of the null bitset
  size_t bit_offset;  // 8 in rows (bits 0..7 are the RowKind), 0 in arrays
  size_t slots;       // first slot
  size_t slot_size;   // 8 in rows, the element width in arrays
  bool is_array;

  size_t Slot(size_t i) const { return slots + slot_size * i; }
};

void SetNullBit(std::string& buf, const Section& s, size_t i) {
  size_t bit = i + s.bit_offset;
  buf[s.null_bits + (bit >> 3)] = static_cast<char>(
      static_cast<unsigned char>(buf[s.null_bits + (bit >> 3)]) | (1u << (bit & 7)));
}

// Appends `n` zero bytes rounded up to a word; returns where they start.
size_t AppendZeros(std::string& buf, size_t n) {
  size_t at = buf.size();
  buf.resize(at + RoundToWord(n), '\0');
  return at;
}

void WriteBytesAt(std::string& buf, const Section& s, size_t slot, std::string_view v) {
  if (v.size() <= kMaxInlineBytes) {
    uint64_t word = static_cast<uint64_t>(0x80 | v.size()) << 56;
    for (size_t i = 0; i < v.size(); ++i) {
      word |= static_cast<uint64_t>(static_cast<unsigned char>(v[i])) << (8 * i);
    }
    Put<uint64_t>(buf, slot, word);
    return;
  }
  size_t at = AppendZeros(buf, v.size());
  std::memcpy(buf.data() + at, v.data(), v.size());
  Put<uint64_t>(buf, slot, OffsetAndSize(at - s.base, v.size()));
}

void WriteDecimalAt(std::string& buf, const Section& s, size_t slot, Int128 unscaled,
                    int32_t precision) {
  if (precision <= DataType::kCompactDecimalPrecision) {
    Put<int64_t>(buf, slot, static_cast<int64_t>(unscaled));
    return;
  }
  // Always 16 bytes, zero-filled past the value, as Java reserves them.
  size_t at = AppendZeros(buf, 16);
  char bytes[16];
  size_t n = UnscaledBytes(unscaled, bytes);
  std::memcpy(buf.data() + at, bytes, n);
  Put<uint64_t>(buf, slot, OffsetAndSize(at - s.base, n));
}

void WriteTimestampAt(std::string& buf, const Section& s, size_t slot, const Timestamp& v,
                      int32_t precision) {
  if (precision <= DataType::kCompactTimestampPrecision) {
    Put<int64_t>(buf, slot, v.millis);
    return;
  }
  size_t at = AppendZeros(buf, 8);
  Put<int64_t>(buf, at, v.millis);
  Put<uint64_t>(buf, slot, OffsetAndSize(at - s.base, static_cast<uint32_t>(v.nanos_of_milli)));
}

// Null in a row: zero slot (already zero) and the null bit; wide DECIMAL/TIMESTAMP keep their
// reserved variable bytes and offset. In arrays Java only sets the bit (the slot stays zero).
void WriteNullAt(std::string& buf, const Section& s, size_t i, const DataType& t) {
  SetNullBit(buf, s, i);
  if (s.is_array) return;
  size_t reserve = 0;
  if (t.root() == TypeRoot::kDecimal && !IsCompactDecimal(t)) reserve = 16;
  if (IsTimestamp(t.root()) && !IsCompactTimestamp(t)) reserve = 8;
  if (reserve > 0) {
    size_t at = AppendZeros(buf, reserve);
    Put<uint64_t>(buf, s.Slot(i), OffsetAndSize(at - s.base, 0));
  }
}

Status WriteField(std::string& buf, const Section& s, size_t i, const Value& v, const DataType& t);

template <typename At>
Status EncodeArray(std::string& buf, size_t n, At at, const DataType& elem) {
  size_t elem_size = ArrayElementSize(elem.root());
  if (elem_size == 0) return Unsupported(elem);
  if (n > kMaxSectionSize) return Status::Invalid("array of ", n, " elements is too large");
  size_t base = buf.size();
  size_t header = 4 + ((n + 31) / 32) * 4;
  buf.resize(base + RoundToWord(header + elem_size * n), '\0');
  Put<int32_t>(buf, base, static_cast<int32_t>(n));
  Section s{base, base + 4, 0, base + header, elem_size, true};
  for (size_t i = 0; i < n; ++i) {
    Status st = WriteField(buf, s, i, at(i), elem);
    if (!st.ok()) return st.WithContext("element ", i);
  }
  return Status::OK();
}

template <typename KeyAt, typename ValueAt>
Status EncodeMap(std::string& buf, size_t n, KeyAt key_at, ValueAt value_at, const DataType& kt,
                 const DataType& vt) {
  size_t base = buf.size();
  buf.resize(base + 4, '\0');
  FJORD_RETURN_NOT_OK(EncodeArray(buf, n, key_at, kt).WithContext("map keys"));
  Put<int32_t>(buf, base, static_cast<int32_t>(buf.size() - base - 4));
  return EncodeArray(buf, n, value_at, vt).WithContext("map values");
}

template <typename TypeAt>
Status EncodeRow(std::string& buf, const Value* values, size_t n, TypeAt type_at,
                 uint8_t row_kind) {
  size_t base = buf.size();
  size_t null_bits = static_cast<size_t>(BinaryRowNullBitsSize(static_cast<int64_t>(n)));
  buf.resize(base + null_bits + 8 * n, '\0');
  buf[base] = static_cast<char>(row_kind);
  Section s{base, base, 8, base + null_bits, 8, false};
  for (size_t i = 0; i < n; ++i) {
    const DataType* t = type_at(i);
    if (t == nullptr) return Status::Invalid("field ", i, " has no type");
    Status st = WriteField(buf, s, i, values[i], *t);
    if (!st.ok()) return st.WithContext("field ", i);
  }
  return Status::OK();
}

Status EncodeMultiset(std::string& buf, const Value& v, const DataType& t) {
  static const DataTypePtr kCountType = DataType::Int(false);
  if (v.is<std::shared_ptr<const ValueMap>>()) {
    const ValueMap& m = v.map();
    for (const auto& [elem, count] : m) {
      if (!IsIntegral(count) || count.AsInt64() < 0 || count.AsInt64() > INT32_MAX) {
        return Status::Invalid("multiset count must be a non-negative INT");
      }
    }
    return EncodeMap(
        buf, m.size(), [&](size_t i) -> const Value& { return m[i].first; },
        [&](size_t i) -> const Value& { return m[i].second; }, *t.element(), *kCountType);
  }
  if (!v.is<std::shared_ptr<const ValueList>>()) return Mismatch(v, t);
  // Count equal elements, keeping first-occurrence order (Java's order is its HashMap's).
  const ValueList& items = v.list();
  std::vector<size_t> firsts;
  std::vector<Value> counts;
  for (size_t i = 0; i < items.size(); ++i) {
    size_t g = 0;
    while (g < firsts.size() && !(items[firsts[g]] == items[i])) ++g;
    if (g == firsts.size()) {
      firsts.push_back(i);
      counts.emplace_back(int32_t{1});
    } else {
      counts[g] = Value(counts[g].get<int32_t>() + 1);
    }
  }
  return EncodeMap(
      buf, firsts.size(), [&](size_t i) -> const Value& { return items[firsts[i]]; },
      [&](size_t i) -> const Value& { return counts[i]; }, *t.element(), *kCountType);
}

Status WriteNested(std::string& buf, const Section& s, size_t slot, const Value& v,
                   const DataType& t) {
  size_t at = buf.size();
  switch (t.root()) {
    case TypeRoot::kArray: {
      if (!v.is<std::shared_ptr<const ValueList>>()) return Mismatch(v, t);
      const ValueList& items = v.list();
      FJORD_RETURN_NOT_OK(EncodeArray(
          buf, items.size(), [&](size_t i) -> const Value& { return items[i]; }, *t.element()));
      break;
    }
    case TypeRoot::kMultiset:
      FJORD_RETURN_NOT_OK(EncodeMultiset(buf, v, t));
      break;
    case TypeRoot::kMap: {
      if (!v.is<std::shared_ptr<const ValueMap>>()) return Mismatch(v, t);
      const ValueMap& m = v.map();
      FJORD_RETURN_NOT_OK(EncodeMap(
          buf, m.size(), [&](size_t i) -> const Value& { return m[i].first; },
          [&](size_t i) -> const Value& { return m[i].second; }, *t.key(), *t.value()));
      break;
    }
    case TypeRoot::kRow: {
      if (!v.is<std::shared_ptr<const ValueList>>()) return Mismatch(v, t);
      const ValueList& fields = v.list();
      if (fields.size() != t.fields().size()) {
        return Status::Invalid(t.ToString(), " has ", t.fields().size(), " fields, the value ",
                               fields.size());
      }
      FJORD_RETURN_NOT_OK(EncodeRow(
          buf, fields.data(), fields.size(), [&](size_t i) { return t.fields()[i].type.get(); },
          kRowKindInsert));
      break;
    }
    default:
      return Status::Internal("not a nested type: ", t.ToString());
  }
  size_t size = buf.size() - at;
  if (size > kMaxSectionSize)
    return Status::Invalid("nested value of ", size, " bytes is too large");
  buf.resize(at + RoundToWord(size), '\0');
  Put<uint64_t>(buf, slot, OffsetAndSize(at - s.base, size));
  return Status::OK();
}

Status WriteField(std::string& buf, const Section& s, size_t i, const Value& v, const DataType& t) {
  if (v.is_null()) {
    // Also for VARIANT/BLOB/VECTOR: Java writes their nulls (e.g. in stats rows) as plain nulls.
    WriteNullAt(buf, s, i, t);
    return Status::OK();
  }
  size_t slot = s.Slot(i);
  switch (t.root()) {
    case TypeRoot::kBoolean:
      if (!v.is<bool>()) return Mismatch(v, t);
      buf[slot] = v.get<bool>() ? 1 : 0;
      return Status::OK();
    case TypeRoot::kTinyInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t x, IntegerOf(v, t, INT8_MIN, INT8_MAX));
      Put<int8_t>(buf, slot, static_cast<int8_t>(x));
      return Status::OK();
    }
    case TypeRoot::kSmallInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t x, IntegerOf(v, t, INT16_MIN, INT16_MAX));
      Put<int16_t>(buf, slot, static_cast<int16_t>(x));
      return Status::OK();
    }
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: {
      FJORD_ASSIGN_OR_RAISE(int64_t x, IntegerOf(v, t, INT32_MIN, INT32_MAX));
      Put<int32_t>(buf, slot, static_cast<int32_t>(x));
      return Status::OK();
    }
    case TypeRoot::kBigInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t x, IntegerOf(v, t, INT64_MIN, INT64_MAX));
      Put<int64_t>(buf, slot, x);
      return Status::OK();
    }
    case TypeRoot::kFloat: {
      if (!v.is<float>()) return Mismatch(v, t);
      float f = v.get<float>();
      // Java's BinaryArrayWriter canonicalises NaN; its BinaryRowWriter keeps the bits.
      if (s.is_array && f != f) f = std::numeric_limits<float>::quiet_NaN();
      Put<float>(buf, slot, f);
      return Status::OK();
    }
    case TypeRoot::kDouble: {
      double d;
      if (v.is<double>()) {
        d = v.get<double>();
      } else if (v.is<float>()) {
        d = v.get<float>();
      } else {
        return Mismatch(v, t);
      }
      if (s.is_array && d != d) d = std::numeric_limits<double>::quiet_NaN();
      Put<double>(buf, slot, d);
      return Status::OK();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      if (!v.is<std::string>()) return Mismatch(v, t);
      const std::string& bytes = v.get<std::string>();
      if (bytes.size() > kMaxSectionSize) return Status::Invalid("value too large");
      WriteBytesAt(buf, s, slot, bytes);
      return Status::OK();
    }
    case TypeRoot::kDecimal: {
      if (!v.is<Decimal>()) return Mismatch(v, t);
      Decimal d = v.get<Decimal>();
      if (d.scale != t.scale()) {
        return Status::Invalid("decimal ", d.ToString(), " has scale ", d.scale, ", column ",
                               t.ToString(), " needs ", t.scale());
      }
      d.precision = t.precision();
      if (!d.FitsPrecision()) {
        return Status::Invalid("decimal ", d.ToString(), " does not fit ", t.ToString());
      }
      WriteDecimalAt(buf, s, slot, d.unscaled, t.precision());
      return Status::OK();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (!v.is<Timestamp>()) return Mismatch(v, t);
      const Timestamp& ts = v.get<Timestamp>();
      if (ts.nanos_of_milli < 0 || ts.nanos_of_milli > kMaxNanosOfMilli) {
        return Status::Invalid("nanos of millisecond ", ts.nanos_of_milli, " not in 0..999999");
      }
      WriteTimestampAt(buf, s, slot, ts, t.precision());
      return Status::OK();
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return WriteNested(buf, s, slot, v, t);
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
    case TypeRoot::kVector:
      return Unsupported(t);
  }
  return Unsupported(t);
}

// ---------------------------------------------------------------------------------------------
// Decoding. A section is the string_view of one row/array/map; every offset read from it is
// checked against its size before use.

class Decoder {
 public:
  explicit Decoder(size_t input_size)
      : values_left_(static_cast<int64_t>(input_size) + kExtraDecodedValues),
        bytes_left_(static_cast<int64_t>(input_size) + kExtraDecodedBytes) {}

  // Checks the header of a row of `n` fields and its RowKind byte.
  static Status CheckRow(std::string_view row, size_t n) {
    int64_t fixed = BinaryRowFixedPartSize(static_cast<int64_t>(n));
    if (static_cast<int64_t>(row.size()) < fixed) {
      return Status::Corruption("a row of ", n, " fields needs at least ", fixed, " bytes, got ",
                                row.size());
    }
    auto kind = static_cast<unsigned char>(row[0]);
    if (kind > kRowKindDelete) return Status::Corruption("invalid RowKind byte ", int{kind});
    return Status::OK();
  }

  static bool RowIsNull(std::string_view row, size_t i) {
    size_t bit = i + 8;
    return (static_cast<unsigned char>(row[bit >> 3]) >> (bit & 7)) & 1;
  }

  // Field i of a row already checked by CheckRow.
  Result<Value> RowField(std::string_view row, size_t n, size_t i, const DataType& t) {
    if (!Charge(1)) return Bomb();
    if (RowIsNull(row, i)) return Value();
    size_t slot = static_cast<size_t>(BinaryRowNullBitsSize(static_cast<int64_t>(n))) + 8 * i;
    return Read(row, slot, t);
  }

  template <typename TypeAt>
  Result<ValueList> Row(std::string_view row, size_t n, TypeAt type_at) {
    FJORD_RETURN_NOT_OK(CheckRow(row, n));
    ValueList out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const DataType* t = type_at(i);
      if (t == nullptr) return Status::Invalid("field ", i, " has no type");
      auto v = RowField(row, n, i, *t);
      if (!v.ok()) return v.status().WithContext("field ", i);
      out.push_back(std::move(v).value());
    }
    return out;
  }

 private:
  bool Charge(int64_t values) { return (values_left_ -= values) >= 0; }
  bool ChargeBytes(int64_t bytes) { return (bytes_left_ -= bytes) >= 0; }
  static Status Bomb() {
    return Status::Corruption("decoded data far exceeds the input size (overlapping offsets?)");
  }

  // The variable chunk a slot word points to.
  static Result<std::string_view> Chunk(std::string_view section, uint64_t word, const char* what) {
    uint64_t offset = word >> 32;
    uint64_t size = word & 0xffffffffu;
    if (offset > section.size() || size > section.size() - offset) {
      return Status::Corruption(what, " at offset ", offset, " with length ", size,
                                " lies outside its ", section.size(), "-byte container");
    }
    return section.substr(offset, size);
  }

  Result<Value> Bytes(std::string_view section, size_t slot) {
    uint64_t word = Get<uint64_t>(section, slot);
    std::string_view bytes;
    if (word & kInlineMark) {
      size_t len = (word >> 56) & 0x7f;
      if (len > kMaxInlineBytes) {
        return Status::Corruption("inline string length ", len, " is more than 7");
      }
      bytes = section.substr(slot, len);
    } else {
      FJORD_ASSIGN_OR_RAISE(bytes, Chunk(section, word, "string"));
    }
    if (!ChargeBytes(static_cast<int64_t>(bytes.size()))) return Bomb();
    return Value(std::string(bytes));
  }

  Result<Value> Read(std::string_view section, size_t slot, const DataType& t) {
    switch (t.root()) {
      case TypeRoot::kBoolean:
        return Value(section[slot] != 0);
      case TypeRoot::kTinyInt:
        return Value(Get<int8_t>(section, slot));
      case TypeRoot::kSmallInt:
        return Value(Get<int16_t>(section, slot));
      case TypeRoot::kInt:
      case TypeRoot::kDate:
      case TypeRoot::kTime:
        return Value(Get<int32_t>(section, slot));
      case TypeRoot::kBigInt:
        return Value(Get<int64_t>(section, slot));
      case TypeRoot::kFloat:
        return Value(Get<float>(section, slot));
      case TypeRoot::kDouble:
        return Value(Get<double>(section, slot));
      case TypeRoot::kChar:
      case TypeRoot::kVarChar:
      case TypeRoot::kBinary:
      case TypeRoot::kVarBinary:
        return Bytes(section, slot);
      case TypeRoot::kDecimal: {
        Decimal d;
        d.precision = t.precision();
        d.scale = t.scale();
        if (IsCompactDecimal(t)) {
          d.unscaled = Get<int64_t>(section, slot);
        } else {
          FJORD_ASSIGN_OR_RAISE(std::string_view bytes,
                                Chunk(section, Get<uint64_t>(section, slot), "decimal"));
          auto parsed = Decimal::FromUnscaledBytes(bytes, t.precision(), t.scale());
          if (!parsed.ok()) return Status::Corruption(parsed.status().message());
          d = *parsed;
        }
        if (!d.FitsPrecision()) {
          return Status::Corruption("decimal ", d.ToString(), " does not fit ", t.ToString());
        }
        return Value(d);
      }
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz: {
        Timestamp ts;
        if (IsCompactTimestamp(t)) {
          ts.millis = Get<int64_t>(section, slot);
          return Value(ts);
        }
        uint64_t word = Get<uint64_t>(section, slot);
        uint64_t nanos = word & 0xffffffffu;
        if (nanos > kMaxNanosOfMilli) {
          return Status::Corruption("nanos of millisecond ", nanos, " is more than 999999");
        }
        FJORD_ASSIGN_OR_RAISE(std::string_view millis,
                              Chunk(section, OffsetAndSize(word >> 32, 8), "timestamp"));
        ts.millis = Get<int64_t>(millis, 0);
        ts.nanos_of_milli = static_cast<int32_t>(nanos);
        return Value(ts);
      }
      case TypeRoot::kArray: {
        FJORD_ASSIGN_OR_RAISE(std::string_view chunk,
                              Chunk(section, Get<uint64_t>(section, slot), "array"));
        FJORD_ASSIGN_OR_RAISE(ValueList items, Array(chunk, *t.element()));
        return Value::List(std::move(items));
      }
      case TypeRoot::kMap: {
        FJORD_ASSIGN_OR_RAISE(std::string_view chunk,
                              Chunk(section, Get<uint64_t>(section, slot), "map"));
        FJORD_ASSIGN_OR_RAISE(ValueMap entries, Map(chunk, *t.key(), *t.value()));
        return Value::Map(std::move(entries));
      }
      case TypeRoot::kMultiset: {
        static const DataTypePtr kCountType = DataType::Int(false);
        FJORD_ASSIGN_OR_RAISE(std::string_view chunk,
                              Chunk(section, Get<uint64_t>(section, slot), "multiset"));
        FJORD_ASSIGN_OR_RAISE(ValueMap entries, Map(chunk, *t.element(), *kCountType));
        ValueList items;
        for (auto& [elem, count] : entries) {
          if (!count.is<int32_t>() || count.get<int32_t>() < 0) {
            return Status::Corruption("multiset count must be a non-negative INT");
          }
          int32_t c = count.get<int32_t>();
          if (!Charge(c)) return Bomb();
          if (elem.is<std::string>() &&
              !ChargeBytes(static_cast<int64_t>(c) *
                           static_cast<int64_t>(elem.get<std::string>().size()))) {
            return Bomb();
          }
          for (int32_t k = 0; k < c; ++k) items.push_back(elem);
        }
        return Value::List(std::move(items));
      }
      case TypeRoot::kRow: {
        FJORD_ASSIGN_OR_RAISE(std::string_view chunk,
                              Chunk(section, Get<uint64_t>(section, slot), "row"));
        const auto& fields = t.fields();
        FJORD_ASSIGN_OR_RAISE(ValueList values, Row(chunk, fields.size(), [&](size_t i) {
                                return fields[i].type.get();
                              }));
        return Value::List(std::move(values));
      }
      case TypeRoot::kVariant:
      case TypeRoot::kBlob:
      case TypeRoot::kVector:
        return Unsupported(t);
    }
    return Unsupported(t);
  }

  Result<ValueList> Array(std::string_view a, const DataType& elem) {
    size_t elem_size = ArrayElementSize(elem.root());
    if (elem_size == 0) return Unsupported(elem);
    if (a.size() < 4) return Status::Corruption("array of ", a.size(), " bytes has no size");
    int32_t n = Get<int32_t>(a, 0);
    if (n < 0) return Status::Corruption("negative array size ", n);
    uint64_t header = 4 + (static_cast<uint64_t>(n) + 31) / 32 * 4;
    uint64_t fixed = header + elem_size * static_cast<uint64_t>(n);
    if (fixed > a.size()) {
      return Status::Corruption("array of ", n, " elements needs ", fixed, " bytes, has ",
                                a.size());
    }
    if (!Charge(n)) return Bomb();
    ValueList out;
    out.reserve(static_cast<size_t>(n));
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      bool is_null = (static_cast<unsigned char>(a[4 + (i >> 3)]) >> (i & 7)) & 1;
      if (is_null) {
        out.emplace_back();
        continue;
      }
      auto v = Read(a, header + elem_size * i, elem);
      if (!v.ok()) return v.status().WithContext("element ", i);
      out.push_back(std::move(v).value());
    }
    return out;
  }

  Result<ValueMap> Map(std::string_view m, const DataType& kt, const DataType& vt) {
    if (m.size() < 4) return Status::Corruption("map of ", m.size(), " bytes has no key size");
    int32_t key_bytes = Get<int32_t>(m, 0);
    if (key_bytes < 0 || static_cast<size_t>(key_bytes) > m.size() - 4) {
      return Status::Corruption("map key array of ", key_bytes, " bytes does not fit in ",
                                m.size());
    }
    auto keys = Array(m.substr(4, static_cast<size_t>(key_bytes)), kt);
    if (!keys.ok()) return keys.status().WithContext("map keys");
    auto values = Array(m.substr(4 + static_cast<size_t>(key_bytes)), vt);
    if (!values.ok()) return values.status().WithContext("map values");
    if (keys->size() != values->size()) {
      return Status::Corruption("map has ", keys->size(), " keys but ", values->size(), " values");
    }
    ValueMap out;
    out.reserve(keys->size());
    for (size_t i = 0; i < keys->size(); ++i) {
      out.emplace_back(std::move((*keys)[i]), std::move((*values)[i]));
    }
    return out;
  }

  int64_t values_left_;
  int64_t bytes_left_;
};

Status CheckTypes(const std::vector<DataTypePtr>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i]) return Status::Invalid("BinaryRow field ", i, " has no type");
  }
  return Status::OK();
}

}  // namespace

// -----------------------------------------------------------------------------------------------

Result<std::string> EncodeBinaryRow(const std::vector<Value>& values,
                                    const std::vector<DataTypePtr>& types, uint8_t row_kind) {
  if (values.size() != types.size()) {
    return Status::Invalid("BinaryRow: ", values.size(), " values for ", types.size(), " fields");
  }
  if (row_kind > kRowKindDelete) return Status::Invalid("invalid RowKind ", int{row_kind});
  FJORD_RETURN_NOT_OK(CheckTypes(types));
  std::string buf;
  buf.reserve(static_cast<size_t>(BinaryRowFixedPartSize(static_cast<int64_t>(types.size()))));
  Status st = EncodeRow(
      buf, values.data(), values.size(), [&](size_t i) { return types[i].get(); }, row_kind);
  if (!st.ok()) return st.WithContext("BinaryRow");
  if (buf.size() > kMaxSectionSize) {
    return Status::Invalid("BinaryRow of ", buf.size(), " bytes exceeds 2 GiB");
  }
  return buf;
}

Result<std::vector<Value>> DecodeBinaryRow(std::string_view bytes,
                                           const std::vector<DataTypePtr>& types,
                                           uint8_t* row_kind) {
  FJORD_RETURN_NOT_OK(CheckTypes(types));
  Decoder decoder(bytes.size());
  auto values = decoder.Row(bytes, types.size(), [&](size_t i) { return types[i].get(); });
  if (!values.ok()) return values.status().WithContext("BinaryRow");
  if (row_kind != nullptr) *row_kind = static_cast<uint8_t>(bytes[0]);
  return values;
}

Result<Value> DecodeBinaryRowField(std::string_view bytes, const std::vector<DataTypePtr>& types,
                                   int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= types.size()) {
    return Status::Invalid("BinaryRow field ", index, " out of range for ", types.size(),
                           " fields");
  }
  if (!types[static_cast<size_t>(index)]) {
    return Status::Invalid("BinaryRow field ", index, " has no type");
  }
  Status st = Decoder::CheckRow(bytes, types.size());
  if (!st.ok()) return st.WithContext("BinaryRow");
  Decoder decoder(bytes.size());
  auto v = decoder.RowField(bytes, types.size(), static_cast<size_t>(index),
                            *types[static_cast<size_t>(index)]);
  if (!v.ok()) return v.status().WithContext("BinaryRow field ", index);
  return v;
}

std::string WithArityPrefix(std::string_view row_bytes, int32_t arity) {
  std::string out(4 + row_bytes.size(), '\0');
  StoreBigEndian32(out.data(), static_cast<uint32_t>(arity));
  if (!row_bytes.empty()) std::memcpy(out.data() + 4, row_bytes.data(), row_bytes.size());
  return out;
}

Result<std::pair<int32_t, std::string_view>> SplitArityPrefix(std::string_view stored) {
  if (stored.size() < 4) {
    return Status::Corruption("stored BinaryRow of ", stored.size(),
                              " bytes is too short for its 4-byte arity");
  }
  auto arity = static_cast<int32_t>(LoadBigEndian32(stored.data()));
  if (arity < 0) return Status::Corruption("stored BinaryRow has negative arity ", arity);
  return std::make_pair(arity, stored.substr(4));
}

Result<std::string> EncodeStoredBinaryRow(const std::vector<Value>& values,
                                          const std::vector<DataTypePtr>& types) {
  FJORD_ASSIGN_OR_RAISE(std::string row, EncodeBinaryRow(values, types));
  return WithArityPrefix(row, static_cast<int32_t>(types.size()));
}

Result<std::vector<Value>> DecodeStoredBinaryRow(std::string_view stored,
                                                 const std::vector<DataTypePtr>& types) {
  FJORD_ASSIGN_OR_RAISE(auto split, SplitArityPrefix(stored));
  if (static_cast<size_t>(split.first) != types.size()) {
    return Status::Corruption("stored BinaryRow has arity ", split.first, ", expected ",
                              types.size());
  }
  return DecodeBinaryRow(split.second, types);
}

size_t UnscaledDecimalBytes(Int128 unscaled, char out[16]) { return UnscaledBytes(unscaled, out); }

// -----------------------------------------------------------------------------------------------
// BinaryRowWriter

BinaryRowWriter::BinaryRowWriter(int32_t arity)
    : arity_(arity < 0 ? 0 : arity),
      null_bits_size_(static_cast<size_t>(BinaryRowNullBitsSize(arity_))),
      fixed_size_(static_cast<size_t>(BinaryRowFixedPartSize(arity_))) {
  Reset();
}

void BinaryRowWriter::Reset(uint8_t row_kind) {
  buf_.assign(fixed_size_, '\0');
  buf_[0] = static_cast<char>(row_kind);
}

namespace {
Section RowSection(size_t null_bits_size) { return {0, 0, 8, null_bits_size, 8, false}; }
}  // namespace

void BinaryRowWriter::SetNullAt(int32_t pos, const DataType& type) {
  WriteNullAt(buf_, RowSection(null_bits_size_), static_cast<size_t>(pos), type);
}

void BinaryRowWriter::WriteBoolean(int32_t pos, bool v) { buf_[SlotOffset(pos)] = v ? 1 : 0; }
void BinaryRowWriter::WriteByte(int32_t pos, int8_t v) { Put(buf_, SlotOffset(pos), v); }
void BinaryRowWriter::WriteShort(int32_t pos, int16_t v) { Put(buf_, SlotOffset(pos), v); }
void BinaryRowWriter::WriteInt(int32_t pos, int32_t v) { Put(buf_, SlotOffset(pos), v); }
void BinaryRowWriter::WriteLong(int32_t pos, int64_t v) { Put(buf_, SlotOffset(pos), v); }
void BinaryRowWriter::WriteFloat(int32_t pos, float v) { Put(buf_, SlotOffset(pos), v); }
void BinaryRowWriter::WriteDouble(int32_t pos, double v) { Put(buf_, SlotOffset(pos), v); }

void BinaryRowWriter::WriteBytes(int32_t pos, std::string_view v) {
  WriteBytesAt(buf_, RowSection(null_bits_size_), SlotOffset(pos), v);
}

void BinaryRowWriter::WriteDecimal(int32_t pos, const Decimal& v, int32_t precision) {
  WriteDecimalAt(buf_, RowSection(null_bits_size_), SlotOffset(pos), v.unscaled, precision);
}

void BinaryRowWriter::WriteTimestamp(int32_t pos, const Timestamp& v, int32_t precision) {
  WriteTimestampAt(buf_, RowSection(null_bits_size_), SlotOffset(pos), v, precision);
}

Status BinaryRowWriter::WriteValue(int32_t pos, const Value& v, const DataType& type) {
  if (pos < 0 || pos >= arity_) {
    return Status::Invalid("BinaryRow field ", pos, " out of range for ", arity_, " fields");
  }
  return WriteField(buf_, RowSection(null_bits_size_), static_cast<size_t>(pos), v, type)
      .WithContext("BinaryRow field ", pos);
}

}  // namespace fjord
