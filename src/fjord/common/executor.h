// A single background thread running submitted tasks in order (Java Paimon gives each write task
// one compaction thread shared by all its buckets). Tasks must not throw. The destructor lets
// queued and running tasks finish, then joins the thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

namespace fjord {

class SingleThreadExecutor {
 public:
  SingleThreadExecutor() : thread_([this] { Loop(); }) {}
  ~SingleThreadExecutor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  SingleThreadExecutor(const SingleThreadExecutor&) = delete;
  SingleThreadExecutor& operator=(const SingleThreadExecutor&) = delete;

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
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
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
  std::thread thread_;  // last: started after the other members exist
};

}  // namespace fjord
