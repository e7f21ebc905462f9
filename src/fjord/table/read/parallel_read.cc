#include "fjord/table/read/parallel_read.h"

#include <arrow/record_batch.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace fjord {

namespace {

// Worker threads that open parts in order and read them; subclasses say when a part may start,
// where its batches go and how the caller takes them. Everything below runs under mu_ unless
// said otherwise.
class ParallelReader : public RowBatchReader {
 public:
  ParallelReader(size_t parts, PartOpener open, int threads,
                 std::shared_ptr<std::atomic<bool>> out_of_parts)
      : parts_(parts),
        threads_(static_cast<size_t>(threads)),
        open_(std::move(open)),
        out_of_parts_(std::move(out_of_parts)) {}

  ~ParallelReader() override { Stop(); }

 protected:
  // Subclasses stop the workers in their destructor: the workers call their methods.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }
  // Called by the subclass's constructor, once its own members are set.
  void Start() {
    const size_t workers = std::min(parts_, threads_);
    for (size_t w = 0; w < workers; ++w) workers_.emplace_back([this] { Work(); });
  }
  virtual bool MayStart(size_t part) const = 0;
  virtual bool HasRoom(size_t part) const = 0;
  virtual void Add(size_t part, std::shared_ptr<arrow::RecordBatch> batch) = 0;
  virtual void Finish(size_t part, Status status) = 0;
  // Whether threads with no part left read pieces split off the parts still being read
  // (RowBatchReader::SplitOff); their batches go through Add, and FinishPiece ends each.
  virtual bool TakesPieces() const { return false; }
  virtual void FinishPiece(Status) {}

  const size_t parts_;
  const size_t threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t pieces_open_ = 0;  // pieces split off and not read to their end
  size_t parts_open_ = 0;   // parts started and not read to their end

 private:
  // After a part declined to split, batches it reads before it is asked again.
  static constexpr int kDeclinedBatches = 8;

  struct Piece {
    size_t part;
    std::unique_ptr<RowBatchReader> reader;
  };

  // Reads the next part it may start, or else (TakesPieces) a piece split off a part being read,
  // until no part is left and, with pieces, nothing is being read.
  void Work() {
    while (true) {
      size_t i = 0;
      Piece piece;
      {
        std::unique_lock<std::mutex> lock(mu_);
        bool wanting = false;
        while (true) {
          if (stop_) break;
          if (next_ < parts_ && MayStart(next_)) break;
          if (next_ >= parts_ && out_of_parts_) {
            out_of_parts_->store(true, std::memory_order_relaxed);
          }
          const bool done = next_ >= parts_ && (!TakesPieces() || reading_ == 0);
          if (done || (TakesPieces() && !pieces_.empty())) break;
          if (TakesPieces() && !wanting) {  // a thread waiting with pieces to take asks for one
            ++wanting_;
            wanting = true;
          }
          cv_.wait(lock);
        }
        if (wanting) --wanting_;
        if (stop_) return;
        if (next_ < parts_ && MayStart(next_)) {
          i = next_++;
          ++reading_;
          ++parts_open_;
        } else if (!pieces_.empty()) {
          piece = std::move(pieces_.front());
          pieces_.pop_front();
        } else {
          return;
        }
      }
      if (piece.reader) {
        Drain(piece.part, true, piece.reader.get());
        continue;
      }
      Result<std::unique_ptr<RowBatchReader>> reader = open_(i);
      if (!reader.ok()) {
        Done(i, false, reader.status());
      } else {
        Drain(i, false, reader->get());
      }
    }
  }

  // Reads `reader` (part i, or a piece of it) to its end, handing its batches over; while
  // threads wait for a piece, splits one off after each batch it hands over.
  void Drain(size_t i, bool piece, RowBatchReader* reader) {
    int declined = 0;
    while (true) {
      Result<std::shared_ptr<arrow::RecordBatch>> batch = reader->Next();
      if (!batch.ok()) return Done(i, piece, batch.status());
      if (!*batch) return Done(i, piece, Status::OK());
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || HasRoom(i); });
      if (stop_) return;
      Add(i, std::move(*batch));
      cv_.notify_all();
      if (declined > 0) {
        --declined;
        continue;
      }
      if (wanting_ <= pieces_.size() + splitting_) continue;
      ++splitting_;
      lock.unlock();
      Result<std::unique_ptr<RowBatchReader>> split = reader->SplitOff();
      lock.lock();
      --splitting_;
      if (!split.ok()) {
        lock.unlock();
        return Done(i, piece, split.status());
      }
      if (!*split) {
        declined = kDeclinedBatches;
        continue;
      }
      pieces_.push_back(Piece{i, std::move(*split)});
      ++reading_;
      ++pieces_open_;
      cv_.notify_all();
    }
  }

  void Done(size_t i, bool piece, Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    --reading_;
    if (piece) {
      --pieces_open_;
      FinishPiece(std::move(status));
    } else {
      --parts_open_;
      Finish(i, std::move(status));
    }
    cv_.notify_all();
  }

  PartOpener open_;
  const std::shared_ptr<std::atomic<bool>> out_of_parts_;
  size_t next_ = 0;  // the next part a worker starts
  bool stop_ = false;
  size_t reading_ = 0;    // parts and pieces being read (or waiting for a thread)
  size_t wanting_ = 0;    // threads waiting for a piece
  size_t splitting_ = 0;  // readers splitting a piece off for them
  std::deque<Piece> pieces_;
  std::vector<std::thread> workers_;
};

