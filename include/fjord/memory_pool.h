// Arrow's default memory pool for a process that uses Fjord.
//
// The pyarrow wheel's Arrow defaults to mimalloc. On Linux with transparent huge pages, mimalloc
// hands freed 64 KB and 4 MB regions back to the kernel and faults them in again, and the kernel
// zeroes a whole 2 MB page each time: in a merge-on-read of 4 buckets on 2 threads 40% of the
// CPU went there. jemalloc keeps that memory (docs/performance.md, "Memory pool").
#pragma once

#include <arrow/memory_pool.h>

#include <unistd.h>

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
//
// Given main()'s argv, it also has jemalloc take one arena per CPU (`percpu_arena:percpu`)
// instead of one per thread, unless JE_ARROW_MALLOC_CONF is set: memory that one thread frees is
// then reused by the next allocation on that CPU, where it sat in another thread's arena while
// fresh pages were faulted in (an upsert write on 2 threads: a third fewer page faults,
// docs/performance.md "Memory pool"). jemalloc reads that setting once, when Arrow's library is
// loaded, so the program is started again (same process, exec of /proc/self/exe) with it in the
// environment; if that cannot be done it goes on as it is.
inline std::string PreferJemallocMemoryPool(char** argv = nullptr) {
  arrow::MemoryPool* jemalloc = nullptr;
  if (std::getenv("ARROW_DEFAULT_MEMORY_POOL") == nullptr &&
      arrow::jemalloc_memory_pool(&jemalloc).ok()) {
    if (argv != nullptr && std::getenv("JE_ARROW_MALLOC_CONF") == nullptr) {
      setenv("JE_ARROW_MALLOC_CONF", "percpu_arena:percpu", /*overwrite=*/0);
      setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
      execv("/proc/self/exe", argv);  // returns only if it failed
    }
    setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
  }
  return ArrowMemoryPoolName();
}

}  // namespace fjord
