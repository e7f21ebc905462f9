// Arrow's default memory pool for a process that uses Fjord.
//
// The pyarrow wheel's Arrow defaults to mimalloc. On Linux with transparent huge pages, mimalloc
// hands freed 64 KB and 4 MB regions back to the kernel and faults them in again, and the kernel
// zeroes a whole 2 MB page each time: in a merge-on-read of 4 buckets on 2 threads 40% of the
// CPU went there. jemalloc keeps that memory (docs/performance.md, "Memory pool").
#pragma once

#include <arrow/memory_pool.h>

#include <cstdlib>
#include <string>

namespace fjord {

// The name of Arrow's default memory pool (choosing it if nothing has yet).
inline std::string ArrowMemoryPoolName() { return arrow::default_memory_pool()->backend_name(); }

// Makes jemalloc Arrow's default memory pool for this process, unless ARROW_DEFAULT_MEMORY_POOL
// is already set (the user's choice stands) or this Arrow has no jemalloc. Must run before
// anything allocates through Arrow's default pool: first thing in main(). The `fjord` CLI does.
// Returns the name of the default pool now in use ("jemalloc", "mimalloc", "system").
// Header-only, so that programs of Arrow alone can do the same.
inline std::string PreferJemallocMemoryPool() {
  arrow::MemoryPool* jemalloc = nullptr;
  if (std::getenv("ARROW_DEFAULT_MEMORY_POOL") == nullptr &&
      arrow::jemalloc_memory_pool(&jemalloc).ok()) {
    setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
  }
  return ArrowMemoryPoolName();
}

}  // namespace fjord
