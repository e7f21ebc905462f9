#include "fjord/common/recycling_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <vector>

namespace fjord {

RecyclingPool::Handle RecyclingPool::Make(arrow::MemoryPool* base, bool arenas_per_thread) {
  return Handle(new RecyclingPool(base, arenas_per_thread));
}

RecyclingPool::RecyclingPool(arrow::MemoryPool* base, bool arenas_per_thread)
    : base_(base), per_thread_(arenas_per_thread) {}

RecyclingPool::~RecyclingPool() {
  for (const auto& [start, arena] : arenas_) {
    munmap(reinterpret_cast<void*>(start), static_cast<size_t>(arena.bytes));
  }
}

int RecyclingPool::ThreadSlot() const {
  if (!per_thread_) return 0;
  static std::atomic<int> next{0};
  thread_local const int slot = next.fetch_add(1, std::memory_order_relaxed) % kSlots;
  return slot;
}

bool RecyclingPool::FromArena(int64_t size, int64_t alignment) {
  return size >= kMinBlockBytes && alignment <= kPageBytes;
}

int64_t RecyclingPool::PageRound(int64_t size) {
  return (size + kPageBytes - 1) / kPageBytes * kPageBytes;
}

RecyclingPool::Arenas::const_iterator RecyclingPool::ArenaOfLocked(uintptr_t address) const {
  return std::prev(arenas_.upper_bound(address));
}

void RecyclingPool::AddFreeLocked(uintptr_t start, int64_t bytes) {
  free_.emplace(start, bytes);
  free_by_size_[ArenaOfLocked(start)->second.slot].emplace(bytes, start);
}

void RecyclingPool::EraseFreeLocked(std::map<uintptr_t, int64_t>::iterator it) {
  free_by_size_[ArenaOfLocked(it->first)->second.slot].erase({it->second, it->first});
  free_.erase(it);
}

arrow::Status RecyclingPool::TakeLocked(int64_t bytes, int slot, uintptr_t* out) {
  std::set<std::pair<int64_t, uintptr_t>>& mine = free_by_size_[slot];
  auto best = mine.lower_bound({bytes, 0});
  if (best == mine.end()) {
    // A whole free arena of another slot, big enough, becomes this slot's.
    for (auto& [start, arena] : arenas_) {
      if (arena.slot == slot || arena.bytes < bytes) continue;
      auto f = free_.find(start);
      if (f == free_.end() || f->second != arena.bytes) continue;
      free_by_size_[arena.slot].erase({arena.bytes, start});
      arena.slot = slot;
      mine.emplace(arena.bytes, start);
      best = mine.lower_bound({bytes, 0});
      break;
    }
  }
  if (best == mine.end()) {
    const int64_t arena_bytes = std::max(kArenaBytes, bytes);
    void* p = mmap(nullptr, static_cast<size_t>(arena_bytes), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      return arrow::Status::OutOfMemory("cannot map ", arena_bytes,
                                        " bytes: ", std::strerror(errno));
    }
    // Huge pages where the system gives them on request (transparent_hugepage = madvise): one
    // fault per 2 MB instead of per 4 KB page (a hint; refused where THP is off).
    madvise(p, static_cast<size_t>(arena_bytes), MADV_HUGEPAGE);
    const auto start = reinterpret_cast<uintptr_t>(p);
    arenas_.emplace(start, Arena{arena_bytes, slot});
    mapped_ += arena_bytes;
    AddFreeLocked(start, arena_bytes);
    free_total_ += arena_bytes;
    best = mine.lower_bound({bytes, 0});
  }
  const auto [range_bytes, start] = *best;
  EraseFreeLocked(free_.find(start));
  if (range_bytes > bytes) {  // the rest stays free (its neighbours are in use: ranges are merged)
    AddFreeLocked(start + static_cast<uintptr_t>(bytes), range_bytes - bytes);
  }
  free_total_ -= bytes;
  *out = start;
  return arrow::Status::OK();
}

void RecyclingPool::PutLocked(uintptr_t start, int64_t bytes) {
  free_total_ += bytes;
  const auto arena = ArenaOfLocked(start);
  const uintptr_t arena_end = arena->first + static_cast<uintptr_t>(arena->second.bytes);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + static_cast<uintptr_t>(bytes) &&
      next->first < arena_end) {
    bytes += next->second;
    auto after = std::next(next);
    EraseFreeLocked(next);
    next = after;
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + static_cast<uintptr_t>(prev->second) == start &&
        prev->first >= arena->first) {
      start = prev->first;
      bytes += prev->second;
      EraseFreeLocked(prev);
    }
  }
  AddFreeLocked(start, bytes);
}

