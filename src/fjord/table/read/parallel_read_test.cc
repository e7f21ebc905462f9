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

// Opens CountingParts, part `failing` failing after its first batch.
PartOpener Counting(std::atomic<int>* open, std::atomic<int>* most, int failing = -1) {
  return [=](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
    return std::unique_ptr<RowBatchReader>(
        new CountingPart(static_cast<int>(i), failing, open, most));
  };
}

// `open`, but part 13 cannot be opened.
PartOpener WithPart13Missing(PartOpener open) {
  return [open](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
    if (i == 13) return Status::NotFound("part 13 is missing");
    return open(i);
  };
}

using Opener = std::unique_ptr<RowBatchReader> (*)(size_t, PartOpener, int, size_t,
                                                   std::shared_ptr<std::atomic<bool>>);

// OpenInterleavedParallel with parts read at once, as an Opener.
std::unique_ptr<RowBatchReader> Interleaved(size_t parts, PartOpener open, int threads,
                                            size_t buffered,
                                            std::shared_ptr<std::atomic<bool>> out_of_parts) {
  return OpenInterleavedParallel(parts, std::move(open), threads, buffered,
                                 std::move(out_of_parts));
}

// In part order: the same batches in the same order. Interleaved: the same batches, each part's
// in its order.
TEST(ParallelRead, SameBatchesAndAtMostThreadsPartsOpen) {
  for (Opener opener : {&OpenOrderedParallel, &Interleaved}) {
    const bool ordered = opener == &OpenOrderedParallel;
    for (int threads : {1, 2, 3, 8}) {
      std::atomic<int> open{0}, most{0};
      auto reader = opener(40, Counting(&open, &most), threads, /*buffered=*/2, nullptr);
      Status status;
      std::vector<int64_t> got = ReadAll(reader.get(), &status);
      ASSERT_TRUE(status.ok()) << status.ToString();
      std::vector<int64_t> want;
      for (int i = 0; i < 40; ++i) {
        for (int b = 0; b < i % 4; ++b) want.push_back(i * 100 + b);
      }
      if (!ordered) {
        // Stable: within a part, the batches stay in the order they came.
        std::stable_sort(got.begin(), got.end(),
                         [](int64_t a, int64_t b) { return a / 100 < b / 100; });
      }
      EXPECT_EQ(got, want) << threads << " threads, " << (ordered ? "ordered" : "interleaved");
      EXPECT_LE(most.load(), threads);
      if (threads > 1) {
        EXPECT_GT(most.load(), 1) << "parts were not read at once";
      }
    }
  }
}

TEST(ParallelRead, AnErrorComesAfterTheBatchesOfEarlierParts) {
  std::atomic<int> open{0}, most{0};
  PartOpener counting = Counting(&open, &most, 6);
  auto reader = OpenOrderedParallel(20, WithPart13Missing(counting), 3);
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
  PartOpener counting = Counting(&open, &most);
  auto reader = OpenInterleavedParallel(20, WithPart13Missing(counting), 3);
  Status status;
  std::vector<int64_t> got = ReadAll(reader.get(), &status);
  EXPECT_TRUE(status.IsNotFound()) << status.ToString();
  for (int64_t v : got) EXPECT_NE(v / 100, 13);
  auto again = reader->Next();
  EXPECT_TRUE(!again.ok() && again.status().IsNotFound());
}

TEST(ParallelRead, ClosingEarlyStopsTheWorkers) {
  for (Opener opener : {&OpenOrderedParallel, &Interleaved}) {
    std::atomic<int> open{0}, most{0};
    {
      auto reader = opener(1000, Counting(&open, &most), 4, 1, nullptr);
      ASSERT_TRUE(reader->Next().ok());
    }  // destroyed with parts in flight and workers waiting for room
    EXPECT_EQ(open.load(), 0);
  }
}

// A part whose batches each note whether the read had run out of parts when it was read.
class NotingPart : public RowBatchReader {
 public:
  NotingPart(int batches, std::shared_ptr<std::atomic<bool>> out, std::vector<bool>* seen,
             bool wait_for_out)
      : left_(batches), out_(std::move(out)), seen_(seen), wait_(wait_for_out) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (wait_ && left_ == 1) {
      // The last batch waits (at most 10 s) for the other worker to find no part left.
      for (int i = 0; i < 10000 && !out_->load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    if (left_-- == 0) return std::shared_ptr<arrow::RecordBatch>();
    seen_->push_back(out_->load());
    arrow::Int64Builder b;
    EXPECT_TRUE(b.Append(left_).ok());
    return arrow::RecordBatch::Make(arrow::schema({arrow::field("v", arrow::int64())}), 1,
                                    {b.Finish().ValueOrDie()});
  }

 private:
  int left_;
  std::shared_ptr<std::atomic<bool>> out_;
  std::vector<bool>* seen_;
  bool wait_;
};

// Two workers, five parts, the last one long: only once parts 0-3 are read and a worker finds no
// part left does `out_of_parts` turn true, while part 4 is still being read.
TEST(ParallelRead, OutOfPartsOnceAWorkerFindsNoneLeft) {
  for (Opener opener : {&OpenOrderedParallel, &Interleaved}) {
    auto out = std::make_shared<std::atomic<bool>>(false);
    std::vector<std::vector<bool>> seen(5);
    PartOpener open = [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
      return std::unique_ptr<RowBatchReader>(new NotingPart(3, out, &seen[i], i == 4));
    };
    auto reader = opener(5, open, 2, 16, out);
    Status status;
    std::vector<int64_t> got = ReadAll(reader.get(), &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(got.size(), 15u);
    EXPECT_TRUE(out->load());
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(seen[i], std::vector<bool>(3, false)) << i;
    ASSERT_EQ(seen[4].size(), 3u);
    EXPECT_TRUE(seen[4][2]);
  }
}

}  // namespace
}  // namespace fjord
