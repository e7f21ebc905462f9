#include "fjord/table/read/parallel_read.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

namespace fjord {
namespace {

// Part i: i % 4 batches of one row each, the row holding i * 100 + the batch number; part
// `failing` fails after its first batch.
class CountingPart : public RowBatchReader {
 public:
  CountingPart(int part, int failing, std::atomic<int>* open, std::atomic<int>* most)
      : part_(part), failing_(failing), open_(open) {
    int now = ++*open_;
    int seen = most->load();
    while (now > seen && !most->compare_exchange_weak(seen, now)) {
    }
  }
  ~CountingPart() override { --*open_; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    // Parts take different times, so that later ones often finish first.
    std::this_thread::sleep_for(std::chrono::microseconds((part_ * 7919) % 500));
    if (part_ == failing_ && next_ == 1) return Status::IOError("part ", part_, " broke");
    if (next_ >= part_ % 4) return std::shared_ptr<arrow::RecordBatch>();
    arrow::Int64Builder b;
    EXPECT_TRUE(b.Append(part_ * 100 + next_++).ok());
    auto array = b.Finish().ValueOrDie();
    return arrow::RecordBatch::Make(arrow::schema({arrow::field("v", arrow::int64())}), 1, {array});
  }

 private:
  int part_, failing_;
  std::atomic<int>* open_;
  int next_ = 0;
};

std::vector<int64_t> ReadAll(RowBatchReader* reader, Status* status) {
  std::vector<int64_t> out;
  while (true) {
    auto batch = reader->Next();
    if (!batch.ok()) {
      *status = batch.status();
      return out;
    }
    if (!*batch) return out;
    out.push_back(std::static_pointer_cast<arrow::Int64Array>((*batch)->column(0))->Value(0));
  }
}

TEST(ParallelRead, SameBatchesInPartOrderAndAtMostThreadsPartsOpen) {
  for (int threads : {1, 2, 3, 8}) {
    std::atomic<int> open{0}, most{0};
    auto reader = OpenOrderedParallel(
        40,
        [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
          return std::unique_ptr<RowBatchReader>(
              new CountingPart(static_cast<int>(i), -1, &open, &most));
        },
        threads, /*buffered=*/2);
    Status status;
    std::vector<int64_t> got = ReadAll(reader.get(), &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::vector<int64_t> want;
    for (int i = 0; i < 40; ++i) {
      for (int b = 0; b < i % 4; ++b) want.push_back(i * 100 + b);
    }
    EXPECT_EQ(got, want) << threads << " threads";
    EXPECT_LE(most.load(), threads);
    if (threads > 1) {
      EXPECT_GT(most.load(), 1) << "parts were not read at once";
    }
  }
}

TEST(ParallelRead, AnErrorComesAfterTheBatchesOfEarlierParts) {
  std::atomic<int> open{0}, most{0};
  auto reader = OpenOrderedParallel(
      20,
      [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
        if (i == 13) return Status::NotFound("part 13 is missing");
        return std::unique_ptr<RowBatchReader>(
            new CountingPart(static_cast<int>(i), 6, &open, &most));
      },
      3);
  Status status;
  std::vector<int64_t> got = ReadAll(reader.get(), &status);
  // Part 6 (6 % 4 = 2 batches) fails after its first: parts 0-5 and one batch of part 6.
  std::vector<int64_t> want;
  for (int i = 0; i < 6; ++i) {
    for (int b = 0; b < i % 4; ++b) want.push_back(i * 100 + b);
  }
  want.push_back(600);
  EXPECT_EQ(got, want);
  EXPECT_TRUE(status.IsIOError()) << status.ToString();
  EXPECT_NE(status.message().find("part 6 broke"), std::string::npos);
}

TEST(ParallelRead, ClosingEarlyStopsTheWorkers) {
  std::atomic<int> open{0}, most{0};
  {
    auto reader = OpenOrderedParallel(
        1000,
        [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
          return std::unique_ptr<RowBatchReader>(
              new CountingPart(static_cast<int>(i), -1, &open, &most));
        },
        4, 1);
    ASSERT_TRUE(reader->Next().ok());
  }  // destroyed with parts in flight and workers waiting for room
  EXPECT_EQ(open.load(), 0);
}

TEST(ParallelRead, InterleavedHandsOutEveryBatchWithEachPartInOrder) {
  for (int threads : {1, 2, 3, 8}) {
    std::atomic<int> open{0}, most{0};
    auto reader = OpenInterleavedParallel(
        40,
        [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
          return std::unique_ptr<RowBatchReader>(
              new CountingPart(static_cast<int>(i), -1, &open, &most));
        },
        threads, /*buffered=*/2);
    Status status;
    std::vector<int64_t> got = ReadAll(reader.get(), &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::map<int64_t, std::vector<int64_t>> by_part;
    for (int64_t v : got) by_part[v / 100].push_back(v % 100);
    std::map<int64_t, std::vector<int64_t>> want;
    for (int i = 0; i < 40; ++i) {
      for (int b = 0; b < i % 4; ++b) want[i].push_back(b);
    }
    EXPECT_EQ(by_part, want) << threads << " threads";
    EXPECT_LE(most.load(), threads);
    if (threads > 1) {
      EXPECT_GT(most.load(), 1) << "parts were not read at once";
    }
  }
}

// Part 0 returns its one batch only once part 1 has read 20: in part order that cannot happen
// (part 1 may run only `buffered` batches ahead), interleaved it must.
class WaitingPart : public RowBatchReader {
 public:
  WaitingPart(int part, std::atomic<int>* read) : part_(part), read_(read) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (part_ == 0) {
      if (done_) return std::shared_ptr<arrow::RecordBatch>();
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (read_->load() < 20 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (read_->load() < 20) return Status::IOError("part 1 did not get ahead");
      done_ = true;
    } else {
      if (read_->load() >= 20) return std::shared_ptr<arrow::RecordBatch>();
      ++*read_;
    }
    arrow::Int64Builder b;
    EXPECT_TRUE(b.Append(part_).ok());
    return arrow::RecordBatch::Make(arrow::schema({arrow::field("v", arrow::int64())}), 1,
                                    {b.Finish().ValueOrDie()});
  }

 private:
  int part_;
  std::atomic<int>* read_;
  bool done_ = false;
};

TEST(ParallelRead, InterleavedKeepsEveryThreadBusy) {
  std::atomic<int> read{0};
  auto reader = OpenInterleavedParallel(
      2,
      [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
        return std::unique_ptr<RowBatchReader>(new WaitingPart(static_cast<int>(i), &read));
      },
      2, /*buffered=*/2);
  Status status;
  std::vector<int64_t> got = ReadAll(reader.get(), &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(got.size(), 21u);
  EXPECT_EQ(got.back(), 0);  // part 0's batch last, after all of part 1's
  EXPECT_EQ(std::count(got.begin(), got.end(), 1), 20);
}

TEST(ParallelRead, InterleavedReturnsAnErrorAndKeepsReturningIt) {
  std::atomic<int> open{0}, most{0};
  auto reader = OpenInterleavedParallel(
      20,
      [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
        if (i == 13) return Status::NotFound("part 13 is missing");
        return std::unique_ptr<RowBatchReader>(
            new CountingPart(static_cast<int>(i), -1, &open, &most));
      },
      3);
  Status status;
  std::vector<int64_t> got = ReadAll(reader.get(), &status);
  EXPECT_TRUE(status.IsNotFound()) << status.ToString();
  for (int64_t v : got) EXPECT_NE(v / 100, 13);
  auto again = reader->Next();
  EXPECT_TRUE(!again.ok() && again.status().IsNotFound());
}

TEST(ParallelRead, InterleavedClosingEarlyStopsTheWorkers) {
  std::atomic<int> open{0}, most{0};
  {
    auto reader = OpenInterleavedParallel(
        1000,
        [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
          return std::unique_ptr<RowBatchReader>(
              new CountingPart(static_cast<int>(i), -1, &open, &most));
        },
        4, 1);
    ASSERT_TRUE(reader->Next().ok());
  }
  EXPECT_EQ(open.load(), 0);
}

}  // namespace
}  // namespace fjord
