// Background threads for the writers: a pool running submitted tasks (Java Paimon gives each
// write task one compaction thread shared by all its buckets; Fjord's writer may use more), and
// a fork-join helper that spreads independent pieces of work over the caller and a pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "fjord/status.h"

namespace fjord {

// `threads` background threads running submitted tasks in submission order (with one thread,
// one after another). Tasks must not throw. The destructor lets queued and running tasks finish,
// then joins the threads.
class ThreadPool {
 public:
  explicit ThreadPool(int threads = 1) {
    threads = std::max(threads, 1);
    workers_.reserve(static_cast<size_t>(threads));
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Loop(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  // Threads waiting for a task (the queue empty): threads the pool's work leaves to spare.
  int idle() const { return idle_.load(std::memory_order_relaxed); }

  template <typename F>
  auto Submit(F task) -> std::future<decltype(task())> {
    using R = decltype(task());
    auto packaged = std::make_shared<std::packaged_task<R()>>(std::move(task));
    std::future<R> future = packaged->get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.emplace_back([packaged] { (*packaged)(); });
    }
    cv_.notify_one();
    return future;
  }

 private:
  void Loop() {
    while (true) {
      std::function<void()> next;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (queue_.empty()) {
          idle_.fetch_add(1, std::memory_order_relaxed);
          cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
          idle_.fetch_sub(1, std::memory_order_relaxed);
        }
        if (queue_.empty()) return;  // stopping and drained
        next = std::move(queue_.front());
        queue_.pop_front();
      }
      next();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::atomic<int> idle_{0};
  std::vector<std::thread> workers_;  // last: started after the other members exist
};

// Runs work(0) .. work(n - 1), each exactly once, on the calling thread and on up to
// pool->size() threads of `pool` (null: all on the caller), and returns when all have finished:
// the first error by index, or OK. The pool must not be busy with other long tasks (the caller
// waits for the helpers it asked for), so give foreground work a pool of its own.
inline Status ParallelFor(ThreadPool* pool, size_t n, const std::function<Status(size_t)>& work) {
  std::vector<Status> results(n);
  std::atomic<size_t> next{0};
  auto claim = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) results[i] = work(i);
  };
  std::vector<std::future<void>> helpers;
  if (pool && n > 1) {
    size_t extra = std::min(n - 1, static_cast<size_t>(pool->size()));
    helpers.reserve(extra);
    for (size_t i = 0; i < extra; ++i) helpers.push_back(pool->Submit(claim));
  }
  claim();
  for (std::future<void>& h : helpers) h.wait();
  for (Status& s : results) {
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Somewhere to run work off the caller's thread (e.g. Lanes::Spawn); the work's error is the
// executor's to report, and its owner learns of it through a ClaimableTask.
using BackgroundExecutor = std::function<void(std::function<Status()>)>;

// Work handed to a background thread that someone will wait for: it runs exactly once, on the
// first thread to claim it. Run() (the background thread's part) claims it if nobody has; Wait()
// claims it if it has not started and runs it on the waiting thread, so that a waiter on a pool's
// thread never waits for a task still queued behind it. A task never run (its executor dropped
// it) runs in Wait().
class ClaimableTask {
 public:
  explicit ClaimableTask(std::function<Status()> work) : work_(std::move(work)) {}
  ClaimableTask(const ClaimableTask&) = delete;
  ClaimableTask& operator=(const ClaimableTask&) = delete;

  // Runs the work unless another thread claimed it; its status, or OK when not run here.
  Status Run() {
    if (!Claim()) return Status::OK();
    return Complete();
  }

  // The work's status, once it has run (here, if nobody had started it).
  Status Wait() {
    if (Claim()) return Complete();
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return done_; });
    return status_;
  }

 private:
  bool Claim() {
    std::lock_guard<std::mutex> lock(mu_);
    if (claimed_) return false;
    claimed_ = true;
    return true;
  }
  Status Complete() {
    Status st = work_();
    work_ = nullptr;  // what the work holds goes before the waiter wakes
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      status_ = st;
    }
    done_cv_.notify_all();
    return st;
  }

  std::function<Status()> work_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool claimed_ = false;
  bool done_ = false;
  Status status_;
};

// Pieces of work, piece(0) .. piece(n - 1), shared by whichever threads join: each joining thread
// runs pieces nobody has claimed yet, then waits for those still running on others. No thread is
// asked to help, so a joiner (say, a pool's thread) never waits for work queued behind it; with
// a single joiner every piece runs on it, in order.
class SharedWork {
 public:
  SharedWork(size_t n, std::function<Status(size_t)> piece)
      : piece_(std::move(piece)), results_(n) {}
  SharedWork(const SharedWork&) = delete;
  SharedWork& operator=(const SharedWork&) = delete;

  // Once every piece has run: the first error by index, or OK.
  Status Join() {
    const size_t n = results_.size();
    size_t ran = 0;
    for (size_t i = next_.fetch_add(1); i < n; i = next_.fetch_add(1)) {
      results_[i] = piece_(i);
      ++ran;
    }
    std::unique_lock<std::mutex> lock(mu_);
    done_ += ran;
    if (done_ == n) {
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return done_ == n; });
    }
    for (const Status& s : results_) {
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  std::function<Status(size_t)> piece_;
  std::vector<Status> results_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  size_t done_ = 0;  // pieces finished
};

// The threads a writer or reader uses when asked for 0 ("one per core").
inline int DefaultThreads() {
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace fjord
