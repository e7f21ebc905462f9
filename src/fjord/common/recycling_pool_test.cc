#include "fjord/common/recycling_pool.h"

#include <arrow/buffer.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fjord {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(RecyclingPoolTest, FreedPagesServeLaterRequestsOfAnySize) {
  RecyclingPool::Handle pool = RecyclingPool::Make();
  // A sort's phase: 40 blocks of 1 MB.
  std::vector<uint8_t*> chunks(40);
  for (uint8_t*& p : chunks) {
    ASSERT_TRUE(pool->Allocate(kMiB, &p).ok());
    std::memset(p, 1, kMiB);
  }
  EXPECT_EQ(pool->bytes_allocated(), 40 * kMiB);
  EXPECT_EQ(pool->mapped_bytes(), RecyclingPool::kArenaBytes);
  const int64_t free_before = pool->free_bytes();
  for (uint8_t* p : chunks) pool->Free(p, kMiB);
  EXPECT_EQ(pool->free_bytes(), RecyclingPool::kArenaBytes);
  // A merge's phase: 2,000 blocks of 20 KB (not a multiple of the page) fit the same pages.
  std::vector<uint8_t*> batches(2000);
  for (uint8_t*& p : batches) ASSERT_TRUE(pool->Allocate(20000, &p).ok());
  EXPECT_EQ(pool->mapped_bytes(), RecyclingPool::kArenaBytes);
  EXPECT_EQ(pool->free_bytes(), free_before + 40 * kMiB - 2000 * 20480);
  for (uint8_t* p : batches) pool->Free(p, 20000);
  // Freed ranges merged again: one 48 MB block fits without a new arena.
  uint8_t* big = nullptr;
  ASSERT_TRUE(pool->Allocate(48 * kMiB, &big).ok());
  EXPECT_EQ(pool->mapped_bytes(), RecyclingPool::kArenaBytes);
  pool->Free(big, 48 * kMiB);
  EXPECT_EQ(pool->bytes_allocated(), 0);
  EXPECT_EQ(pool->max_memory(), 48 * kMiB);
}

TEST(RecyclingPoolTest, RandomFreesMergeBackToWholeArenas) {
  RecyclingPool::Handle pool = RecyclingPool::Make();
  std::mt19937_64 rng(7);
  std::vector<std::pair<uint8_t*, int64_t>> live;
  for (int round = 0; round < 20; ++round) {
    while (pool->bytes_allocated() < 100 * kMiB) {
      const int64_t size = RecyclingPool::kMinBlockBytes + static_cast<int64_t>(rng() % (3 * kMiB));
      uint8_t* p = nullptr;
      ASSERT_TRUE(pool->Allocate(size, &p).ok());
      p[0] = 1;
      p[size - 1] = 2;
      live.emplace_back(p, size);
    }
    std::shuffle(live.begin(), live.end(), rng);
    while (live.size() > 10) {
      pool->Free(live.back().first, live.back().second);
      live.pop_back();
    }
  }
  // Twenty rounds of 100 MB in use mapped a few arenas, not twenty rounds' worth.
  EXPECT_LE(pool->mapped_bytes(), 3 * RecyclingPool::kArenaBytes);
  for (auto& [p, size] : live) pool->Free(p, size);
  EXPECT_EQ(pool->bytes_allocated(), 0);
  EXPECT_EQ(pool->free_bytes(), pool->mapped_bytes());
  pool->ReleaseUnused();  // every arena is one free range again: all unmapped
  EXPECT_EQ(pool->mapped_bytes(), 0);
}

TEST(RecyclingPoolTest, LargeRequestsGetAnArenaOfTheirOwnAndSmallOnesTheBasePool) {
  arrow::MemoryPool* base = arrow::default_memory_pool();
  const int64_t base_before = base->bytes_allocated();
  RecyclingPool::Handle pool = RecyclingPool::Make(base);
  uint8_t* huge = nullptr;
  ASSERT_TRUE(pool->Allocate(100 * kMiB + 1, &huge).ok());
  huge[100 * kMiB] = 3;
  EXPECT_EQ(pool->mapped_bytes(), 100 * kMiB + RecyclingPool::kPageBytes);
  uint8_t* tiny = nullptr;
  ASSERT_TRUE(pool->Allocate(100, &tiny).ok());
  EXPECT_EQ(base->bytes_allocated() - base_before, 100);
  EXPECT_EQ(pool->bytes_allocated(), 100 * kMiB + 1 + 100);
  pool->Free(tiny, 100);
  pool->Free(huge, 100 * kMiB + 1);
  EXPECT_EQ(base->bytes_allocated(), base_before);
}

