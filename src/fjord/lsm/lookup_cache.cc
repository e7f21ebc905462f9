#include "fjord/lsm/lookup_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fjord {

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<LookupCacheOptions> LookupCacheOptions::FromOptions(const CoreOptions& options) {
  LookupCacheOptions o;
  o.max_memory_bytes = options.lookup_cache_max_memory_size();
  o.max_disk_bytes = options.lookup_cache_max_disk_size();
  o.file_retention_millis = options.lookup_cache_file_retention_millis();
  o.bloom_filter = options.lookup_cache_bloom_filter_enabled();
  o.bloom_fpp = options.lookup_cache_bloom_filter_fpp();
  if (o.bloom_filter && !(o.bloom_fpp > 0 && o.bloom_fpp < 1)) {
    return Status::Invalid("option 'lookup.cache.bloom.filter.fpp': ", o.bloom_fpp,
                           " is not a probability between 0 and 1 (exclusive)");
  }
  return o;
}

std::shared_ptr<LookupCache> LookupCache::Shared(const LookupCacheOptions& options) {
  static std::mutex mu;
  static std::vector<std::pair<LookupCacheOptions, std::weak_ptr<LookupCacheImpl>>> caches;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<LookupCacheImpl> found;
  for (auto it = caches.begin(); it != caches.end();) {
    std::shared_ptr<LookupCacheImpl> c = it->second.lock();
    if (!c) {
      it = caches.erase(it);
      continue;
    }
    if (it->first == options) found = c;
    ++it;
  }
  if (found) return found;
  auto cache = std::make_shared<LookupCacheImpl>(options);
  caches.emplace_back(options, cache);
  return cache;
}

// ---- Local files

LocalLookupFile::LocalLookupFile(uint64_t uid, std::string path, int fd, int64_t size,
                                 std::shared_ptr<LookupCacheCounters> counters)
    : uid_(uid), path_(std::move(path)), fd_(fd), size_(size), counters_(std::move(counters)) {
  LookupCacheCounters::RaisePeak(counters_->peak_disk_bytes, counters_->disk_bytes += size_);
}

LocalLookupFile::~LocalLookupFile() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
  counters_->disk_bytes -= size_;
}

// ---- The cache

LookupCacheImpl::LookupCacheImpl(LookupCacheOptions options) : options_(std::move(options)) {}

LookupCacheImpl::~LookupCacheImpl() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_.clear();
    memory_.clear();
  }
  if (own_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Status LookupCacheImpl::Init() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!dir_.empty()) return Status::OK();
  std::error_code ec;
  if (options_.local_dir.empty()) {
    std::string pattern =
        (std::filesystem::temp_directory_path(ec) / "fjord-lookup-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      return Status::IOError("creating the lookup cache directory ", pattern, ": ",
                             std::strerror(errno));
    }
    dir_ = pattern;
    own_dir_ = true;
  } else {
    std::filesystem::create_directories(options_.local_dir, ec);
    if (ec) {
      return Status::IOError("creating the lookup cache directory ", options_.local_dir, ": ",
                             ec.message());
    }
    dir_ = options_.local_dir;
  }
  return Status::OK();
}

std::string LookupCacheImpl::NewPath(uint64_t* uid) {
  std::lock_guard<std::mutex> lock(mu_);
  *uid = next_uid_++;
  // The pid keeps two processes sharing a configured directory apart.
  return dir_ + "/lookup-" + std::to_string(::getpid()) + "-" +
         std::to_string(reinterpret_cast<uintptr_t>(this)) + "-" + std::to_string(*uid) + ".sst";
}

void LookupCacheImpl::Unlist(std::unordered_map<std::string, DiskEntry>::iterator it) {
  LocalLookupFile& file = *it->second.file;
  file.listed_ = false;
  for (uint32_t entry : file.in_memory_) {
    auto m = memory_.find(MemKey{file.uid_, entry});
    if (m == memory_.end()) continue;
    memory_total_ -= m->second.bytes;
    memory_lru_.erase(m->second.lru);
    memory_.erase(m);
  }
  file.in_memory_.clear();
  counters_->memory_bytes = memory_total_;
  listed_bytes_ -= file.size_;
  files_lru_.erase(it->second.lru);
  by_uid_.erase(file.uid_);
  files_.erase(it);  // deletes the file now, or when its last user lets it go
  counters_->files_evicted++;
}

void LookupCacheImpl::Expire(int64_t now_millis) {
  while (!files_lru_.empty()) {
    auto it = files_.find(files_lru_.back());
    if (now_millis - it->second.last_access_millis < options_.file_retention_millis) break;
    Unlist(it);
  }
}

