// Point lookups of primary keys in the levels of one bucket above a compaction's output level, as
// Java's LookupLevels (behaviour.md §2.7): the lookup compaction of level-0 files asks, for each
// key, for the newest record the higher levels hold (the lowest level that has the key wins).
//
// A data file is never read for lookups directly: the first lookup into it builds a local lookup
// file (from the data file as read now, its deletion vector applied, so deleted rows are not
// found; positions stay those of the data file) with a bloom filter, and keeps it in a cache
// shared by every bucket and table of the process (LookupCache). The cache is bounded: local disk
// by `lookup.cache-max-disk-size`, memory by `lookup.cache-max-memory-size`; files unused for
// `lookup.cache-file-retention` are dropped and rebuilt when needed again.
//
// The local format (lookup_file.h) is Fjord's own: sorted blocks of ~16 KB (key, payload; records
// as one Arrow IPC batch per block), an index of each block's last key and a bloom filter. Every
// entry keeps its row position: a row deleted after the file was built (deletion vectors only
// grow) is skipped by checking the file's current vector (SetFiles asks for it again), so the
// file is never rebuilt for that (Java keeps finding such rows until its file is rebuilt).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/lsm/key_value.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"

namespace fjord {

struct LookupCacheOptions {
  int64_t max_memory_bytes = 256LL << 20;         // lookup.cache-max-memory-size
  int64_t max_disk_bytes = INT64_MAX;             // lookup.cache-max-disk-size
  int64_t file_retention_millis = 3600LL * 1000;  // lookup.cache-file-retention
  bool bloom_filter = true;                       // lookup.cache.bloom.filter.enabled
  double bloom_fpp = 0.05;                        // lookup.cache.bloom.filter.fpp
  // Where the local lookup files go; empty: a fresh directory under the system temp directory,
  // removed when the cache goes.
  std::string local_dir;

  static Result<LookupCacheOptions> FromOptions(const CoreOptions& options);
  bool operator==(const LookupCacheOptions& o) const = default;
};

// The local lookup files of the process, and the memory they use.
class LookupCache {
 public:
  // The cache of the process for these options: one per distinct options value, shared by every
  // caller with the same options while any of them holds it.
  static std::shared_ptr<LookupCache> Shared(const LookupCacheOptions& options);

  virtual ~LookupCache() = default;

  // Figures for tests and metrics. A file removed from the cache while a lookup still reads it
  // stays on disk (and in disk_bytes) until that lookup returns.
  virtual int64_t disk_bytes() const = 0;    // local lookup files now on disk
  virtual int64_t memory_bytes() const = 0;  // memory held (blocks, index, bloom filters)
  virtual int64_t files_built() const = 0;   // lookup files built so far
  // Lookup files removed so far, for any reason: disk bound, retention, a data file leaving
  // SetFiles, the LookupLevels that built it going away.
  virtual int64_t files_evicted() const = 0;
  // The highest disk_bytes and memory_bytes so far. Disk counts a new file as soon as it is
  // built, before the disk bound evicts older ones: the peak is what local disk really held.
  // Memory is counted once the memory bound has been applied (blocks a lookup still holds after
  // their eviction are not counted).
  virtual int64_t peak_disk_bytes() const = 0;
  virtual int64_t peak_memory_bytes() const = 0;
};

// What a lookup returns (Java's persist processors): existence only (first-row), the row position
// only (deletion vectors of a deduplicate table without sequence fields), or the record (and
// position).
enum class LookupPayload { kExistence, kPosition, kRecord, kRecordAndPosition };

struct LookupHit {
  int32_t level = 0;
  std::string file_name;
  int64_t position = -1;  // row position in the data file (kPosition, kRecordAndPosition)
  // One row in the KvLayout schema (kRecord, kRecordAndPosition): the table columns,
  // _SEQUENCE_NUMBER, _VALUE_KIND.
  std::shared_ptr<arrow::RecordBatch> record;
};

// The lookups of one bucket. Not thread-safe (one compaction of a bucket at a time); `readers`
// is used by Lookup only. Destroying it drops the lookup files it knows from the cache (Java's
// LookupLevels.close).
class LookupLevels {
 public:
  // `readers` reads the bucket's data files (in the layout's schema) from `bucket_dir`;
  // `deletion_of` (may be empty) gives each file's current deletion vector.
  static Result<std::unique_ptr<LookupLevels>> Make(std::shared_ptr<LookupCache> cache,
                                                    KvFileReaderFactory* readers,
                                                    std::string bucket_dir, KvLayout layout,
                                                    LookupPayload payload,
                                                    KvFileReaderFactory::DeletionOfFn deletion_of);
  virtual ~LookupLevels() = default;

  // The bucket's files at levels >= 1, replacing the previous set (call before each compaction);
  // lookup files of files no longer in the set are dropped from the cache.
  virtual Status SetFiles(const std::vector<DataFileMeta>& files) = 0;

  // The record of `key` (an encoding by KvLayout::KeyEncoder) in the lowest level >= start_level
  // that holds it, or nullopt. Level 0 is never looked up (start_level < 1 counts as 1). The
  // record (a one-row slice) is in the data file's read types (a MAP that may hold NULL keys as
  // its list form, as KvFileReaderFactory gives it).
  virtual Result<std::optional<LookupHit>> Lookup(std::string_view key, int32_t start_level) = 0;
};

}  // namespace fjord
