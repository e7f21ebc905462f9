#include "fjord/common/executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

namespace fjord {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceOnTheCallerAndThePool) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> runs(200);
  std::mutex mu;
  std::set<std::thread::id> threads;
  ASSERT_TRUE(ParallelFor(&pool, runs.size(), [&](size_t i) {
                runs[i]++;
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                std::lock_guard<std::mutex> lock(mu);
                threads.insert(std::this_thread::get_id());
                return Status::OK();
              }).ok());
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_GT(threads.size(), 1u);
  EXPECT_LE(threads.size(), 4u);
}

TEST(ParallelFor, WithoutAPoolEverythingRunsOnTheCaller) {
  std::set<std::thread::id> threads;
  int count = 0;
  ASSERT_TRUE(ParallelFor(nullptr, 10, [&](size_t) {
                threads.insert(std::this_thread::get_id());
                ++count;
                return Status::OK();
              }).ok());
  EXPECT_EQ(count, 10);
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ParallelFor, ReturnsTheErrorOfTheLowestIndexAfterEveryPieceRan) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  Status st = ParallelFor(&pool, 50, [&](size_t i) {
    ran++;
    if (i == 31) return Status::Invalid("piece 31");
    if (i == 7) return Status::Invalid("piece 7");
    return Status::OK();
  });
  EXPECT_EQ(ran.load(), 50);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("piece 7"), std::string::npos) << st.ToString();
}

TEST(ThreadPool, RunsTasksOnSeveralThreadsAndDrainsAtDestruction) {
  std::atomic<int> done{0};
  std::vector<std::future<int>> results;
  {
    ThreadPool pool(2);
    EXPECT_EQ(pool.size(), 2);
    for (int i = 0; i < 20; ++i) {
      results.push_back(pool.Submit([i, &done] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        done++;
        return i * i;
      }));
    }
  }
  EXPECT_EQ(done.load(), 20);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(results[static_cast<size_t>(i)].get(), i * i);
}

}  // namespace
}  // namespace fjord
