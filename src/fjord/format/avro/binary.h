// Avro binary encoding (specification, "Binary Encoding"): zig-zag varints, length-prefixed bytes,
// little-endian floats, arrays and maps as blocks, unions as a branch index and the value.
//
// The decoder reads untrusted bytes. Every length is checked against the bytes that remain before
// anything is allocated or copied, element counts must fit in the remaining bytes (each element
// needs at least Node::min_encoded_size() bytes; elements that may take no bytes at all draw on a
// budget), varints are at most 10 bytes (ints 5), nesting is bounded by kMaxNestingDepth. Any
// violation is a Corruption error giving the byte offset; nothing crashes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fjord/format/avro/datum.h"
#include "fjord/format/avro/schema.h"
#include "fjord/result.h"

namespace fjord::avro {

// How many elements that may encode to zero bytes (nulls, empty records) a decoder accepts before
// it gives up, across everything it decodes: without a cap, a few bytes could claim 2^62 of them.
inline constexpr int64_t kDefaultZeroSizeBudget = int64_t{1} << 20;

class BinaryDecoder {
 public:
  // Reads `data`, which must outlive the decoder. `base_offset` is added to the offsets that error
  // messages give (e.g. where `data` starts in a file).
  explicit BinaryDecoder(std::string_view data, int64_t base_offset = 0)
      : begin_(reinterpret_cast<const uint8_t*>(data.data())),
        pos_(begin_),
        end_(begin_ + data.size()),
        base_offset_(base_offset) {}

  // Primitives.
  Status ReadLong(int64_t* out);
  Status ReadInt(int32_t* out);
  Status ReadBoolean(bool* out);
  Status ReadFloat(float* out);
  Status ReadDouble(double* out);
  // Bytes and strings: a long length, then the bytes. The view points into the input.
  Status ReadBytes(std::string_view* out);
  Status ReadFixed(int64_t size, std::string_view* out);

  // Decodes one value of type `node` into `out`, reusing the storage `out` already holds (decode
  // into the same Datum repeatedly to avoid allocating). On error `out` holds a partial value.
  Status ReadDatum(const Node& node, Datum* out) { return ReadValue(node, out, 0); }
  // Moves past one value of type `node` without building it (nothing is allocated), checking
  // lengths, counts and branches as ReadDatum does; an array or map block that declares its byte
  // size is jumped over without looking inside.
  Status SkipDatum(const Node& node) { return SkipValue(node, 0); }
  // Reads the branch index of a value of the union `node`: *branch is that branch's type (and
  // *index its position, when asked).
  Status ReadBranch(const Node& node, const Node** branch, int32_t* index = nullptr);
  // Reads the header of the next block of an array or map: its element count (0 ends the value),
  // checked against the bytes left as CheckCount does for elements of `item`.
  Status ReadItemCount(const Node& item, int64_t* count);

  // Checks that `count` elements, each at least `min_item_size` bytes, can fit in what remains;
  // zero-size elements are charged to the budget. `what` names them in the error.
  Status CheckCount(int64_t count, int64_t min_item_size, std::string_view what);

  // Bytes consumed so far / left.
  int64_t position() const { return pos_ - begin_; }
  int64_t remaining() const { return end_ - pos_; }
  bool at_end() const { return pos_ == end_; }
  // The offset that errors would report for the current position.
  int64_t offset() const { return base_offset_ + position(); }
  void set_zero_size_budget(int64_t budget) { zero_size_budget_ = budget; }

 private:
  template <typename... Args>
  [[gnu::cold, gnu::noinline]] Status Corrupt(const uint8_t* at, Args&&... args) const {
    return Status::Corruption("at offset ", base_offset_ + (at - begin_), ": ",
                              std::forward<Args>(args)...);
  }
  Status ReadVarint(int max_bytes, uint64_t* out);
  Status ReadValue(const Node& node, Datum* out, int depth);
  Status ReadArray(const Node& node, Datum* out, int depth);
  Status ReadMap(const Node& node, Datum* out, int depth);
  Status SkipValue(const Node& node, int depth);
  Status SkipBlocks(const Node& item, const Node* map_value, int depth);
  // Reads a block header of an array or map: the count (0 ends), and for a negative count the
  // block's byte size, which is checked against what follows.
  Status ReadBlockHeader(int64_t* count, int64_t* byte_size);

  const uint8_t* begin_;
  const uint8_t* pos_;
  const uint8_t* end_;
  int64_t base_offset_;
  int64_t zero_size_budget_ = kDefaultZeroSizeBudget;
};

// Decodes a whole buffer holding exactly one value of `node`.
Result<Datum> DecodeDatum(const Node& node, std::string_view data);

// Primitive encoders; each appends to `out`.
void AppendLong(int64_t v, std::string* out);
inline void AppendInt(int32_t v, std::string* out) { AppendLong(v, out); }
void AppendBoolean(bool v, std::string* out);
void AppendFloat(float v, std::string* out);
void AppendDouble(double v, std::string* out);
void AppendBytes(std::string_view v, std::string* out);

// Appends the encoding of `datum` as a value of `node`. The datum must match the schema: the same
// types (no promotion), records with one value per field, valid union branches and enum indexes,
// fixed values of the right size. A mismatch is Invalid, naming the field path; `out` may then hold
// a partial encoding (the caller truncates it).
Status EncodeDatum(const Node& node, const Datum& datum, std::string* out);

}  // namespace fjord::avro
