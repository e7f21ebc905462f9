// Shared pieces of the ORC column decoders (column_reader.h): a column's identity for errors, its
// streams, its NULLs, and Arrow buffers. Internal to src/fjord/format/orc.
#pragma once

#include <arrow/buffer.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/orc/column_reader.h"
#include "fjord/format/orc/int_rle.h"

namespace fjord::orc {

// One column of the stripe being decoded.
class Column {
 public:
  Column(const ColumnContext& ctx, uint32_t id, const DataType& type, const std::string& name)
      : ctx_(ctx), id_(id), type_(type), name_(name) {}

  const ColumnContext& ctx() const { return ctx_; }
  uint32_t id() const { return id_; }
  const OrcType& orc() const { return (*ctx_.types)[id_]; }
  const DataType& type() const { return type_; }
  const std::string& name() const { return name_; }
  ColumnEncoding encoding() const { return ctx_.stripe->Encoding(id_); }
  bool dictionary() const {
    EncodingKind k = encoding().kind;
    return k == EncodingKind::kDictionary || k == EncodingKind::kDictionaryV2;
  }
  RleVersion rle() const {
    EncodingKind k = encoding().kind;
    return k == EncodingKind::kDirectV2 || k == EncodingKind::kDictionaryV2 ? RleVersion::kV2
                                                                            : RleVersion::kV1;
  }

  // "<file>: ORC column 'name' (id N, KIND): <args>" as Corruption.
  template <typename... Args>
  Status Corrupt(Args&&... args) const {
    return Status::Corruption(Where(), ": ", std::forward<Args>(args)...);
  }
  // `st` (from a stream decoder) with the file, the column and the stream in front.
  Status StreamError(StreamKind kind, const Status& st) const;
  std::string Where() const;

  // The stream's bytes; Corruption when the stripe lacks it.
  Result<std::string_view> Stream(StreamKind kind) const;
  const std::string* OptionalStream(StreamKind kind) const {
    return ctx_.stripe->Stream(id_, kind);
  }
  // `n` integers of the stream, RLE v1 or v2 per the column's encoding.
  Result<std::vector<int64_t>> ReadInts(StreamKind kind, bool is_signed, int64_t n) const;
  // Corruption unless a stream of `bytes` bytes can hold `n` values when every byte holds at most
  // `per_byte` of them: checked before allocating for `n` values, so that a few hostile bytes
  // cannot claim gigabytes.
  Status CheckCount(StreamKind kind, int64_t n, uint64_t bytes, uint64_t per_byte) const;

 private:
  const ColumnContext& ctx_;
  uint32_t id_;
  const DataType& type_;
  const std::string& name_;
};

// Which of a column's `length` positions hold values.
struct Validity {
  int64_t length = 0;
  int64_t non_null = 0;
  std::vector<uint8_t> valid;  // `length` bytes 0/1; empty when all are valid

  bool IsValid(int64_t i) const { return valid.empty() || valid[static_cast<size_t>(i)] != 0; }
  int64_t null_count() const { return length - non_null; }
  const uint8_t* data() const { return valid.empty() ? nullptr : valid.data(); }
  // The Arrow validity bitmap, or nullptr when all are valid.
  Result<std::shared_ptr<arrow::Buffer>> Bitmap() const;
};

// The column's PRESENT stream (if any) over the positions `parent_valid` leaves valid.
Result<Validity> ReadValidity(const Column& column, int64_t length, const uint8_t* parent_valid);

// The most values one byte of an RLE stream expands to: boolean RLE (a run of 130 bytes of 8 bits
// in 2 bytes) and integer RLE (512 values of a fixed delta in 4 bytes); byte RLE expands less.
inline constexpr uint64_t kMaxBitsPerByte = 520;
inline constexpr uint64_t kMaxIntsPerByte = 128;

// A zero-filled buffer of `bytes` bytes, and one the caller fills entirely.
Result<std::shared_ptr<arrow::Buffer>> ZeroedBuffer(int64_t bytes);
Result<std::shared_ptr<arrow::Buffer>> UninitializedBuffer(int64_t bytes);

// The primitive decoders (primitive_columns.cc, decimal_column.cc, timestamp_column.cc): the
// values of the positions `validity` marks, as Arrow type `arrow_type`.
Result<std::shared_ptr<arrow::ArrayData>> ReadBoolean(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type);
Result<std::shared_ptr<arrow::ArrayData>> ReadInteger(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type);
Result<std::shared_ptr<arrow::ArrayData>> ReadFloating(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type);
Result<std::shared_ptr<arrow::ArrayData>> ReadBinaryLike(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type);
Result<std::shared_ptr<arrow::ArrayData>> ReadDecimal(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type);
Result<std::shared_ptr<arrow::ArrayData>> ReadTimestamp(
    const Column& c, const Validity& v, const std::shared_ptr<arrow::DataType>& arrow_type);

}  // namespace fjord::orc
