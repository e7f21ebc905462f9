// Deletion vectors (spec/format.md §9.2): which row positions of a data file are deleted, stored
// in DELETION_VECTORS index files as 32-bit RoaringBitmaps (default) or 64-bit Roaring maps.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord {

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
  // the CRC is verified. `source` names the file in errors.
  static Result<DeletionVector> Decode(std::string_view file_bytes, int64_t offset, int64_t length,
                                       std::string_view source);

 private:
  std::vector<int64_t> positions_;
};

// Decodes a RoaringBitmap in the portable serialization (32-bit values), appending each value
// plus `high_bits` << 32 to `out` in ascending order. Sets *consumed to the bytes read.
Status DecodePortableRoaring(std::string_view bytes, uint64_t high_bits, std::vector<int64_t>* out,
                             size_t* consumed);

}  // namespace fjord
