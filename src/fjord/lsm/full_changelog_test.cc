#include "fjord/lsm/full_changelog.h"

#include <arrow/api.h>

#include <cmath>
#include <map>
#include <random>

#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::FromBatch;
using testing_kv::Record;
using testing_kv::ToBatch;

constexpr int8_t kI = 0, kUB = 1, kUA = 2, kD = 3;

TEST(FullChangelogTest, DecidesAsJavasWrapper) {
  using E = FullChangelogEmit;
  // A lone record: unchanged when it is the max level's, else +I when it adds.
  EXPECT_EQ(DecideFullChangelog(true, 1, RowKind::kInsert), E::kNothing);
  EXPECT_EQ(DecideFullChangelog(false, 1, RowKind::kUpdateAfter), E::kInsertAfter);
  EXPECT_EQ(DecideFullChangelog(false, 1, RowKind::kDelete), E::kNothing);
  // Several records without a max-level one: +I of an added result.
  EXPECT_EQ(DecideFullChangelog(false, 3, RowKind::kInsert), E::kInsertAfter);
  EXPECT_EQ(DecideFullChangelog(false, 2, RowKind::kDelete), E::kNothing);
  EXPECT_EQ(DecideFullChangelog(false, 2, std::nullopt), E::kNothing);
  // With a max-level one: -D when the result retracts or is missing, else an update.
  EXPECT_EQ(DecideFullChangelog(true, 2, RowKind::kDelete), E::kDeleteBefore);
  EXPECT_EQ(DecideFullChangelog(true, 2, RowKind::kUpdateBefore), E::kDeleteBefore);
  EXPECT_EQ(DecideFullChangelog(true, 2, std::nullopt), E::kDeleteBefore);
  EXPECT_EQ(DecideFullChangelog(true, 4, RowKind::kUpdateAfter), E::kUpdate);
}

TEST(FullChangelogTest, RowsCompareAsJavasEqualiser) {
  std::vector<Value> a = {Value(int32_t{1}), Value(std::string("x")), Value(0.0), Value()};
  std::vector<Value> b = {Value(int32_t{1}), Value(std::string("x")), Value(-0.0), Value()};
  EXPECT_TRUE(RowsEqualOn(a, b, {0, 1, 2, 3}));  // -0.0 == 0.0, NULL == NULL
  b[1] = Value(std::string("y"));
  EXPECT_FALSE(RowsEqualOn(a, b, {0, 1, 2, 3}));
  EXPECT_TRUE(RowsEqualOn(a, b, {0, 2, 3}));  // field 1 ignored
  b[3] = Value(int64_t{5});
  EXPECT_FALSE(RowsEqualOn(a, b, {0, 2, 3}));  // NULL vs a value
  std::vector<Value> nan = {Value(std::nan(""))};
  EXPECT_FALSE(RowsEqualOn(nan, nan, {0}));  // a primitive NaN differs from itself in Java

  TableSchema schema =
      testing_kv::Schema({{"changelog-producer.row-deduplicate", "true"},
                          {"changelog-producer.row-deduplicate-ignore-fields", "v,nope"}});
  ASSERT_OK_AND_ASSIGN(CoreOptions core, CoreOptions::Make(schema));
  FullChangelogOptions options = FullChangelogOptions::FromOptions(schema, core);
  EXPECT_TRUE(options.row_deduplicate);
  EXPECT_EQ(options.compared_fields, std::vector<int>{0});
  // Java splits without trimming: " v" names no column.
  schema = testing_kv::Schema({{"changelog-producer.row-deduplicate-ignore-fields", "k, v"}});
  ASSERT_OK_AND_ASSIGN(core, CoreOptions::Make(schema));
  options = FullChangelogOptions::FromOptions(schema, core);
  EXPECT_FALSE(options.row_deduplicate);
  EXPECT_EQ(options.compared_fields, std::vector<int>{1});
}

