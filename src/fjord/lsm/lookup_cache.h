// The implementation of LookupCache (lookup_levels.h), for LookupLevels: the local lookup files
// of the process with their LRU by disk size and retention, and an LRU of what is held in memory
// (block indexes with bloom filters, blocks).
//
// A lookup file is removed from the cache (bounds, retention, Drop) at once, but deleted from
// disk only when the last lookup using it lets it go (LocalLookupFile's destructor).
#pragma once

#include <atomic>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "fjord/lsm/lookup_file.h"
#include "fjord/lsm/lookup_levels.h"

namespace fjord {

struct LookupCacheCounters {
  std::atomic<int64_t> disk_bytes{0};
  std::atomic<int64_t> memory_bytes{0};
  std::atomic<int64_t> files_built{0};
  std::atomic<int64_t> files_evicted{0};
  std::atomic<int64_t> peak_disk_bytes{0};
  std::atomic<int64_t> peak_memory_bytes{0};

  // Raises `peak` to `value` if that is higher.
  static void RaisePeak(std::atomic<int64_t>& peak, int64_t value) {
    int64_t seen = peak.load();
    while (value > seen && !peak.compare_exchange_weak(seen, value)) {
    }
  }
};

// One built lookup file on local disk.
class LocalLookupFile {
 public:
  LocalLookupFile(uint64_t uid, std::string path, int fd, int64_t size,
                  std::shared_ptr<LookupCacheCounters> counters);
  ~LocalLookupFile();
  LocalLookupFile(const LocalLookupFile&) = delete;
  LocalLookupFile& operator=(const LocalLookupFile&) = delete;

  uint64_t uid() const { return uid_; }
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  int64_t size() const { return size_; }

 private:
  friend class LookupCacheImpl;
  uint64_t uid_;
  std::string path_;
  int fd_;
  int64_t size_;
  std::shared_ptr<LookupCacheCounters> counters_;
  // Under the cache's lock: still listed, and which of its entries are in memory.
  bool listed_ = false;
  std::unordered_set<uint32_t> in_memory_;
};

class LookupCacheImpl : public LookupCache {
 public:
  explicit LookupCacheImpl(LookupCacheOptions options);
  ~LookupCacheImpl() override;

  const LookupCacheOptions& options() const { return options_; }
  Status Init();

  int64_t disk_bytes() const override { return counters_->disk_bytes.load(); }
  int64_t memory_bytes() const override { return counters_->memory_bytes.load(); }
  int64_t files_built() const override { return counters_->files_built.load(); }
  int64_t files_evicted() const override { return counters_->files_evicted.load(); }
  int64_t peak_disk_bytes() const override { return counters_->peak_disk_bytes.load(); }
  int64_t peak_memory_bytes() const override { return counters_->peak_memory_bytes.load(); }

  // The listed lookup file `id`, or null.
  std::shared_ptr<LocalLookupFile> Acquire(const std::string& id);
  // A fresh path for a lookup file to build.
  std::string NewPath(uint64_t* uid);
  // Lists a file just built at `path` (`size` bytes, `meta` its index); evicts by the bounds.
  Result<std::shared_ptr<LocalLookupFile>> Insert(const std::string& id, uint64_t uid,
                                                  std::string path, int64_t size,
                                                  std::shared_ptr<const LookupFileMeta> meta);
  // Unlists `id` (its data file left the levels).
  void Drop(const std::string& id);

  Result<std::shared_ptr<const LookupFileMeta>> Meta(LocalLookupFile& file);
  Result<std::shared_ptr<const LookupBlock>> Block(LocalLookupFile& file,
                                                   const LookupFileMeta& meta, size_t block);

 private:
  static constexpr uint32_t kMetaEntry = UINT32_MAX;
  struct MemKey {
    uint64_t uid;
    uint32_t entry;
    bool operator==(const MemKey& o) const { return uid == o.uid && entry == o.entry; }
  };
  struct MemKeyHash {
    size_t operator()(const MemKey& k) const { return k.uid * 0x9E3779B97F4A7C15ULL ^ k.entry; }
  };
  struct MemEntry {
    std::shared_ptr<const void> value;
    int64_t bytes = 0;
    std::list<MemKey>::iterator lru;
  };
  struct DiskEntry {
    std::shared_ptr<LocalLookupFile> file;
    int64_t last_access_millis = 0;
    std::list<std::string>::iterator lru;
  };

  // All under mu_.
  std::shared_ptr<const void> MemGet(const MemKey& key);
  void MemPut(LocalLookupFile& file, const MemKey& key, std::shared_ptr<const void> value,
              int64_t bytes);
  void MemEvict();
  void Unlist(std::unordered_map<std::string, DiskEntry>::iterator it);
  void Expire(int64_t now_millis);

  LookupCacheOptions options_;
  bool own_dir_ = false;
  std::string dir_;
  std::shared_ptr<LookupCacheCounters> counters_ = std::make_shared<LookupCacheCounters>();

  std::mutex mu_;
  uint64_t next_uid_ = 1;
  std::unordered_map<std::string, DiskEntry> files_;
  std::list<std::string> files_lru_;                       // most recent first
  std::unordered_map<uint64_t, LocalLookupFile*> by_uid_;  // the listed files
  int64_t listed_bytes_ = 0;
  std::unordered_map<MemKey, MemEntry, MemKeyHash> memory_;
  std::list<MemKey> memory_lru_;  // most recent first
  int64_t memory_total_ = 0;
};

}  // namespace fjord
