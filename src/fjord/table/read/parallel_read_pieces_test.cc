// Threads with no part left read pieces split off the parts still being read
// (OpenInterleavedParallel, RowBatchReader::SplitOff).
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "fjord/table/read/parallel_read.h"

namespace fjord {
namespace {

// Values [next, end) in batches of 10 rows, each batch naming its reader; a piece split off
// takes the upper half of what is left when at least 40 values are. The value `failing` fails.
class RangePart : public RowBatchReader {
 public:
  RangePart(int64_t next, int64_t end, int64_t failing, std::atomic<int>* readers)
      : id_(++*readers), next_(next), end_(end), failing_(failing), readers_(readers) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    if (next_ >= end_) return std::shared_ptr<arrow::RecordBatch>();
    arrow::Int64Builder values, ids;
    for (int64_t v = next_; v < std::min(end_, next_ + 10); ++v) {
      if (v == failing_) return Status::IOError("value ", v, " broke");
      EXPECT_TRUE(values.Append(v).ok());
      EXPECT_TRUE(ids.Append(id_).ok());
    }
    int64_t n = std::min(end_, next_ + 10) - next_;
    next_ += n;
    return arrow::RecordBatch::Make(
        arrow::schema({arrow::field("v", arrow::int64()), arrow::field("id", arrow::int64())}), n,
        {values.Finish().ValueOrDie(), ids.Finish().ValueOrDie()});
  }

  Result<std::unique_ptr<RowBatchReader>> SplitOff() override {
    if (end_ - next_ < 40) return std::unique_ptr<RowBatchReader>();
    int64_t mid = next_ + (end_ - next_) / 2;
    auto piece = std::make_unique<RangePart>(mid, end_, failing_, readers_);
    end_ = mid;
    return std::unique_ptr<RowBatchReader>(std::move(piece));
  }

 private:
  int64_t id_, next_, end_, failing_;
  std::atomic<int>* readers_;
};

// Part i holds values [1000 i, 1000 i + sizes[i]).
PartOpener Ranges(std::vector<int64_t> sizes, std::atomic<int>* readers, int64_t failing = -1) {
  return [=](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
    auto first = static_cast<int64_t>(i) * 1000;
    return std::unique_ptr<RowBatchReader>(
        new RangePart(first, first + sizes[i], failing, readers));
  };
}

// Every value once; each reader's values ascending (so each key's rows in their order).
Status ReadChecked(RowBatchReader* reader, std::vector<int64_t>* values) {
  std::map<int64_t, int64_t> last_of_reader;
  while (true) {
    auto batch = reader->Next();
    if (!batch.ok()) return batch.status();
    if (!*batch) return Status::OK();
    auto v = std::static_pointer_cast<arrow::Int64Array>((*batch)->column(0));
    auto id = std::static_pointer_cast<arrow::Int64Array>((*batch)->column(1));
    for (int64_t r = 0; r < v->length(); ++r) {
      auto [it, fresh] = last_of_reader.emplace(id->Value(r), v->Value(r));
      if (!fresh) {
        EXPECT_LT(it->second, v->Value(r)) << "reader " << id->Value(r);
        it->second = v->Value(r);
      }
      values->push_back(v->Value(r));
    }
  }
}

TEST(ParallelReadPieces, IdleThreadsReadPiecesOfTheLastParts) {
  for (int threads : {2, 3}) {
    std::atomic<int> readers{0};
    // Part 1 is short: its thread finds no part left while parts 0 and 2 go on.
    std::vector<int64_t> sizes = {600, 30, 900};
    auto reader = OpenInterleavedParallel(3, Ranges(sizes, &readers), threads, 2);
    std::vector<int64_t> values;
    Status status = ReadChecked(reader.get(), &values);
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::sort(values.begin(), values.end());
    std::vector<int64_t> expected;
    for (size_t i = 0; i < sizes.size(); ++i) {
      for (int64_t v = 0; v < sizes[i]; ++v) expected.push_back(static_cast<int64_t>(i) * 1000 + v);
    }
    EXPECT_EQ(values, expected);
    EXPECT_GT(readers.load(), 3) << "no piece split off with " << threads << " threads";
  }
}

// One part at a time: a part starts once the one before it is read to its end (but for the
// pieces split off it), the other threads reading its pieces meanwhile.
TEST(ParallelReadPieces, OnePartAtATimeWithItsPiecesOnTheOtherThreads) {
  std::atomic<int> readers{0}, open{0}, most{0};
  std::vector<int64_t> sizes = {400, 300, 500};
  PartOpener ranges = Ranges(sizes, &readers);
  // Counts the parts open at once (pieces aside).
  class Counted : public RowBatchReader {
   public:
    Counted(std::unique_ptr<RowBatchReader> inner, std::atomic<int>* open, std::atomic<int>* most)
        : inner_(std::move(inner)), open_(open) {
      int now = ++*open_;
      int seen = most->load();
      while (now > seen && !most->compare_exchange_weak(seen, now)) {
      }
    }
    ~Counted() override {
      if (!ended_) --*open_;
    }
    // A part counts as open until it has returned its end.
    Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
      FJORD_ASSIGN_OR_RAISE(auto batch, inner_->Next());
      if (!batch && !ended_) {
        ended_ = true;
        --*open_;
      }
      return batch;
    }
    Result<std::unique_ptr<RowBatchReader>> SplitOff() override { return inner_->SplitOff(); }

   private:
    std::unique_ptr<RowBatchReader> inner_;
    std::atomic<int>* open_;
    bool ended_ = false;
  };
  PartOpener counted = [&](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
    FJORD_ASSIGN_OR_RAISE(auto inner, ranges(i));
    return std::unique_ptr<RowBatchReader>(new Counted(std::move(inner), &open, &most));
  };
  auto reader = OpenInterleavedParallel(3, counted, 3, 2, nullptr, /*one_at_a_time=*/true);
  std::vector<int64_t> values;
  Status status = ReadChecked(reader.get(), &values);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(values.size(), 1200u);
  EXPECT_EQ(most.load(), 1);
  EXPECT_GT(readers.load(), 3);
}

// In part order no piece is split off, even while a thread waits to start a part (part 2 may
// start only once the caller reads part 1, which waits behind the long part 0).
TEST(ParallelReadPieces, InPartOrderNothingIsSplit) {
  std::atomic<int> readers{0};
  auto reader = OpenOrderedParallel(4, Ranges({600, 30, 900, 30}, &readers), 2, 2);
  std::vector<int64_t> values;
  Status status = ReadChecked(reader.get(), &values);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
  EXPECT_EQ(values.size(), 1560u);
  EXPECT_EQ(readers.load(), 4);
}

TEST(ParallelReadPieces, APiecesErrorIsReturned) {
  std::atomic<int> readers{0};
  // Value 2890 is near the end of part 2: the piece that holds it fails.
  auto reader = OpenInterleavedParallel(3, Ranges({600, 30, 900}, &readers, 2890), 2, 2);
  std::vector<int64_t> values;
  Status status = ReadChecked(reader.get(), &values);
  EXPECT_TRUE(status.IsIOError()) << status.ToString();
  EXPECT_NE(status.ToString().find("2890"), std::string::npos);
  EXPECT_EQ(std::count(values.begin(), values.end(), 2890), 0);
}

}  // namespace
}  // namespace fjord