TEST(RecyclingPoolTest, ReallocateGrowsInPlaceWhenThePagesAfterAreFree) {
  RecyclingPool::Handle pool = RecyclingPool::Make();
  uint8_t* p = nullptr;
  ASSERT_TRUE(pool->Allocate(20000, &p).ok());
  std::memset(p, 7, 20000);
  uint8_t* q = p;
  ASSERT_TRUE(pool->Reallocate(20000, 20400, &q).ok());
  EXPECT_EQ(q, p);  // same pages
  ASSERT_TRUE(pool->Reallocate(20400, 100000, &q).ok());
  EXPECT_EQ(q, p);  // the pages after it were free
  EXPECT_EQ(q[19999], 7);
  uint8_t* blocker = nullptr;
  ASSERT_TRUE(pool->Allocate(RecyclingPool::kMinBlockBytes, &blocker).ok());
  ASSERT_TRUE(pool->Reallocate(100000, 300000, &q).ok());
  EXPECT_NE(q, p);  // moved past the block in the way, contents kept
  EXPECT_EQ(q[0], 7);
  EXPECT_EQ(q[19999], 7);
  ASSERT_TRUE(pool->Reallocate(300000, 50, &q).ok());  // down to a base-pool block
  EXPECT_EQ(q[49], 7);
  EXPECT_EQ(pool->bytes_allocated(), 50 + RecyclingPool::kMinBlockBytes);
  pool->Free(q, 50);
  pool->Free(blocker, RecyclingPool::kMinBlockBytes);
  EXPECT_EQ(pool->bytes_allocated(), 0);
  EXPECT_EQ(pool->free_bytes(), pool->mapped_bytes());
}

// Two threads growing buffers at once: each takes its blocks from arenas of its own, so the
// pages after each buffer stay free for its growth. A whole free arena serves another thread.
TEST(RecyclingPoolTest, ThreadsGrowTheirBuffersInArenasOfTheirOwn) {
  RecyclingPool::Handle pool = RecyclingPool::Make(arrow::default_memory_pool(), true);
  auto on_thread = [](const std::function<void()>& work) { std::thread(work).join(); };
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  on_thread([&] { ASSERT_TRUE(pool->Allocate(kMiB, &a).ok()); });
  on_thread([&] { ASSERT_TRUE(pool->Allocate(kMiB, &b).ok()); });
  EXPECT_EQ(pool->mapped_bytes(), 2 * RecyclingPool::kArenaBytes);
  uint8_t* grown = a;
  on_thread([&] { ASSERT_TRUE(pool->Reallocate(kMiB, 8 * kMiB, &grown).ok()); });
  EXPECT_EQ(grown, a);  // the pages after it were free: b is in the other arena
  on_thread([&] { pool->Free(grown, 8 * kMiB); });
  pool->Free(b, kMiB);
  EXPECT_EQ(pool->bytes_allocated(), 0);
  // Both arenas whole and free: a third thread takes one of them instead of a new one.
  uint8_t* c = nullptr;
  on_thread([&] { ASSERT_TRUE(pool->Allocate(32 * kMiB, &c).ok()); });
  EXPECT_EQ(pool->mapped_bytes(), 2 * RecyclingPool::kArenaBytes);
  pool->Free(c, 32 * kMiB);
  EXPECT_EQ(pool->free_bytes(), pool->mapped_bytes());
  // Without arenas per thread, one arena for all: the second thread's block right after the
  // first's, whose growth then moves.
  RecyclingPool::Handle shared = RecyclingPool::Make();
  on_thread([&] { ASSERT_TRUE(shared->Allocate(kMiB, &a).ok()); });
  on_thread([&] { ASSERT_TRUE(shared->Allocate(kMiB, &b).ok()); });
  EXPECT_EQ(shared->mapped_bytes(), RecyclingPool::kArenaBytes);
  EXPECT_EQ(b, a + kMiB);
  shared->Free(a, kMiB);
  shared->Free(b, kMiB);
}

TEST(RecyclingPoolTest, BuffersMayOutliveTheHandle) {
  arrow::MemoryPool* base = arrow::default_memory_pool();
  const int64_t base_before = base->bytes_allocated();
  RecyclingPool::Handle pool = RecyclingPool::Make(base);
  auto kept = arrow::AllocateBuffer(kMiB, pool.get());
  ASSERT_TRUE(kept.ok());
  auto small = arrow::AllocateBuffer(64, pool.get());
  ASSERT_TRUE(small.ok());
  RecyclingPool* raw = pool.get();
  pool.reset();  // closed: the pool lives on for the two buffers
  EXPECT_EQ(raw->mapped_bytes(), RecyclingPool::kArenaBytes);
  std::memset((*kept)->mutable_data(), 1, kMiB);
  small->reset();
  kept->reset();  // the last buffer: the pool and its arena are gone with it (ASan sees a leak)
  EXPECT_EQ(base->bytes_allocated(), base_before);
}

// The "THPeligible" field of the mapping of /proc/self/smaps that holds `address` (-1: none).
int HugePageEligible(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;  // a mapping's header: "lo-hi perms ..."
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::atoi(line.c_str() + std::strlen("THPeligible:"));
    }
  }
  return -1;
}

TEST(RecyclingPoolTest, ArenasAskForHugePages) {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(mode, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos) {
    GTEST_SKIP() << "transparent huge pages are off here";
  }
  RecyclingPool::Handle pool = RecyclingPool::Make();
  uint8_t* p = nullptr;
  ASSERT_TRUE(pool->Allocate(kMiB, &p).ok());
  // Eligible whether THP is "always" or (as on Debian's default) "madvise": the pool asked.
  EXPECT_EQ(HugePageEligible(p), 1) << modes;
  pool->Free(p, kMiB);
}

}  // namespace
}  // namespace fjord