void RecyclingPool::UnmapFreeArenasLocked() {
  for (auto a = arenas_.begin(); a != arenas_.end();) {
    auto f = free_.find(a->first);
    if (f == free_.end() || f->second != a->second.bytes) {
      ++a;
      continue;
    }
    EraseFreeLocked(f);
    free_total_ -= a->second.bytes;
    mapped_ -= a->second.bytes;
    munmap(reinterpret_cast<void*>(a->first), static_cast<size_t>(a->second.bytes));
    a = arenas_.erase(a);
  }
}

void RecyclingPool::CountLocked(int64_t grown) {
  in_use_ += grown;
  peak_ = std::max(peak_, in_use_);
  total_ += std::max<int64_t>(grown, 0);
  ++count_;
}

arrow::Status RecyclingPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  if (!FromArena(size, alignment)) {
    ARROW_RETURN_NOT_OK(base_->Allocate(size, alignment, out));
    std::lock_guard<std::mutex> lock(mu_);
    ++base_live_;
    CountLocked(size);
    return arrow::Status::OK();
  }
  const int slot = ThreadSlot();
  std::lock_guard<std::mutex> lock(mu_);
  uintptr_t start = 0;
  ARROW_RETURN_NOT_OK(TakeLocked(PageRound(size), slot, &start));
  ++live_blocks_;
  CountLocked(size);
  *out = reinterpret_cast<uint8_t*>(start);
  return arrow::Status::OK();
}

arrow::Status RecyclingPool::Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                                        uint8_t** ptr) {
  const bool old_arena = FromArena(old_size, alignment);
  const bool new_arena = FromArena(new_size, alignment);
  if (!old_arena && !new_arena) {
    ARROW_RETURN_NOT_OK(base_->Reallocate(old_size, new_size, alignment, ptr));
    std::lock_guard<std::mutex> lock(mu_);
    CountLocked(new_size - old_size);
    return arrow::Status::OK();
  }
  if (old_arena && new_arena) {
    const auto start = reinterpret_cast<uintptr_t>(*ptr);
    const int64_t have = PageRound(old_size), want = PageRound(new_size);
    std::lock_guard<std::mutex> lock(mu_);
    bool in_place = want <= have;
    if (in_place && want < have) {
      PutLocked(start + static_cast<uintptr_t>(want), have - want);
    } else if (!in_place) {
      // Grows into the free range right after it, if that is in its arena and large enough.
      const auto arena = ArenaOfLocked(start);
      const uintptr_t end = start + static_cast<uintptr_t>(have);
      auto next = free_.find(end);
      if (next != free_.end() && end < arena->first + static_cast<uintptr_t>(arena->second.bytes) &&
          next->second >= want - have) {
        const int64_t rest = next->second - (want - have);
        EraseFreeLocked(next);
        if (rest > 0) AddFreeLocked(start + static_cast<uintptr_t>(want), rest);
        free_total_ -= want - have;
        in_place = true;
      }
    }
    if (in_place) {
      CountLocked(new_size - old_size);
      return arrow::Status::OK();
    }
  }
  uint8_t* moved = nullptr;
  ARROW_RETURN_NOT_OK(Allocate(new_size, alignment, &moved));
  std::memcpy(moved, *ptr, static_cast<size_t>(std::min(old_size, new_size)));
  Free(*ptr, old_size, alignment);
  *ptr = moved;
  return arrow::Status::OK();
}

void RecyclingPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  bool done = false;
  if (!FromArena(size, alignment)) {
    base_->Free(buffer, size, alignment);
    std::lock_guard<std::mutex> lock(mu_);
    --base_live_;
    in_use_ -= size;
    done = DoneLocked();
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    PutLocked(reinterpret_cast<uintptr_t>(buffer), PageRound(size));
    --live_blocks_;
    in_use_ -= size;
    if (closed_) UnmapFreeArenasLocked();
    done = DoneLocked();
  }
  if (done) delete this;
}

void RecyclingPool::ReleaseUnused() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    UnmapFreeArenasLocked();
    for (const auto& [start, bytes] : free_) {
      madvise(reinterpret_cast<void*>(start), static_cast<size_t>(bytes), MADV_DONTNEED);
    }
  }
  base_->ReleaseUnused();
}

void RecyclingPool::Close() {
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    UnmapFreeArenasLocked();
    done = DoneLocked();
  }
  if (done) delete this;
}

int64_t RecyclingPool::bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

int64_t RecyclingPool::max_memory() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

int64_t RecyclingPool::total_bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

int64_t RecyclingPool::num_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

std::string RecyclingPool::backend_name() const {
  return "recycling(" + base_->backend_name() + ")";
}

int64_t RecyclingPool::mapped_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return mapped_;
}

int64_t RecyclingPool::free_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_total_;
}

}  // namespace fjord
