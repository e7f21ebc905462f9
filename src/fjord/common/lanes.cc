#include "fjord/common/lanes.h"

#include <algorithm>

namespace fjord {

Lanes::Lanes(int threads, int max_batches)
    : max_batches_(std::max(max_batches, 1)),
      pool_(std::make_unique<ThreadPool>(std::max(threads, 1))) {}

Lanes::~Lanes() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return tasks_in_flight_ == 0; });
}

Status Lanes::SubmitBatch(std::vector<Task> tasks) {
  if (tasks.empty()) return error();
  std::vector<const void*> to_schedule;
  {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this] { return !error_.ok() || batches_in_flight_ < max_batches_; });
    if (!error_.ok()) return error_;
    auto left = std::make_shared<int>(static_cast<int>(tasks.size()));
    ++batches_in_flight_;
    tasks_in_flight_ += static_cast<int>(tasks.size());
    for (Task& t : tasks) {
      Lane& lane = lanes_[t.lane];
      lane.queue.push_back({std::move(t.run), left});
      if (!lane.scheduled) {
        lane.scheduled = true;
        to_schedule.push_back(t.lane);
      }
    }
  }
  for (const void* lane : to_schedule) pool_->Submit([this, lane] { RunLane(lane); });
  return Status::OK();
}

Status Lanes::Submit(const void* lane, std::function<Status()> run) {
  std::vector<Task> tasks;
  tasks.push_back({lane, std::move(run)});
  return SubmitBatch(std::move(tasks));
}

void Lanes::Spawn(std::function<Status()> run) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++tasks_in_flight_;
    ++spawned_waiting_;
  }
  pool_->Submit([this, run = std::move(run)]() mutable {
    bool ok;
    {
      std::lock_guard<std::mutex> lock(mu_);
      --spawned_waiting_;
      ok = error_.ok();
    }
    Status st = ok ? run() : Status::OK();
    run = nullptr;  // what the task holds goes before the waiters wake
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!st.ok() && error_.ok()) error_ = st;
      --tasks_in_flight_;
    }
    changed_.notify_all();
  });
}

// A lane runs its queue until it is empty, or until work was Spawned meanwhile: then it goes
// back to the end of the pool's queue, so that the spawned work gets a thread instead of waiting
// for a busy lane's queue to run dry.
void Lanes::RunLane(const void* key) {
  while (true) {
    Pending next;
    bool skip;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Lane& lane = lanes_[key];
      if (lane.queue.empty()) {
        lane.scheduled = false;
        return;
      }
      next = std::move(lane.queue.front());
      lane.queue.pop_front();
      // After an error the rest is skipped: the writer is broken, its buffers are not to be used.
      skip = !error_.ok();
    }
    Status st = skip ? Status::OK() : next.run();
    next.run = nullptr;  // what the task holds (rows) goes before the waiters wake
    bool yield;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!st.ok() && error_.ok()) error_ = st;
      if (--*next.batch_left == 0) --batches_in_flight_;
      --tasks_in_flight_;
      yield = spawned_waiting_ > 0 && !lanes_[key].queue.empty();
    }
    changed_.notify_all();
    if (yield) {
      pool_->Submit([this, key] { RunLane(key); });
      return;
    }
  }
}

Status Lanes::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return tasks_in_flight_ == 0; });
  return error_;
}

Status Lanes::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace fjord
