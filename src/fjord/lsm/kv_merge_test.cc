#include "fjord/lsm/kv_merge.h"

#include <arrow/api.h>

#include <map>
#include <random>

#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::ReadAll;
using testing_kv::Record;
using testing_kv::ToBatch;

// Random runs, each sorted by (key, seq), keys repeating within and across runs; sequence
// numbers unique overall.
std::vector<std::vector<Record>> RandomRuns(std::mt19937_64& rng, int runs, int per_run,
                                            int key_space) {
  std::vector<std::vector<Record>> out(static_cast<size_t>(runs));
  int64_t seq = 0;
  for (int i = 0; i < runs * per_run; ++i) {
    Record r{static_cast<int32_t>(rng() % static_cast<uint64_t>(key_space)), seq++,
             static_cast<int8_t>(rng() % 5 == 0 ? 3 : 0), static_cast<int64_t>(rng() % 100)};
    out[rng() % static_cast<uint64_t>(runs)].push_back(r);
  }
  for (auto& run : out) {
    std::sort(run.begin(), run.end(), [](const Record& a, const Record& b) {
      return a.key != b.key ? a.key < b.key : a.seq < b.seq;
    });
  }
  return out;
}

std::vector<std::unique_ptr<KvRunReader>> Readers(const KvLayout& layout,
                                                  const std::vector<std::vector<Record>>& runs,
                                                  size_t batch_rows) {
  std::vector<std::unique_ptr<KvRunReader>> readers;
  for (const auto& run : runs) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    for (size_t i = 0; i < run.size(); i += batch_rows) {
      std::vector<Record> part(
          run.begin() + static_cast<std::ptrdiff_t>(i),
          run.begin() + static_cast<std::ptrdiff_t>(std::min(run.size(), i + batch_rows)));
      batches.push_back(ToBatch(layout, part));
    }
    readers.push_back(MakeBatchRunReader(std::move(batches)));
  }
  return readers;
}

TEST(KvMergeTest, LastRecordWinsAcrossRunsLikeAModel) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 40; ++round) {
    ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
    int runs = 1 + static_cast<int>(rng() % 6);
    auto data = RandomRuns(rng, runs, 1 + static_cast<int>(rng() % 300), 50);
    std::map<int32_t, Record> model;
    for (const auto& run : data) {
      for (const Record& r : run) {
        auto it = model.find(r.key);
        if (it == model.end() || it->second.seq < r.seq) model[r.key] = r;
      }
    }
    bool drop = round % 2 == 0;
    KvMergeOptions options;
    options.drop_retracts = drop;
    options.batch_rows = 1 + static_cast<int64_t>(rng() % 64);
    ASSERT_OK_AND_ASSIGN(
        auto reader,
        KvMergeReader::Make(layout, nullptr, Readers(layout, data, 1 + rng() % 40), options));
    ASSERT_OK_AND_ASSIGN(std::vector<Record> out, ReadAll(reader.get()));
    std::vector<Record> expected;
    for (const auto& [k, r] : model) {
      if (!(drop && r.kind == 3)) expected.push_back(r);
    }
    ASSERT_EQ(out, expected) << "round " << round;
  }
}

TEST(KvMergeTest, KeepAllRecordsGivesTheFullMergeOrder) {
  std::mt19937_64 rng(3);
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  auto data = RandomRuns(rng, 4, 200, 30);
  std::vector<Record> expected;
  for (const auto& run : data) expected.insert(expected.end(), run.begin(), run.end());
  std::sort(expected.begin(), expected.end(), [](const Record& a, const Record& b) {
    return a.key != b.key ? a.key < b.key : a.seq < b.seq;
  });
  KvMergeOptions options;
  options.keep_all_records = true;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       KvMergeReader::Make(layout, nullptr, Readers(layout, data, 17), options));
  ASSERT_OK_AND_ASSIGN(std::vector<Record> out, ReadAll(reader.get()));
  EXPECT_EQ(out, expected);
  EXPECT_EQ(reader->records_in(), static_cast<int64_t>(expected.size()));
}

TEST(KvMergeTest, AggregationSumsEveryRecordOfAKeyAndPassesLoneRecordsThrough) {
  std::mt19937_64 rng(11);
  TableSchema schema =
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}});
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  auto data = RandomRuns(rng, 3, 150, 40);
  for (auto& run : data) {
    for (Record& r : run) r.kind = 0;
  }
  std::map<int32_t, std::pair<int64_t, int64_t>> model;  // key -> (sum, max seq)
  for (const auto& run : data) {
    for (const Record& r : run) {
      auto& m = model[r.key];
      m.first += r.value;
      m.second = std::max(m.second, r.seq);
    }
  }
  ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(schema));
  ASSERT_NE(merge, nullptr);
  ASSERT_OK_AND_ASSIGN(auto reader,
                       KvMergeReader::Make(layout, std::move(merge), Readers(layout, data, 33)));
  ASSERT_OK_AND_ASSIGN(std::vector<Record> out, ReadAll(reader.get()));
  ASSERT_EQ(out.size(), model.size());
  for (const Record& r : out) {
    EXPECT_EQ(r.value, model[r.key].first) << "key " << r.key;
    EXPECT_EQ(r.seq, model[r.key].second) << "key " << r.key;
  }
}

TEST(KvMergeTest, ALoneRunOfUniqueKeysPassesThroughWithoutCopying) {
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  std::vector<Record> run = {{1, 5, 0, 10}, {2, 6, 3, 20}, {3, 7, 2, 30}};
  auto batch = ToBatch(layout, run);
  std::vector<std::unique_ptr<KvRunReader>> readers;
  readers.push_back(MakeBatchRunReader({batch}));
  KvMergeOptions options;
  options.runs_have_unique_keys = true;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       KvMergeReader::Make(layout, nullptr, std::move(readers), options));
  ASSERT_OK_AND_ASSIGN(auto out, reader->Next());
  EXPECT_EQ(out.get(), batch.get());
}

}  // namespace
}  // namespace fjord
