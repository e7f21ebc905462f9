// The rows of `make bench` (bench/README.md, "The rows"), generated identically by the Fjord and
// Arrow benchmark programs here and by interop/java's BenchRows.java. Row i:
//
//   h = splitmix64(i)
//   k = (h >> 1) mod keys                      (INT; the primary key of the upsert table)
//   p = (h >> 40) mod 10                       (INT; the partition of the append table)
//   s_j, j = 0..19: x = splitmix64(h + j + 1), 10 characters, character c = kAlphabet[(x >> 6c) &
//   63]
//
// Upserts keep the row with the highest index per key. A read's checksum is the wrapping sum over
// its rows of FNV-1a-64 of (k as 4 little-endian bytes, then each s_j's bytes followed by 0xff):
// independent of row order, equal across engines when the rows are.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <limits>
#include <string>

namespace fjord::bench {

inline constexpr int kStrings = 20;
inline constexpr int kStringLen = 10;
inline constexpr char kAlphabet[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

inline uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline int32_t KeyOf(uint64_t h, int64_t keys) {
  return static_cast<int32_t>((h >> 1) % static_cast<uint64_t>(keys));
}
inline int32_t PartitionOf(uint64_t h) { return static_cast<int32_t>((h >> 40) % 10); }

// Raw bytes of a row (the MB of MB/s): 4 per INT, the strings' bytes.
inline int64_t RowBytes(bool with_partition) {
  return (with_partition ? 8 : 4) + kStrings * kStringLen;
}

// Schema: [p INT,] k INT, s0..s19 STRING (k NOT NULL when it is the primary key).
std::shared_ptr<arrow::Schema> RowSchema(bool with_partition);

// Rows [first, first + count) as an Arrow record batch of RowSchema(with_partition).
std::shared_ptr<arrow::RecordBatch> MakeRows(int64_t first, int64_t count, int64_t keys,
                                             bool with_partition);

// Rows with the given indices, in that order.
std::shared_ptr<arrow::RecordBatch> MakeRowsAt(const std::vector<int64_t>& indices, int64_t keys,
                                               bool with_partition);

// Folds rows into a checksum. Columns are found by name ("k", "s0".."s19"). A light checksum
// (bench/read_limits.py) is the wrapping sum of k plus the byte lengths of the strings: a check
// that costs next to nothing beside the decoding it follows, and that DuckDB computes in SQL.
class Checksum {
 public:
  explicit Checksum(bool light = false) : light_(light) {}
  // Rows whose k is below `key_below` only.
  arrow::Status Add(const arrow::RecordBatch& batch,
                    int32_t key_below = std::numeric_limits<int32_t>::max());
  arrow::Status Add(const arrow::Table& table,
                    int32_t key_below = std::numeric_limits<int32_t>::max());
  uint64_t sum() const { return sum_; }
  int64_t rows() const { return rows_; }
  std::string Hex() const;

 private:
  bool light_;
  uint64_t sum_ = 0;
  int64_t rows_ = 0;
};

// Per key, the index of its last upsert among rows [0, rows) (-1 for a key never written).
std::vector<int64_t> LastIndexPerKey(int64_t rows, int64_t keys);

}  // namespace fjord::bench
