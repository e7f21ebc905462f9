// An Arrow memory pool that keeps the pages freed to it and hands them out again: for a writer
// whose every commit fills and empties the same amount of memory (sorted chunks of the write
// buffer, spill files read back, merged batches of a flush). Fresh memory costs a page fault and
// the kernel's zeroing per 4 KB page (on a VM that reports free pages to its host, several
// microseconds each); a recycled page is already mapped. Java's write buffer keeps its pages for
// the same reason (docs/performance.md, "Recycled pages").
//
// Requests of at least kMinBlockBytes are served, rounded up to whole pages, from arenas the pool
// maps itself (kArenaBytes each, or one request's size): best fit among the free ranges, split as
// needed, and merged again with their free neighbours when freed, so the pages of one phase's
// blocks (say, a sort's megabyte columns) serve the next phase's (a merge's small batches). The
// arenas grow only when no free range fits: what the pool maps stays near the most it had in use
// at once. Smaller requests go to the base pool. The arenas ask for transparent huge pages
// (MADV_HUGEPAGE): where the system grants them, a first touch maps 2 MB at once, not 4 KB.
//
// Thread-safe. Buffers may outlive the owner's handle: the pool then lives on until the last of
// them is freed (RecyclingPool::Make).
#pragma once

#include <arrow/memory_pool.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace fjord {

class RecyclingPool : public arrow::MemoryPool {
 public:
  static constexpr int64_t kMinBlockBytes = int64_t{16} << 10;
  static constexpr int64_t kPageBytes = 4096;
  static constexpr int64_t kArenaBytes = int64_t{64} << 20;

  struct Closer {
    void operator()(RecyclingPool* pool) const { pool->Close(); }
  };
  using Handle = std::unique_ptr<RecyclingPool, Closer>;

  // A pool over `base` (for small requests). Dropping the handle unmaps the arenas no buffer uses;
  // the pool itself is deleted once no buffer of it is left.
  static Handle Make(arrow::MemoryPool* base = arrow::default_memory_pool());

  using arrow::MemoryPool::Allocate;
  using arrow::MemoryPool::Free;
  using arrow::MemoryPool::Reallocate;
  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;
  // Gives the free pages' memory back to the system (the arenas stay mapped, emptied) and unmaps
  // arenas no buffer uses.
  void ReleaseUnused() override;

  int64_t bytes_allocated() const override;
  int64_t max_memory() const override;
  int64_t total_bytes_allocated() const override;
  int64_t num_allocations() const override;
  std::string backend_name() const override;

  // Bytes of the arenas mapped, and of their pages not in use.
  int64_t mapped_bytes() const;
  int64_t free_bytes() const;

 private:
  explicit RecyclingPool(arrow::MemoryPool* base);
  ~RecyclingPool() override;
  void Close();
  // Whether a request is served from the arenas (else by the base pool).
  static bool FromArena(int64_t size, int64_t alignment);
  static int64_t PageRound(int64_t size);
  // Takes `bytes` (whole pages) from the best-fitting free range, mapping an arena if none fits.
  arrow::Status TakeLocked(int64_t bytes, uintptr_t* out);
  // Returns [start, start + bytes) to the free ranges, merged with free neighbours of its arena.
  void PutLocked(uintptr_t start, int64_t bytes);
  void EraseFreeLocked(std::map<uintptr_t, int64_t>::iterator it);
  // The arena holding `address`.
  std::map<uintptr_t, int64_t>::const_iterator ArenaOfLocked(uintptr_t address) const;
  // An allocation or reallocation that grew the bytes in use by `grown` (negative: shrank).
  void CountLocked(int64_t grown);
  // Unmaps the arenas that are one free range.
  void UnmapFreeArenasLocked();
  // Whether the pool is closed and no buffer of it is left (then it deletes itself).
  bool DoneLocked() const { return closed_ && live_blocks_ == 0 && base_live_ == 0; }

  arrow::MemoryPool* const base_;
  mutable std::mutex mu_;
  std::map<uintptr_t, int64_t> arenas_;                   // start -> bytes
  std::map<uintptr_t, int64_t> free_;                     // free ranges: start -> bytes
  std::set<std::pair<int64_t, uintptr_t>> free_by_size_;  // the same: (bytes, start)
  int64_t mapped_ = 0;
  int64_t free_total_ = 0;
  int64_t live_blocks_ = 0;  // arena blocks in use
  int64_t base_live_ = 0;    // small blocks in use (from the base pool)
  int64_t in_use_ = 0;       // bytes requested and not freed (as bytes_allocated reports)
  int64_t peak_ = 0;
  int64_t total_ = 0;
  int64_t count_ = 0;
  bool closed_ = false;
};

}  // namespace fjord
