// KvMergeReader::SplitOff: the reader and the pieces split off it give, in key order, the merge
// of the whole.
#include <arrow/api.h>

#include <map>
#include <random>

#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using namespace testing_kv;  // NOLINT: the records, batches and schema of kv_test_util.h

// `runs` runs of `per_run` records each, keys unique within a run (data files), ascending.
std::vector<std::vector<Record>> UniqueKeyRuns(std::mt19937_64& rng, int runs, int per_run,
                                               int key_space) {
  std::vector<std::vector<Record>> out(static_cast<size_t>(runs));
  int64_t seq = 0;
  for (auto& run : out) {
    std::map<int32_t, Record> keys;
    while (static_cast<int>(keys.size()) < per_run) {
      auto k = static_cast<int32_t>(rng() % static_cast<uint64_t>(key_space));
      keys[k] = Record{k, 0, static_cast<int8_t>(rng() % 5 == 0 ? 3 : 0),
                       static_cast<int64_t>(rng() % 100)};
    }
    for (auto& [k, r] : keys) {
      r.seq = seq++;
      run.push_back(r);
    }
  }
  return out;
}

// A run in batches of `batch_rows`; with `in_memory` false it says its rest is not in memory.
class Run : public KvRunReader {
 public:
  Run(const KvLayout& layout, const std::vector<Record>& run, size_t batch_rows, bool in_memory)
      : in_memory_(in_memory) {
    for (size_t i = 0; i < run.size(); i += batch_rows) {
      std::vector<Record> part(
          run.begin() + static_cast<std::ptrdiff_t>(i),
          run.begin() + static_cast<std::ptrdiff_t>(std::min(run.size(), i + batch_rows)));
      batches_.push_back(ToBatch(layout, part));
    }
  }
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= batches_.size()) return std::shared_ptr<arrow::RecordBatch>();
    return batches_[next_++];
  }
  bool RestInMemory() const override { return in_memory_; }

 private:
  bool in_memory_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  size_t next_ = 0;
};

std::vector<std::unique_ptr<KvRunReader>> Runs(const KvLayout& layout,
                                               const std::vector<std::vector<Record>>& runs,
                                               size_t batch_rows, bool in_memory = true) {
  std::vector<std::unique_ptr<KvRunReader>> out;
  for (const auto& run : runs)
    out.push_back(std::make_unique<Run>(layout, run, batch_rows, in_memory));
  return out;
}

struct Case {
  TableSchema schema;
  KvMergeOptions options;
};

Result<std::unique_ptr<KvMergeReader>> Open(const Case& c, const KvLayout& layout,
                                            std::vector<std::unique_ptr<KvRunReader>> runs) {
  FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(c.schema));
  return KvMergeReader::Make(layout, std::move(merge), std::move(runs), c.options);
}

// Reads `reader` to its end, splitting a piece off it (and off its pieces, recursively) at
// random batches; returns every reader's records, each reader's in its order, the readers in key
// order (a piece's keys are above those its reader keeps). Counts the pieces in `pieces`.
Result<std::vector<Record>> ReadSplitting(const Case& c, std::unique_ptr<KvMergeReader> reader,
                                          std::mt19937_64& rng, int depth, int* pieces) {
  std::vector<Record> out;
  std::vector<std::unique_ptr<KvMergeReader>> split;  // the pieces, last split first in key order
  while (true) {
    if (depth < 3 && rng() % 3 == 0) {
      FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(c.schema));
      FJORD_ASSIGN_OR_RAISE(auto piece, reader->SplitOff(std::move(merge), 8));
      if (piece) {
        ++*pieces;
        split.push_back(std::move(piece));
      }
    }
    FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) break;
    auto part = FromBatch(*batch);
    out.insert(out.end(), part.begin(), part.end());
  }
  for (auto it = split.rbegin(); it != split.rend(); ++it) {
    FJORD_ASSIGN_OR_RAISE(auto part, ReadSplitting(c, std::move(*it), rng, depth + 1, pieces));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

TEST(KvMergeSplitTest, PiecesGiveTheMergeOfTheWhole) {
  std::mt19937_64 rng(7);
  std::vector<Case> cases;
  for (bool drop : {false, true}) {
    Case dedupe{testing_kv::Schema({}), {}};
    dedupe.options.drop_retracts = drop;
    cases.push_back(dedupe);
  }
  Case sum{
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}}),
      {}};
  cases.push_back(sum);
  Case levels = cases[0];
  levels.options.runs_have_unique_keys = true;
  cases.push_back(levels);
  int pieces = 0;
  for (int round = 0; round < 60; ++round) {
    Case c = cases[static_cast<size_t>(round) % cases.size()];
    bool sums = round % cases.size() == 2;
    ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(c.schema));
    int runs = 2 + static_cast<int>(rng() % 5);
    auto data = UniqueKeyRuns(rng, runs, 1 + static_cast<int>(rng() % 200), 400);
    if (sums) {
      for (auto& run : data) {
        for (Record& r : run) r.kind = 0;
      }
    }
    if (round % cases.size() == 3) {
      for (int32_t level = 0; level < runs; ++level) c.options.run_levels.push_back(level);
    }
    c.options.batch_rows = 1 + static_cast<int64_t>(rng() % 50);
    size_t batch_rows = 1 + rng() % 40;
    ASSERT_OK_AND_ASSIGN(auto whole, Open(c, layout, Runs(layout, data, batch_rows)));
    ASSERT_OK_AND_ASSIGN(std::vector<Record> expected, ReadAll(whole.get()));
    ASSERT_OK_AND_ASSIGN(auto reader, Open(c, layout, Runs(layout, data, batch_rows)));
    ASSERT_OK_AND_ASSIGN(std::vector<Record> out,
                         ReadSplitting(c, std::move(reader), rng, 0, &pieces));
    ASSERT_EQ(out, expected) << "round " << round;
  }
  EXPECT_GT(pieces, 30);
}

