#include "fjord/common/executor.h"

#include <gtest/gtest.h>

#include <atomic>
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

TEST(SharedWork, JoinersRunEveryPieceOnceAndAllSeeTheFirstError) {
  std::vector<std::atomic<int>> runs(300);
  std::mutex mu;
  std::set<std::thread::id> threads;
  SharedWork work(runs.size(), [&](size_t i) {
    runs[i]++;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    {
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    }
    if (i == 250) return Status::Invalid("piece 250");
    if (i == 40) return Status::Invalid("piece 40");
    return Status::OK();
  });
  // Three joiners: each returns only once every piece has run, with the lowest index's error.
  std::vector<Status> seen(3);
  std::vector<std::thread> joiners;
  for (size_t j = 1; j < seen.size(); ++j) joiners.emplace_back([&, j] { seen[j] = work.Join(); });
  seen[0] = work.Join();
  for (int i = 0; i < 300; ++i) EXPECT_EQ(runs[static_cast<size_t>(i)].load(), 1) << i;
  for (std::thread& t : joiners) t.join();
  for (const Status& st : seen) {
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.ToString().find("piece 40"), std::string::npos) << st.ToString();
  }
  EXPECT_GT(threads.size(), 1u);
  // A later joiner finds nothing left to run and returns at once.
  EXPECT_FALSE(work.Join().ok());
}

TEST(SharedWork, ASingleJoinerRunsEveryPieceInOrder) {
  std::vector<size_t> order;
  SharedWork work(5, [&](size_t i) {
    order.push_back(i);
    return Status::OK();
  });
  ASSERT_TRUE(work.Join().ok());
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
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

// idle() counts the threads waiting for a task.
TEST(ThreadPool, IdleCountsTheThreadsWaitingForATask) {
  ThreadPool pool(2);
  auto settle = [&](int want) {
    for (int i = 0; i < 5000 && pool.idle() != want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return pool.idle();
  };
  EXPECT_EQ(settle(2), 2);
  std::atomic<bool> release{false};
  auto busy = pool.Submit([&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 0;
  });
  EXPECT_EQ(settle(1), 1);
  release = true;
  busy.wait();
  EXPECT_EQ(settle(2), 2);
}

// A ClaimableTask runs once: on the background thread if it gets there first, else in Wait on
// the waiting thread; one its executor dropped runs in Wait; Wait returns its status either way.
TEST(ClaimableTask, RunsOnceWhereverItIsClaimedFirst) {
  {
    std::atomic<int> runs{0};
    ClaimableTask task([&] {
      ++runs;
      return Status::IOError("disk full");
    });
    EXPECT_TRUE(task.Wait().IsIOError());  // not started: runs here
    EXPECT_TRUE(task.Run().ok());          // claimed already: does not run again
    EXPECT_TRUE(task.Wait().IsIOError());
    EXPECT_EQ(runs.load(), 1);
  }
  {
    std::atomic<int> runs{0};
    std::atomic<bool> started{false}, release{false};
    auto task = std::make_shared<ClaimableTask>([&] {
      started = true;
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++runs;
      return Status::OK();
    });
    ThreadPool pool(1);
    auto ran = pool.Submit([task] { return task->Run(); });
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::thread releaser([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      release = true;
    });
    EXPECT_TRUE(task->Wait().ok());  // waits for the pool's thread
    EXPECT_EQ(runs.load(), 1);
    releaser.join();
    EXPECT_TRUE(ran.get().ok());
  }
  {
    int runs = 0;
    BackgroundExecutor drop = [](std::function<Status()>) {};
    auto task = std::make_shared<ClaimableTask>([&] {
      ++runs;
      return Status::OK();
    });
    drop([task] { return task->Run(); });
    EXPECT_TRUE(task->Wait().ok());
    EXPECT_EQ(runs, 1);
  }
}

}  // namespace
}  // namespace fjord
