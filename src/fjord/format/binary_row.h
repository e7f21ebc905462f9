// BinaryRow: Paimon's compact row encoding (spec/format.md §5). Partitions, min/max keys, stats
// rows and bucket keys are BinaryRows; manifests store them behind a 4-byte big-endian arity
// (§4.1) and compare partitions by their bytes, so the encoder here is canonical: equal values of
// equal types always give the bytes Java's BinaryRowWriter gives.
//
// Layout (little-endian): [RowKind byte + null bits, padded to 8-byte words][one 8-byte slot per
// field][variable part in 8-byte aligned chunks]. Slots hold fixed-size values, short (<= 7 byte)
// strings/binaries inline, or (offset << 32 | length) of a variable chunk; offsets count from the
// start of the row. Nested ARRAY/MULTISET/MAP/ROW are BinaryArray/BinaryMap/BinaryRow chunks.
//
// Decoding validates every offset and length against the buffer: malformed input gives
// Status::Corruption, never an out-of-bounds read. Nothing here is thread-hostile: the free
// functions are reentrant; a BinaryRowWriter is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/result.h"
#include "fjord/value.h"

namespace fjord {

// RowKind bytes (byte 0 of a row).
inline constexpr uint8_t kRowKindInsert = 0;        // +I
inline constexpr uint8_t kRowKindUpdateBefore = 1;  // -U
inline constexpr uint8_t kRowKindUpdateAfter = 2;   // +U
inline constexpr uint8_t kRowKindDelete = 3;        // -D

// Bytes of the header word(s): RowKind byte plus one null bit per field, rounded to 8 bytes.
constexpr int64_t BinaryRowNullBitsSize(int64_t arity) { return ((arity + 63 + 8) / 64) * 8; }
// Header plus one 8-byte slot per field: the smallest possible row of this arity.
constexpr int64_t BinaryRowFixedPartSize(int64_t arity) {
  return BinaryRowNullBitsSize(arity) + 8 * arity;
}

// Encodes one row. values[i] must hold the representation value.h gives for types[i] (integer
// columns also accept a narrower or wider integer whose value fits; a DECIMAL must carry the
// column's scale). Invalid when the counts differ, a value does not match its type or does not
// fit (decimal precision, nanos 0..999999), or row_kind > 3; NotImplemented for non-null VARIANT,
// BLOB and VECTOR values (their nulls are plain nulls, as in Java's stats rows). A MULTISET value
// is a ValueList of elements (equal elements are counted) or a ValueMap element -> INT count.
Result<std::string> EncodeBinaryRow(const std::vector<Value>& values,
                                    const std::vector<DataTypePtr>& types,
                                    uint8_t row_kind = kRowKindInsert);

// Decodes a row (without the arity prefix); the arity is types.size(). If row_kind is not null it
// receives byte 0. Corruption on any inconsistency (short buffer, offset or length outside the
// row, bad inline length, bad RowKind, decimal out of precision...). A MULTISET decodes to a
// ValueList with each element repeated count times.
Result<std::vector<Value>> DecodeBinaryRow(std::string_view bytes,
                                           const std::vector<DataTypePtr>& types,
                                           uint8_t* row_kind = nullptr);

// Decodes field `index` only (for stats pruning and key extraction); reads nothing else but the
// header. Invalid when index is out of range.
Result<Value> DecodeBinaryRowField(std::string_view bytes, const std::vector<DataTypePtr>& types,
                                   int32_t index);

// The Avro-stored form (spec §4.1): int32 big-endian arity followed by the row bytes.
std::string WithArityPrefix(std::string_view row_bytes, int32_t arity);
// Splits the stored form into (arity, row bytes); Corruption when shorter than 4 bytes or the
// arity is negative. The returned view points into `stored`.
Result<std::pair<int32_t, std::string_view>> SplitArityPrefix(std::string_view stored);
// EncodeBinaryRow + WithArityPrefix.
Result<std::string> EncodeStoredBinaryRow(const std::vector<Value>& values,
                                          const std::vector<DataTypePtr>& types);
// SplitArityPrefix + DecodeBinaryRow; Corruption when the stored arity is not types.size().
Result<std::vector<Value>> DecodeStoredBinaryRow(std::string_view stored,
                                                 const std::vector<DataTypePtr>& types);

// Java's BigInteger.toByteArray() of a DECIMAL's unscaled value: minimal big-endian two's
// complement, written to out[0..n); returns n (1..16). A non-compact DECIMAL (precision > 18)
// stores these bytes at the start of its 16 reserved variable bytes, with n in its slot.
size_t UnscaledDecimalBytes(Int128 unscaled, char out[16]);

// Builds rows field by field without Values, reusing one buffer: the fast path for bucketing and
// key extraction. Usage: Reset(), then write every field exactly once in ascending position
// order (the variable part is laid out in call order, so this order is what makes the bytes
// canonical), then data(). Positions must be in [0, arity); the typed writers do not check that
// the column type matches, the caller does.
class BinaryRowWriter {
 public:
  explicit BinaryRowWriter(int32_t arity);

  int32_t arity() const { return arity_; }
  // Starts a new row: zeroes the fixed part and drops the variable part.
  void Reset(uint8_t row_kind = kRowKindInsert);

  // Null for a column of `type`. A DECIMAL(p > 18) or TIMESTAMP(p > 3) null still reserves its
  // 16 / 8 variable bytes, as Java does; that matters for equality and hashing.
  void SetNullAt(int32_t pos, const DataType& type);

  void WriteBoolean(int32_t pos, bool v);
  void WriteByte(int32_t pos, int8_t v);
  void WriteShort(int32_t pos, int16_t v);
  void WriteInt(int32_t pos, int32_t v);  // also DATE, TIME
  void WriteLong(int32_t pos, int64_t v);
  void WriteFloat(int32_t pos, float v);
  void WriteDouble(int32_t pos, double v);
  // CHAR/VARCHAR (UTF-8) and BINARY/VARBINARY.
  void WriteBytes(int32_t pos, std::string_view v);
  // v.unscaled must fit `precision` (compact when precision <= 18); the scale is not stored.
  void WriteDecimal(int32_t pos, const Decimal& v, int32_t precision);
  // Compact (millis only) when precision <= 3. nanos_of_milli must be 0..999999.
  void WriteTimestamp(int32_t pos, const Timestamp& v, int32_t precision);
  // Any value of any supported type, null included, with the checks of EncodeBinaryRow.
  Status WriteValue(int32_t pos, const Value& v, const DataType& type);

  // The row written so far; valid until the next call on this writer.
  std::string_view data() const { return buf_; }

 private:
  size_t SlotOffset(int32_t pos) const { return null_bits_size_ + 8 * static_cast<size_t>(pos); }

  int32_t arity_;
  size_t null_bits_size_;
  size_t fixed_size_;
  std::string buf_;
};

}  // namespace fjord