TEST(KvMergeSplitTest, APieceTakesTheUpperHalfOfTheWidestRun) {
  std::mt19937_64 rng(1);
  Case c{testing_kv::Schema({}), {}};
  c.options.batch_rows = 10;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(c.schema));
  // Run 0 holds keys 0..99, run 1 keys 0, 10, ..., 90.
  std::vector<std::vector<Record>> data(2);
  for (int32_t k = 0; k < 100; ++k) data[0].push_back(Record{k, k, 0, 1});
  for (int32_t k = 0; k < 100; k += 10) data[1].push_back(Record{k, 100 + k, 0, 2});
  ASSERT_OK_AND_ASSIGN(auto reader, Open(c, layout, Runs(layout, data, 7)));
  ASSERT_OK_AND_ASSIGN(auto first, reader->Next());  // keys 0..9
  ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(c.schema));
  ASSERT_OK_AND_ASSIGN(auto piece, reader->SplitOff(std::move(merge), 10));
  ASSERT_NE(piece, nullptr);
  // 90 records left in run 0 (keys 10..99): the first 45 stay, up to key 54.
  ASSERT_OK_AND_ASSIGN(std::vector<Record> low, ReadAll(reader.get()));
  ASSERT_OK_AND_ASSIGN(std::vector<Record> high, ReadAll(piece.get()));
  ASSERT_EQ(low.size(), 45u);
  EXPECT_EQ(low.front().key, 10);
  EXPECT_EQ(low.back().key, 54);
  ASSERT_EQ(high.size(), 45u);
  EXPECT_EQ(high.front().key, 55);
  EXPECT_EQ(high.back().key, 99);
  // Key 60 has a record in each run: the later one wins, in the piece.
  EXPECT_EQ(high[5].key, 60);
  EXPECT_EQ(high[5].value, 2);
}

TEST(KvMergeSplitTest, DeclinesWhatItCannotSplitAndChangesNothing) {
  std::mt19937_64 rng(5);
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  auto data = UniqueKeyRuns(rng, 3, 100, 300);
  Case plain{testing_kv::Schema({}), {}};
  Case unmerged = plain;
  unmerged.options.keep_all_records = true;
  struct Decline {
    Case c;
    bool in_memory;
    int64_t min_rows;
  };
  for (const Decline& d :
       {Decline{plain, false, 1}, Decline{plain, true, 1000}, Decline{unmerged, true, 1}}) {
    ASSERT_OK_AND_ASSIGN(auto whole, Open(d.c, layout, Runs(layout, data, 9)));
    ASSERT_OK_AND_ASSIGN(std::vector<Record> expected, ReadAll(whole.get()));
    ASSERT_OK_AND_ASSIGN(auto reader, Open(d.c, layout, Runs(layout, data, 9, d.in_memory)));
    ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
    ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(d.c.schema));
    ASSERT_OK_AND_ASSIGN(auto piece, reader->SplitOff(std::move(merge), d.min_rows));
    EXPECT_EQ(piece, nullptr);
    std::vector<Record> out = FromBatch(*first);
    ASSERT_OK_AND_ASSIGN(std::vector<Record> rest, ReadAll(reader.get()));
    out.insert(out.end(), rest.begin(), rest.end());
    EXPECT_EQ(out, expected);
  }
}

}  // namespace
}  // namespace fjord
