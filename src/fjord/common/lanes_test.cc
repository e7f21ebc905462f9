#include "fjord/common/lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace fjord {
namespace {

TEST(Lanes, EachLaneRunsInOrderAndLanesRunAtOnce) {
  Lanes lanes(2, 4);
  int lane_ids[3];
  std::mutex mu;
  std::map<const void*, std::vector<int>> seen;
  std::atomic<int> running{0}, most{0};
  for (int i = 0; i < 60; ++i) {
    std::vector<Lanes::Task> batch;
    for (int& lane : lane_ids) {
      batch.push_back({&lane, [&, i, l = &lane] {
                         int now = ++running;
                         int m = most.load();
                         while (now > m && !most.compare_exchange_weak(m, now)) {
                         }
                         std::this_thread::sleep_for(std::chrono::microseconds(300));
                         --running;
                         std::lock_guard<std::mutex> lock(mu);
                         seen[l].push_back(i);
                         return Status::OK();
                       }});
    }
    ASSERT_TRUE(lanes.SubmitBatch(std::move(batch)).ok());
  }
  ASSERT_TRUE(lanes.Drain().ok());
  ASSERT_EQ(seen.size(), 3u);
  for (auto& [lane, order] : seen) {
    ASSERT_EQ(order.size(), 60u);
    for (int i = 0; i < 60; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  }
  EXPECT_EQ(most.load(), 2);  // two threads, never more
}

TEST(Lanes, SubmitWaitsWhileTooManyBatchesAreUnfinished) {
  Lanes lanes(1, 2);
  std::atomic<bool> release{false};
  std::atomic<int> done{0};
  int lane = 0;
  auto blocked = [&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++done;
    return Status::OK();
  };
  ASSERT_TRUE(lanes.Submit(&lane, blocked).ok());
  ASSERT_TRUE(lanes.Submit(&lane, blocked).ok());
  std::atomic<bool> third_queued{false};
  std::thread t([&] {
    EXPECT_TRUE(lanes.Submit(&lane, blocked).ok());
    third_queued = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_queued.load());  // two batches unfinished: the third waits
  release = true;
  t.join();
  EXPECT_TRUE(third_queued.load());
  ASSERT_TRUE(lanes.Drain().ok());
  EXPECT_EQ(done.load(), 3);
}

TEST(Lanes, TheFirstErrorStopsTheRestAndStays) {
  Lanes lanes(2, 8);
  int a = 0, b = 0;
  std::atomic<int> ran_after{0};
  ASSERT_TRUE(lanes.Submit(&a, [] { return Status::IOError("disk full"); }).ok());
  ASSERT_TRUE(lanes.Drain().IsIOError());
  // Later submissions return the error and queue nothing.
  Status st = lanes.Submit(&b, [&] {
    ++ran_after;
    return Status::OK();
  });
  EXPECT_TRUE(st.IsIOError());
  EXPECT_TRUE(lanes.Drain().IsIOError());
  EXPECT_EQ(ran_after.load(), 0);
  EXPECT_NE(lanes.error().ToString().find("disk full"), std::string::npos);
}

// A spawned task runs beside its lane: the lane's next task and later batches go on while it
// runs; Drain waits for it, and its error is the lanes' error.
TEST(Lanes, SpawnedTasksRunBesideTheLanesAndDrainWaitsForThem) {
  Lanes lanes(2, 2);
  int lane = 0;
  std::atomic<bool> release{false};
  std::atomic<bool> spawned_done{false};
  std::atomic<int> lane_tasks{0};
  ASSERT_TRUE(lanes
                  .Submit(&lane,
                          [&] {
                            lanes.Spawn([&] {
                              while (!release)
                                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                              spawned_done = true;
                              return Status::IOError("spill disk full");
                            });
                            ++lane_tasks;
                            return Status::OK();
                          })
                  .ok());
  // More batches than max_batches on the same lane: none waits for the spawned task.
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(lanes
                    .Submit(&lane,
                            [&] {
                              ++lane_tasks;
                              return Status::OK();
                            })
                    .ok());
  }
  while (lane_tasks.load() < 6) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(spawned_done.load());
  EXPECT_TRUE(lanes.error().ok());
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    release = true;
  });
  Status drained = lanes.Drain();
  EXPECT_TRUE(spawned_done.load());  // Drain returned only after it
  EXPECT_TRUE(drained.IsIOError()) << drained.ToString();
  t.join();
}

// A lane runs one task per turn on the pool: work spawned while a lane has a long queue runs
// before that queue is through (one thread: the lane's later tasks wait behind it).
TEST(Lanes, SpawnedWorkIsNotStarvedByABusyLane) {
  Lanes lanes(1, 64);
  int lane = 0;
  std::mutex mu;
  std::vector<int> order;
  auto record = [&](int what) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back(what);
  };
  std::atomic<bool> all_queued{false};
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(lanes
                    .Submit(&lane,
                            [&, i] {
                              if (i == 0) {
                                while (!all_queued) {
                                  std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                }
                                lanes.Spawn([&] {
                                  record(-1);
                                  return Status::OK();
                                });
                              }
                              record(i);
                              return Status::OK();
                            })
                    .ok());
  }
  all_queued = true;
  ASSERT_TRUE(lanes.Drain().ok());
  ASSERT_EQ(order.size(), 21u);
  auto spawned = std::find(order.begin(), order.end(), -1);
  EXPECT_LT(spawned - order.begin(), 5) << "the spawned task waited for the lane's queue";
  order.erase(spawned);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

}  // namespace
}  // namespace fjord