// Random runs, the first one holding the "max level" (each key once, adds only), merged under
// "the last record wins": the changelog must be what the decision table gives for each key, and
// applying it to the max level's rows must give the merged result.
TEST(FullChangelogTest, MergeReaderEmitsEachKeysChangesLikeAModel) {
  std::mt19937_64 rng(14);
  for (int round = 0; round < 60; ++round) {
    bool dedupe = round % 2 == 1;
    TableSchema schema = testing_kv::Schema({});
    ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
    int key_space = 5 + static_cast<int>(rng() % 60);
    int extra_runs = 1 + static_cast<int>(rng() % 3);
    std::vector<std::vector<Record>> runs(static_cast<size_t>(extra_runs + 1));
    int64_t seq = 0;
    for (int k = 0; k < key_space; ++k) {
      if (rng() % 2) runs[0].push_back(Record{k, seq++, kI, static_cast<int64_t>(rng() % 4)});
    }
    for (int i = 0; i < key_space * 2; ++i) {
      auto k = static_cast<int32_t>(rng() % static_cast<uint64_t>(key_space));
      int8_t kind = rng() % 4 == 0 ? kD : (rng() % 2 ? kI : kUA);
      runs[1 + rng() % static_cast<uint64_t>(extra_runs)].push_back(
          Record{k, seq++, kind, static_cast<int64_t>(rng() % 4)});
    }
    std::map<int32_t, std::vector<Record>> by_key;
    for (auto& run : runs) {
      std::sort(run.begin(), run.end(), [](const Record& a, const Record& b) {
        return a.key != b.key ? a.key < b.key : a.seq < b.seq;
      });
      for (const Record& r : run) by_key[r.key].push_back(r);
    }
    std::vector<Record> expected;
    std::map<int32_t, Record> before, after;
    for (auto& [k, records] : by_key) {
      std::sort(records.begin(), records.end(),
                [](const Record& a, const Record& b) { return a.seq < b.seq; });
      std::optional<Record> top;
      for (const Record& r : runs[0]) {
        if (r.key == k) top = r;
      }
      if (top) before[k] = *top;
      const Record& last = records.back();
      if (last.kind == kI || last.kind == kUA) after[k] = last;
      switch (
          DecideFullChangelog(top.has_value(), records.size(), static_cast<RowKind>(last.kind))) {
        case FullChangelogEmit::kNothing:
          break;
        case FullChangelogEmit::kInsertAfter:
          expected.push_back(Record{k, last.seq, kI, last.value});
          break;
        case FullChangelogEmit::kDeleteBefore:
          expected.push_back(Record{k, top->seq, kD, top->value});
          break;
        case FullChangelogEmit::kUpdate:
          if (dedupe && top->value == last.value) break;
          expected.push_back(Record{k, top->seq, kUB, top->value});
          expected.push_back(Record{k, last.seq, kUA, last.value});
          break;
      }
    }
    std::vector<std::unique_ptr<KvRunReader>> readers;
    for (const auto& run : runs) {
      std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
      for (size_t i = 0; i < run.size(); i += 7) {
        batches.push_back(ToBatch(
            layout,
            std::vector<Record>(run.begin() + i, run.begin() + std::min(run.size(), i + 7))));
      }
      readers.push_back(MakeBatchRunReader(std::move(batches)));
    }
    KvMergeOptions options;
    options.drop_retracts = true;
    options.runs_have_unique_keys = true;
    options.batch_rows = 1 + static_cast<int64_t>(rng() % 9);
    FullChangelogOptions changelog;
    changelog.max_level_runs.assign(runs.size(), false);
    changelog.max_level_runs[0] = true;
    changelog.row_deduplicate = dedupe;
    changelog.compared_fields = {0, 1};
    options.full_changelog = changelog;
    ASSERT_OK_AND_ASSIGN(auto reader,
                         KvMergeReader::Make(layout, nullptr, std::move(readers), options));
    std::vector<Record> got, merged;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
      if (!batch) break;
      auto part = FromBatch(*batch);
      merged.insert(merged.end(), part.begin(), part.end());
      if (auto changes = reader->TakeChangelog()) {
        auto c = FromBatch(*changes);
        got.insert(got.end(), c.begin(), c.end());
      }
    }
    ASSERT_EQ(got, expected) << "round " << round;
    // The changelog turns the max level's rows into the merged ones.
    std::map<int32_t, int64_t> state, want;
    for (const auto& [k, r] : before) state[k] = r.value;
    for (const Record& c : got) {
      if (c.kind == kUB || c.kind == kD) {
        ASSERT_EQ(state.count(c.key), 1u);
        ASSERT_EQ(state[c.key], c.value);
        state.erase(c.key);
      } else {
        state[c.key] = c.value;
      }
    }
    for (const Record& r : merged) want[r.key] = r.value;
    EXPECT_EQ(state, want) << "round " << round;
  }
}

// With a merge function (aggregation: sum), the after of an update is the merged record.
TEST(FullChangelogTest, MergedResultIsTheAfter) {
  TableSchema schema =
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}});
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  std::vector<std::unique_ptr<KvRunReader>> readers;
  readers.push_back(MakeBatchRunReader({ToBatch(layout, {{1, 0, kI, 10}, {2, 1, kI, 20}})}));
  readers.push_back(MakeBatchRunReader(
      {ToBatch(layout, {{1, 5, kI, 5}, {2, 6, kI, 0}, {3, 7, kI, 7}, {3, 8, kI, 1}})}));
  KvMergeOptions options;
  options.drop_retracts = true;
  FullChangelogOptions changelog;
  changelog.max_level_runs = {true, false};
  changelog.row_deduplicate = true;
  changelog.compared_fields = {0, 1};
  options.full_changelog = changelog;
  ASSERT_OK_AND_ASSIGN(auto merge, CreateKvMergeFunction(schema));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       KvMergeReader::Make(layout, std::move(merge), std::move(readers), options));
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
  ASSERT_TRUE(batch);
  EXPECT_EQ(FromBatch(*batch),
            (std::vector<Record>{{1, 5, kI, 15}, {2, 6, kI, 20}, {3, 8, kI, 8}}));
  auto changes = reader->TakeChangelog();
  ASSERT_TRUE(changes);
  // Key 2 summed to its old value: deduplicated. Key 3 is new.
  EXPECT_EQ(FromBatch(*changes),
            (std::vector<Record>{{1, 0, kUB, 10}, {1, 5, kUA, 15}, {3, 8, kI, 8}}));
}

}  // namespace
}  // namespace fjord
