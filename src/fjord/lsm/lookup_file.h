// The local lookup file of one data file (lookup_levels.h): Fjord's own format, never shared with
// Java and never kept across processes. Entries (normalized key, payload) in ascending key order
// are cut into blocks of about kLookupBlockBytes; the file ends with a bloom filter of the keys,
// the block index (each block's last key, offset and length) and, for record payloads, the Arrow
// schema of the records. A block holds its entries, then (record payloads) its records as one
// Arrow IPC record batch, row i the record of entry i, then each entry's offset:
//
//   block  := entry* [pad to 8] [ipc batch] pad u32 entry_offset[n] u32 ipc_offset u32 n
//   entry  := varint key_len, key, varint payload_len, payload   (payload: varint position)
//   file   := block* bloom_bits index schema footer
//   footer := u64 bloom_offset, bloom_len, bloom_hashes, index_offset, index_len, schema_offset,
//             schema_len, blocks, magic
//
// The writer builds the bloom filter and index in memory and hands them over; readers reload them
// from the footer when the cache has dropped them from memory.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord {

inline constexpr int64_t kLookupBlockBytes = 16 << 10;

// A standard bloom filter over byte strings (double hashing of one 64-bit hash).
class LookupBloomFilter {
 public:
  LookupBloomFilter() = default;
  // Sized for `entries` keys at false-positive rate `fpp` (0 < fpp < 1).
  static LookupBloomFilter ForEntries(int64_t entries, double fpp);
  static LookupBloomFilter FromBits(std::string bits, int32_t hashes);

  void Add(std::string_view key);
  bool MayContain(std::string_view key) const;

  const std::string& bits() const { return bits_; }
  int32_t hashes() const { return hashes_; }

 private:
  std::string bits_;
  uint64_t num_bits_ = 0;
  int32_t hashes_ = 0;
};

// What a lookup file keeps in memory to find a key: the block index and the bloom filter.
struct LookupFileMeta {
  std::vector<std::string> last_keys;  // of each block, ascending
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> lengths;
  bool has_bloom = false;
  LookupBloomFilter bloom;
  std::shared_ptr<arrow::Schema> record_schema;  // record payloads only
  int64_t MemoryBytes() const;
};

// One block read into memory.
class LookupBlock {
 public:
  // `bytes` holds the block exactly; `record_schema` is non-null for record payloads.
  static Result<std::shared_ptr<const LookupBlock>> Decode(
      std::shared_ptr<arrow::Buffer> bytes, const std::shared_ptr<arrow::Schema>& record_schema,
      std::string_view source);

  // The entry of `key`, or -1.
  int64_t Find(std::string_view key) const;
  std::string_view Payload(int64_t entry) const;
  // The entry's record as a one-row batch (record payloads).
  std::shared_ptr<arrow::RecordBatch> Record(int64_t entry) const;
  int64_t MemoryBytes() const;

 private:
  std::string_view Key(int64_t entry, const uint8_t** payload_at) const;

  std::shared_ptr<arrow::Buffer> bytes_;
  const uint8_t* offsets_ = nullptr;  // u32 per entry (unaligned)
  int64_t entries_ = 0;
  std::shared_ptr<arrow::RecordBatch> records_;
};

// Writes one lookup file. Keys must come in strictly ascending order.
class LookupFileWriter {
 public:
  // `bloom_fpp` <= 0: no bloom filter. `record_schema` non-null: every entry carries a record.
  static Result<std::unique_ptr<LookupFileWriter>> Open(
      std::string path, int64_t expected_entries, double bloom_fpp,
      std::shared_ptr<arrow::Schema> record_schema);
  ~LookupFileWriter();

  // One entry; `records` (record payloads) is a batch of the record schema holding the entry's
  // record at `row`. Consecutive calls with the same batch and rows in order are cheap.
  Status Add(std::string_view key, std::string_view payload,
             const std::shared_ptr<arrow::RecordBatch>& records = nullptr, int64_t row = 0);
  // Closes the file; returns its size, and the meta (index, bloom filter) for the cache.
  Result<int64_t> Finish(std::shared_ptr<const LookupFileMeta>* meta);

 private:
  LookupFileWriter() = default;
  Status FlushBlock();
  Status FlushRecords();
  Status Append(std::string_view bytes);

  std::string path_;
  int fd_ = -1;
  uint64_t offset_ = 0;
  std::string block_;
  std::vector<uint32_t> entry_offsets_;
  std::string last_key_;
  bool any_key_ = false;
  std::shared_ptr<LookupFileMeta> meta_ = std::make_shared<LookupFileMeta>();
  // Record payloads: the slices of the current block's records, and their estimated size.
  std::vector<std::shared_ptr<arrow::RecordBatch>> record_parts_;
  std::shared_ptr<arrow::RecordBatch> open_part_batch_;
  int64_t open_part_begin_ = 0;
  int64_t open_part_end_ = 0;
  int64_t record_bytes_ = 0;
  int64_t record_bytes_per_row_ = 0;
};

// Reads the meta of the lookup file open at `fd` (`size` bytes); `source` names it in errors.
Result<std::shared_ptr<const LookupFileMeta>> ReadLookupFileMeta(int fd, int64_t size,
                                                                 std::string_view source);
// Reads block `block` of the lookup file open at `fd`.
Result<std::shared_ptr<const LookupBlock>> ReadLookupBlock(int fd, const LookupFileMeta& meta,
                                                           size_t block, std::string_view source);

// Varints of lookup payloads.
void PutVarint(std::string* out, uint64_t v);
// Reads a varint at *p (< end), advancing *p; false when truncated.
bool GetVarint(const uint8_t** p, const uint8_t* end, uint64_t* v);

}  // namespace fjord
