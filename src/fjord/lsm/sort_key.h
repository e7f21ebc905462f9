// Order-preserving byte encodings of rows ("normalized keys"): for the columns of a sort spec,
// memcmp order of two encodings equals the order of Java Paimon's record comparator
// (spec/format.md §5.4): integers, dates, times and timestamps numerically; FLOAT/DOUBLE
// numerically with -0.0 == 0.0 (NaN sorts after +Infinity, where Java's comparator has no total
// order); DECIMAL by value; CHAR/VARCHAR and BINARY/VARBINARY as unsigned bytes, a prefix first;
// BOOLEAN false < true; NULL before every value. A descending column inverts its bytes.
//
// Merging and sorting compare rows with memcmp on these encodings instead of calling a
// comparator per field, which keeps the write buffer, the merge-on-read and compaction loops
// free of per-field dispatch.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord {

struct SortColumn {
  int column = 0;  // index into the batch
  DataTypePtr type;
  bool descending = false;
};

// The encodings of the rows of one batch, back to back.
class EncodedRows {
 public:
  int64_t size() const { return static_cast<int64_t>(ends_.size()); }
  std::string_view operator[](int64_t row) const {
    size_t begin = row == 0 ? 0 : ends_[static_cast<size_t>(row - 1)];
    return std::string_view(bytes_).substr(begin, ends_[static_cast<size_t>(row)] - begin);
  }
  // Memory held, for write-buffer accounting.
  int64_t MemoryBytes() const {
    return static_cast<int64_t>(bytes_.capacity() + ends_.capacity() * sizeof(size_t));
  }

 private:
  friend class SortKeyEncoder;
  std::string bytes_;
  std::vector<size_t> ends_;
};

// The first 8 bytes of an encoding as a big-endian number, zero-padded: two encodings whose
// prefixes differ compare as their prefixes do; equal prefixes need the whole bytes (or, when
// both are at most 8 bytes long, their lengths: the shorter is a prefix of the other).
inline uint64_t EncodedPrefix(std::string_view bytes) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data(), bytes.size() < 8 ? bytes.size() : 8);
  return __builtin_bswap64(v);
}

// The order of two encodings: memcmp, a prefix first.
inline int CompareEncoded(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// The order of two encodings of `a_size` and `b_size` bytes whose EncodedPrefix values are equal:
// by size when both are at most 8 bytes, else by their bytes (`a()` and `b()` give them).
template <typename GetA, typename GetB>
int CompareAfterEqualPrefix(size_t a_size, size_t b_size, GetA a, GetB b) {
  if (a_size <= 8 && b_size <= 8) return a_size < b_size ? -1 : (a_size > b_size ? 1 : 0);
  return CompareEncoded(a(), b());
}

class SortKeyEncoder {
 public:
  // NotImplemented for column types without an order (ARRAY, MAP, MULTISET, ROW, VARIANT, ...).
  static Result<SortKeyEncoder> Make(std::vector<SortColumn> columns);

  // Encodes every row of `batch`; columns must be in the canonical Arrow form of their types.
  Result<EncodedRows> Encode(const arrow::RecordBatch& batch) const;

  bool empty() const { return columns_.empty(); }

 private:
  std::vector<SortColumn> columns_;
};

}  // namespace fjord