std::shared_ptr<LocalLookupFile> LookupCacheImpl::Acquire(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = NowMillis();
  Expire(now);
  auto it = files_.find(id);
  if (it == files_.end()) return nullptr;
  it->second.last_access_millis = now;
  files_lru_.splice(files_lru_.begin(), files_lru_, it->second.lru);
  return it->second.file;
}

Result<std::shared_ptr<LocalLookupFile>> LookupCacheImpl::Insert(
    const std::string& id, uint64_t uid, std::string path, int64_t size,
    std::shared_ptr<const LookupFileMeta> meta) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    ::unlink(path.c_str());
    return Status::IOError("opening lookup file ", path, ": ", std::strerror(err));
  }
  auto file = std::make_shared<LocalLookupFile>(uid, std::move(path), fd, size, counters_);
  counters_->files_built++;
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = NowMillis();
  Expire(now);
  auto old = files_.find(id);
  if (old != files_.end()) Unlist(old);  // built twice at once: the newer one stays
  files_lru_.push_front(id);
  files_.emplace(id, DiskEntry{file, now, files_lru_.begin()});
  file->listed_ = true;
  by_uid_[uid] = file.get();
  listed_bytes_ += size;
  // Disk bound: least recently used files go (the new one too when it alone is too big: the
  // caller still holds it for the lookup under way).
  while (listed_bytes_ > options_.max_disk_bytes && !files_lru_.empty()) {
    Unlist(files_.find(files_lru_.back()));
  }
  if (file->listed_) {
    int64_t bytes = meta->MemoryBytes();
    MemPut(*file, MemKey{uid, kMetaEntry}, std::move(meta), bytes);
  }
  return file;
}

void LookupCacheImpl::Drop(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(id);
  if (it != files_.end()) Unlist(it);
}

std::shared_ptr<const void> LookupCacheImpl::MemGet(const MemKey& key) {
  auto it = memory_.find(key);
  if (it == memory_.end()) return nullptr;
  memory_lru_.splice(memory_lru_.begin(), memory_lru_, it->second.lru);
  return it->second.value;
}

void LookupCacheImpl::MemPut(LocalLookupFile& file, const MemKey& key,
                             std::shared_ptr<const void> value, int64_t bytes) {
  if (!file.listed_ || memory_.count(key)) return;
  memory_lru_.push_front(key);
  memory_.emplace(key, MemEntry{std::move(value), bytes, memory_lru_.begin()});
  file.in_memory_.insert(key.entry);
  memory_total_ += bytes;
  MemEvict();
}

void LookupCacheImpl::MemEvict() {
  while (memory_total_ > options_.max_memory_bytes && !memory_lru_.empty()) {
    MemKey key = memory_lru_.back();
    auto it = memory_.find(key);
    memory_total_ -= it->second.bytes;
    memory_lru_.pop_back();
    memory_.erase(it);
    auto owner = by_uid_.find(key.uid);
    if (owner != by_uid_.end()) owner->second->in_memory_.erase(key.entry);
  }
  counters_->memory_bytes = memory_total_;
  LookupCacheCounters::RaisePeak(counters_->peak_memory_bytes, memory_total_);
}

Result<std::shared_ptr<const LookupFileMeta>> LookupCacheImpl::Meta(LocalLookupFile& file) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto cached = MemGet(MemKey{file.uid(), kMetaEntry});
    if (cached) return std::static_pointer_cast<const LookupFileMeta>(cached);
  }
  FJORD_ASSIGN_OR_RAISE(auto meta, ReadLookupFileMeta(file.fd(), file.size(), file.path()));
  std::lock_guard<std::mutex> lock(mu_);
  MemPut(file, MemKey{file.uid(), kMetaEntry}, meta, meta->MemoryBytes());
  return meta;
}

Result<std::shared_ptr<const LookupBlock>> LookupCacheImpl::Block(LocalLookupFile& file,
                                                                  const LookupFileMeta& meta,
                                                                  size_t block) {
  MemKey key{file.uid(), static_cast<uint32_t>(block)};
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto cached = MemGet(key);
    if (cached) return std::static_pointer_cast<const LookupBlock>(cached);
  }
  FJORD_ASSIGN_OR_RAISE(auto loaded, ReadLookupBlock(file.fd(), meta, block, file.path()));
  std::lock_guard<std::mutex> lock(mu_);
  MemPut(file, key, loaded, loaded->MemoryBytes());
  return loaded;
}

}  // namespace fjord
