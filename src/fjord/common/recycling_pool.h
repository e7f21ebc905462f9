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
// With `arenas_per_thread` (Make), each arena belongs to one of kSlots slots, and a thread takes
// its blocks from the arenas of its own slot (threads get slots in turn), or else from a whole
// free arena of another slot, which becomes its own, or else from a new arena: two threads
// filling buffers at once do not take turns in one arena, where each buffer's growth can find the
// pages after it taken by the other's and move (in some runs of a 4-bucket merge-on-read on 2
// threads, Parquet's string decoding took 1.8x its usual time and memmove 1.5x). For reads,
// whose threads each fill and free their own batches; a writer's threads hand memory to each
// other (a batch filled by one is freed by another), and slots would keep it from the threads
// that need it next (the 4-bucket upsert write on 2 threads: peak RSS 536 -> 726 MB).
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
  static constexpr int kSlots = 8;

  struct Closer {
    void operator()(RecyclingPool* pool) const { pool->Close(); }
  };
  using Handle = std::unique_ptr<RecyclingPool, Closer>;

  // A pool over `base` (for small requests). Dropping the handle unmaps the arenas no buffer uses;
  // the pool itself is deleted once no buffer of it is left.
  static Handle Make(arrow::MemoryPool* base = arrow::default_memory_pool(),
                     bool arenas_per_thread = false);

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
  RecyclingPool(arrow::MemoryPool* base, bool arenas_per_thread);
  ~RecyclingPool() override;
  void Close();
  // Whether a request is served from the arenas (else by the base pool).
  static bool FromArena(int64_t size, int64_t alignment);
  static int64_t PageRound(int64_t size);
  struct Arena {
    int64_t bytes;
    int slot;
  };
  using Arenas = std::map<uintptr_t, Arena>;
  // The calling thread's slot (0 without arenas_per_thread).
  int ThreadSlot() const;
  // Takes `bytes` (whole pages) from the best-fitting free range of `slot`'s arenas, else from a
  // whole free arena of another slot (moved to `slot`), else from a new arena of `slot`.
  arrow::Status TakeLocked(int64_t bytes, int slot, uintptr_t* out);
  // Returns [start, start + bytes) to the free ranges, merged with free neighbours of its arena.
  void PutLocked(uintptr_t start, int64_t bytes);
  // Adds or removes a free range (its arena's slot found by address).
  void AddFreeLocked(uintptr_t start, int64_t bytes);
  void EraseFreeLocked(std::map<uintptr_t, int64_t>::iterator it);
  // The arena holding `address`.
  Arenas::const_iterator ArenaOfLocked(uintptr_t address) const;
  // An allocation or reallocation that grew the bytes in use by `grown` (negative: shrank).
  void CountLocked(int64_t grown);
  // Unmaps the arenas that are one free range.
  void UnmapFreeArenasLocked();
  // Whether the pool is closed and no buffer of it is left (then it deletes itself).
  bool DoneLocked() const { return closed_ && live_blocks_ == 0 && base_live_ == 0; }

  arrow::MemoryPool* const base_;
  const bool per_thread_;
  mutable std::mutex mu_;
  Arenas arenas_;                      // start -> bytes, slot
  std::map<uintptr_t, int64_t> free_;  // free ranges: start -> bytes
  // The same per slot of their arenas: (bytes, start).
  std::set<std::pair<int64_t, uintptr_t>> free_by_size_[kSlots];
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
