#include "fjord/table/read/parallel_read.h"

#include <arrow/record_batch.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace fjord {

namespace {

class OrderedParallelReader : public RowBatchReader {
 public:
  OrderedParallelReader(size_t parts,
                        std::function<Result<std::unique_ptr<RowBatchReader>>(size_t)> open,
                        int threads, size_t buffered)
      : open_(std::move(open)),
        parts_(parts),
        window_(static_cast<size_t>(threads)),
        buffered_(buffered == 0 ? 1 : buffered) {
    const size_t workers = std::min(parts, window_);
    for (size_t w = 0; w < workers; ++w) workers_.emplace_back([this] { Work(); });
  }

  ~OrderedParallelReader() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (current_ >= parts_.size()) return std::shared_ptr<arrow::RecordBatch>();
      Part& part = parts_[current_];
      if (!part.batches.empty()) {
        std::shared_ptr<arrow::RecordBatch> batch = std::move(part.batches.front());
        part.batches.pop_front();
        cv_.notify_all();
        return batch;
      }
      if (part.done) {
        if (!part.status.ok()) return part.status;
        ++current_;
        cv_.notify_all();
        continue;
      }
      cv_.wait(lock);
    }
  }

 private:
  struct Part {
    std::deque<std::shared_ptr<arrow::RecordBatch>> batches;
    bool done = false;
    Status status;
  };

  void Work() {
    while (true) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock,
                 [&] { return stop_ || next_ >= parts_.size() || next_ < current_ + window_; });
        if (stop_ || next_ >= parts_.size()) return;
        i = next_++;
      }
      Read(i);
    }
  }

  void Read(size_t i) {
    auto finish = [&](Status status) {
      std::lock_guard<std::mutex> lock(mu_);
      parts_[i].status = std::move(status);
      parts_[i].done = true;
      cv_.notify_all();
    };
    Result<std::unique_ptr<RowBatchReader>> reader = open_(i);
    if (!reader.ok()) return finish(reader.status());
    while (true) {
      Result<std::shared_ptr<arrow::RecordBatch>> batch = (*reader)->Next();
      if (!batch.ok()) return finish(batch.status());
      if (!*batch) return finish(Status::OK());
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || parts_[i].batches.size() < buffered_; });
      if (stop_) return;
      parts_[i].batches.push_back(std::move(*batch));
      cv_.notify_all();
    }
  }

  std::function<Result<std::unique_ptr<RowBatchReader>>(size_t)> open_;
  std::vector<Part> parts_;
  const size_t window_;
  const size_t buffered_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;     // the next part a worker starts
  size_t current_ = 0;  // the part the caller reads
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

std::unique_ptr<RowBatchReader> OpenOrderedParallel(
    size_t parts, std::function<Result<std::unique_ptr<RowBatchReader>>(size_t)> open, int threads,
    size_t buffered) {
  return std::make_unique<OrderedParallelReader>(parts, std::move(open), threads < 1 ? 1 : threads,
                                                 buffered);
}

}  // namespace fjord
