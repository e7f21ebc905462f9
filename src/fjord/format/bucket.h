// Fixed-bucket assignment (spec/format.md §6.1): Java's BinaryRow.hashCode() — MurmurHash3
// x86_32 with seed 42 over the whole row, 4 bytes at a time — then abs(hash % numBuckets).
// Build the row of bucket-key values with the canonical encoder (binary_row.h), without the
// Avro arity prefix. All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace fjord {

// Seed of Paimon's MurmurHashUtils.
inline constexpr uint32_t kPaimonHashSeed = 42;

// Java's BinaryRow.hashCode() for these row bytes. Rows are always a multiple of 8 bytes; should
// the length not be a multiple of 4, the trailing bytes are mixed one at a time (sign-extended),
// as Paimon's MurmurHashUtils.hashUnsafeBytes does.
int32_t HashBinaryRow(std::string_view row_bytes);

// abs(hash % num_buckets) with Java's truncating remainder; never negative.
// Precondition: num_buckets > 0 (returns 0 otherwise).
constexpr int32_t BucketOfHash(int32_t hash, int32_t num_buckets) {
  if (num_buckets <= 0) return 0;
  int32_t r = hash % num_buckets;
  return r < 0 ? -r : r;
}

// The bucket of a bucket-key row: BucketOfHash(HashBinaryRow(row_bytes), num_buckets).
inline int32_t BucketOf(std::string_view row_bytes, int32_t num_buckets) {
  return BucketOfHash(HashBinaryRow(row_bytes), num_buckets);
}

}  // namespace fjord