class OrderedParallelReader : public ParallelReader {
 public:
  OrderedParallelReader(size_t parts, PartOpener open, int threads, size_t buffered,
                        std::shared_ptr<std::atomic<bool>> out_of_parts)
      : ParallelReader(parts, std::move(open), threads, std::move(out_of_parts)),
        buffered_(buffered),
        state_(parts) {
    Start();
  }
  ~OrderedParallelReader() override { Stop(); }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (current_ >= parts_) return std::shared_ptr<arrow::RecordBatch>();
      Part& part = state_[current_];
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

  bool MayStart(size_t part) const override { return part < current_ + threads_; }
  bool HasRoom(size_t part) const override { return state_[part].batches.size() < buffered_; }
  void Add(size_t part, std::shared_ptr<arrow::RecordBatch> batch) override {
    state_[part].batches.push_back(std::move(batch));
  }
  void Finish(size_t part, Status status) override {
    state_[part].status = std::move(status);
    state_[part].done = true;
  }

  const size_t buffered_;
  std::vector<Part> state_;
  size_t current_ = 0;  // the part the caller reads
};

class InterleavedParallelReader : public ParallelReader {
 public:
  InterleavedParallelReader(size_t parts, PartOpener open, int threads, size_t buffered,
                            std::shared_ptr<std::atomic<bool>> out_of_parts, bool one_at_a_time)
      : ParallelReader(parts, std::move(open), threads, std::move(out_of_parts)),
        room_(threads_ * buffered),
        one_at_a_time_(one_at_a_time) {
    Start();
  }
  ~InterleavedParallelReader() override { Stop(); }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (!failed_.ok()) return failed_;
      if (!ready_.empty()) {
        Item item = std::move(ready_.front());
        ready_.pop_front();
        cv_.notify_all();
        if (!item.status.ok()) {
          failed_ = std::move(item.status);
          return failed_;
        }
        return std::move(item.batch);
      }
      if (finished_ == parts_ && pieces_open_ == 0) return std::shared_ptr<arrow::RecordBatch>();
      cv_.wait(lock);
    }
  }

 private:
  struct Item {
    std::shared_ptr<arrow::RecordBatch> batch;
    Status status;
  };

  // A worker starts the next part once it is done with its own: at most `threads` at once.
  bool MayStart(size_t) const override { return !one_at_a_time_ || parts_open_ == 0; }
  bool HasRoom(size_t) const override { return ready_.size() < room_; }
  void Add(size_t, std::shared_ptr<arrow::RecordBatch> batch) override {
    ready_.push_back(Item{std::move(batch), Status::OK()});
  }
  void Finish(size_t, Status status) override {
    ++finished_;
    if (!status.ok()) ready_.push_back(Item{nullptr, std::move(status)});
  }
  // Pieces of parts: their keys are disjoint from the rest of their part's.
  bool TakesPieces() const override { return true; }
  void FinishPiece(Status status) override {
    if (!status.ok()) ready_.push_back(Item{nullptr, std::move(status)});
  }

  const size_t room_;
  const bool one_at_a_time_;
  std::deque<Item> ready_;
  size_t finished_ = 0;
  Status failed_;
};

}  // namespace

std::unique_ptr<RowBatchReader> OpenOrderedParallel(
    size_t parts, PartOpener open, int threads, size_t buffered,
    std::shared_ptr<std::atomic<bool>> out_of_parts) {
  return std::make_unique<OrderedParallelReader>(parts, std::move(open), threads < 1 ? 1 : threads,
                                                 buffered == 0 ? 1 : buffered,
                                                 std::move(out_of_parts));
}

std::unique_ptr<RowBatchReader> OpenInterleavedParallel(
    size_t parts, PartOpener open, int threads, size_t buffered,
    std::shared_ptr<std::atomic<bool>> out_of_parts, bool one_at_a_time) {
  return std::make_unique<InterleavedParallelReader>(
      parts, std::move(open), threads < 1 ? 1 : threads, buffered == 0 ? 1 : buffered,
      std::move(out_of_parts), one_at_a_time);
}

}  // namespace fjord
