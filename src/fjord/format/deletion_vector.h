// Deletion vectors (spec/format.md §9.2): which row positions of a data file are deleted, stored
// in DELETION_VECTORS index files as 32-bit RoaringBitmaps (default) or 64-bit Roaring maps.
//
// Two forms: `DeletionVector`, immutable sorted positions, the form readers hold (IsDeleted and
// the range scans of evolved_file_reader.h are binary searches); and `DeletionBitmap`, the
// mutable form writers build (Java's checkedDelete and merge), chunked by 2^16 positions as a
// Roaring bitmap so that deletions in any order stay cheap.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord {

// The largest position of each layout: Java's RoaringBitmap32.MAX_VALUE (int32 max) and
// OptimizedRoaringBitmap64.MAX_VALUE (high half at most int32 max - 1, low half at most 2^31).
inline constexpr int64_t kMaxDeletionPosition32 = 0x7FFFFFFF;
inline constexpr int64_t kMaxDeletionPosition64 = (int64_t{0x7FFFFFFE} << 32) | 0x80000000LL;

class DeletionVector {
 public:
  DeletionVector() = default;
  explicit DeletionVector(std::vector<int64_t> sorted_positions)
      : positions_(std::move(sorted_positions)) {}

  bool IsDeleted(int64_t position) const;
  int64_t cardinality() const { return static_cast<int64_t>(positions_.size()); }
  const std::vector<int64_t>& positions() const { return positions_; }

  // Decodes one vector from an index file: `bytes` is the whole index file, `offset` and `length`
  // the entry's range (f1, f2). Both the 32-bit and the 64-bit layouts are recognised by magic;
  // the range's length must match the entry's size field as Java checks it, and the CRC is
  // verified. `source` names the file in errors.
  static Result<DeletionVector> Decode(std::string_view file_bytes, int64_t offset, int64_t length,
                                       std::string_view source);

  // The vector as one entry of an index file, the bytes Java's BitmapDeletionVector
  // (`bitmap64` false) or Bitmap64DeletionVector (true) serializeTo writes for the same
  // positions: int32 BE size, magic, portable Roaring (run-optimized as Java does before
  // serializing), int32 BE CRC32 of magic + bitmap. Invalid when a position is outside the
  // layout's range (kMaxDeletionPosition32 / 64).
  Result<std::string> Encode(bool bitmap64) const;

 private:
  std::vector<int64_t> positions_;
};

// The length an index file's dv_ranges records for an entry Encode made of `encoded_size` bytes:
// Java's serializeTo return value, the size field (magic + bitmap) for the 32-bit layout, the
// whole entry (size and CRC fields included) for the 64-bit one. The offset is always where the
// entry's size field starts.
inline int64_t DeletionVectorRangeLength(size_t encoded_size, bool bitmap64) {
  return bitmap64 ? static_cast<int64_t>(encoded_size) : static_cast<int64_t>(encoded_size) - 8;
}

// The mutable form. Positions must be >= 0 (the layout's upper bound is checked by Encode and by
// the callers that know the layout). Not thread-safe; hand readers a Snapshot().
class DeletionBitmap {
 public:
  DeletionBitmap() = default;
  explicit DeletionBitmap(const DeletionVector& v);

  // Marks `position` deleted; true when it was not deleted before (Java's checkedDelete).
  bool Delete(int64_t position);
  // Adds every position of `other` (Java's merge).
  void Merge(const DeletionBitmap& other);
  void Merge(const DeletionVector& other);
  bool IsDeleted(int64_t position) const;
  int64_t cardinality() const { return cardinality_; }
  bool empty() const { return cardinality_ == 0; }

  // The positions, sorted, as an immutable vector.
  DeletionVector Snapshot() const;

 private:
  // The positions whose bits above the low 16 are `key`: a sorted array while there are at most
  // 4096 of them (as Roaring's array container), a 1024-word bitset beyond.
  struct Chunk {
    int64_t key = 0;
    uint32_t count = 0;
    std::vector<uint16_t> array;
    std::vector<uint64_t> bits;
  };
  Chunk* FindChunk(int64_t key);
  const Chunk* FindChunk(int64_t key) const;

  std::vector<Chunk> chunks_;  // ascending key
  int64_t cardinality_ = 0;
};

// Decodes a RoaringBitmap in the portable serialization (32-bit values), appending each value
// plus `high_bits` << 32 to `out` in ascending order. Sets *consumed to the bytes read.
Status DecodePortableRoaring(std::string_view bytes, uint64_t high_bits, std::vector<int64_t>* out,
                             size_t* consumed);

// Appends the portable serialization of the 32-bit values `low[0..n)` (ascending, distinct) to
// `out`, with Java's RoaringBitmap.runOptimize() container choice for a bitmap built by adding
// them: per 2^16 block an array (at most 4096 values) or bitset container, turned into a run
// container when that is strictly smaller.
void EncodePortableRoaring(const uint32_t* low, size_t n, std::string* out);

}  // namespace fjord
