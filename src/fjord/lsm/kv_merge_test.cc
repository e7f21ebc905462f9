#include "fjord/lsm/kv_merge.h"

#include <arrow/api.h>

#include <map>
#include <optional>
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

// Levels as a lookup table holds them (kv_merge.h run_levels): level 3 the oldest values, level 1
// a lookup compaction's output that already folded level 3 in, two level-0 files on top.
// Key 1: level 3 has 10, level 1 the folded 13 (10 + 3), level 0 adds 4 and 6.
// Key 2: level 3 only. Key 3: level 0 only.
// Key 4: level 3 has 100, level 1 a -U of 7 and nothing at level 0: Java's wrapper saw two
// records, so the -U goes through the merge function alone (sum retracts it from nothing: -7, +I).
std::vector<std::vector<Record>> LookupLevelRuns() {
  return {
      {{1, 1, 0, 10}, {2, 2, 0, 5}, {4, 3, 0, 100}},  // level 3
      {{1, 5, 0, 13}, {4, 6, 1, 7}},                  // level 1
      {{1, 7, 0, 4}, {3, 8, 0, 1}},                   // level 0
      {{1, 9, 0, 6}},                                 // level 0
  };
}

TEST(KvMergeTest, LookupRuleSumsLevelZeroOntoTheLowestUpperLevelOnly) {
  TableSchema schema =
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}});
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(schema));
  KvMergeOptions options;
  options.drop_retracts = true;
  options.runs_have_unique_keys = true;
  options.run_levels = {3, 1, 0, 0};
  ASSERT_OK_AND_ASSIGN(auto reader,
                       KvMergeReader::Make(layout, std::move(merge),
                                           Readers(layout, LookupLevelRuns(), 2), options));
  ASSERT_OK_AND_ASSIGN(std::vector<Record> out, ReadAll(reader.get()));
  std::vector<Record> expected = {{1, 9, 0, 13 + 4 + 6}, {2, 2, 0, 5}, {3, 8, 0, 1}, {4, 6, 0, -7}};
  EXPECT_EQ(out, expected);
}

TEST(KvMergeTest, WithoutTheLookupRuleEveryLevelIsSummed) {
  TableSchema schema =
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}});
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(schema));
  KvMergeOptions options;
  options.drop_retracts = true;
  options.runs_have_unique_keys = true;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       KvMergeReader::Make(layout, std::move(merge),
                                           Readers(layout, LookupLevelRuns(), 2), options));
  ASSERT_OK_AND_ASSIGN(std::vector<Record> out, ReadAll(reader.get()));
  std::vector<Record> expected = {
      {1, 9, 0, 10 + 13 + 4 + 6}, {2, 2, 0, 5}, {3, 8, 0, 1}, {4, 6, 0, 100 - 7}};
  EXPECT_EQ(out, expected);
}

// A run of (key, seq, v or NULL) +I records.
std::unique_ptr<KvRunReader> NullableRun(
    const KvLayout& layout,
    const std::vector<std::tuple<int32_t, int64_t, std::optional<int64_t>>>& rows) {
  arrow::Int32Builder k;
  arrow::Int64Builder v, seq;
  arrow::Int8Builder kind;
  for (const auto& [key, s, value] : rows) {
    (void)k.Append(key);
    (void)(value ? v.Append(*value) : v.AppendNull());
    (void)seq.Append(s);
    (void)kind.Append(0);
  }
  auto batch = arrow::RecordBatch::Make(layout.schema, static_cast<int64_t>(rows.size()),
                                        {k.Finish().ValueOrDie(), v.Finish().ValueOrDie(),
                                         seq.Finish().ValueOrDie(), kind.Finish().ValueOrDie()});
  return MakeBatchRunReader({batch});
}

// Partial update: key 1's level-1 record (the folded value) has v NULL, the older level 2 has 5,
// level 0 leaves v NULL. Java merges level 0 with level 1 only: v stays NULL; merging every level
// would bring the 5 of level 2 back. Key 2: level 2 has 8, level 1 9, level 0 NULL: 9 either way.
TEST(KvMergeTest, LookupRulePartialUpdateIgnoresLevelsBelowTheLowestUpperOne) {
  TableSchema schema = testing_kv::Schema({{"merge-engine", "partial-update"}});
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  for (bool lookup : {true, false}) {
    std::vector<std::unique_ptr<KvRunReader>> runs;
    runs.push_back(NullableRun(layout, {{1, 1, 5}, {2, 2, 8}}));                        // level 2
    runs.push_back(NullableRun(layout, {{1, 3, std::nullopt}, {2, 4, 9}}));             // level 1
    runs.push_back(NullableRun(layout, {{1, 5, std::nullopt}, {2, 6, std::nullopt}}));  // level 0
    KvMergeOptions options;
    options.drop_retracts = true;
    options.runs_have_unique_keys = true;
    if (lookup) options.run_levels = {2, 1, 0};
    ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(schema));
    ASSERT_OK_AND_ASSIGN(auto reader,
                         KvMergeReader::Make(layout, std::move(merge), std::move(runs), options));
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    ASSERT_NE(batch, nullptr);
    ASSERT_EQ(batch->num_rows(), 2);
    auto v = std::static_pointer_cast<arrow::Int64Array>(batch->column(1));
    auto seq = std::static_pointer_cast<arrow::Int64Array>(batch->column(2));
    if (lookup) {
      EXPECT_TRUE(v->IsNull(0));
    } else {
      ASSERT_FALSE(v->IsNull(0));
      EXPECT_EQ(v->Value(0), 5);
    }
    EXPECT_EQ(seq->Value(0), 5);
    ASSERT_FALSE(v->IsNull(1));
    EXPECT_EQ(v->Value(1), 9);
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
