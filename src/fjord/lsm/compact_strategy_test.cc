#include "fjord/lsm/compact_strategy.h"

#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Runs;

std::vector<std::string> Names(const CompactUnit& u) {
  std::vector<std::string> out;
  for (const auto& f : u.files) out.push_back(f.file_name);
  return out;
}

// The options of a table with `values` set (registry defaults for the rest).
CoreOptions TableOptions(std::map<std::string, std::string> values) {
  Result<CoreOptions> options = CoreOptions::FromMap(values);
  EXPECT_TRUE(options.ok()) << options.status().ToString();
  return options.ok() ? std::move(options).value() : CoreOptions::FromMap({}).value();
}

struct FakeClock {
  int64_t now = 1000;
  CompactStrategy::Clock fn() {
    return [this] { return now; };
  }
};

TEST(CompactStrategyTest, OptimizationIntervalFiresFirstThenAfterTheInterval) {
  FakeClock clock;
  ASSERT_OK_AND_ASSIGN(auto o, CompactStrategyOptions::FromOptions(
                                   TableOptions({{"compaction.optimization-interval", "10 s"}})));
  CompactStrategy s(o, clock.fn());
  auto two = Runs({{0, 1}, {5, 100}});
  // The first pick after start always compacts fully (the last full compaction is unknown).
  auto unit = s.Pick(two, 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 5);
  EXPECT_EQ(Names(*unit), (std::vector<std::string>{"f0", "f1"}));
  // Within the interval: the universal picker decides (2 runs < trigger 5: nothing).
  clock.now += 10'000;
  EXPECT_FALSE(s.Pick(two, 5));
  clock.now += 1;
  EXPECT_TRUE(s.Pick(two, 5));
  // A single run is never early-compacted.
  clock.now += 100'000;
  EXPECT_FALSE(s.Pick(Runs({{0, 1}}), 5));
  EXPECT_TRUE(s.Pick(two, 5));
}

TEST(CompactStrategyTest, UniversalFullCompactionRestartsTheInterval) {
  FakeClock clock;
  ASSERT_OK_AND_ASSIGN(auto o, CompactStrategyOptions::FromOptions(
                                   TableOptions({{"compaction.optimization-interval", "10 s"}})));
  CompactStrategy s(o, clock.fn());
  ASSERT_TRUE(s.Pick(Runs({{0, 1}, {5, 100}}), 5));  // first: interval
  clock.now += 9'000;
  // Size amplification takes every run: recorded as a full compaction at t = 10000.
  auto unit = s.Pick(Runs({{0, 100}, {0, 100}, {0, 100}, {0, 100}, {5, 100}}), 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->files.size(), 5u);
  clock.now += 5'000;  // 14 s after the first, 5 s after the size-amplification one
  EXPECT_FALSE(s.Pick(Runs({{0, 1}, {5, 100}}), 5));
  clock.now += 5'001;
  EXPECT_TRUE(s.Pick(Runs({{0, 1}, {5, 100}}), 5));
}

TEST(CompactStrategyTest, SizeThresholds) {
  ASSERT_OK_AND_ASSIGN(auto total, CompactStrategyOptions::FromOptions(TableOptions(
                                       {{"compaction.total-size-threshold", "1 kb"}})));
  CompactStrategy small(total);
  EXPECT_TRUE(small.Pick(Runs({{0, 100}, {5, 900}}), 5));
  EXPECT_FALSE(small.Pick(Runs({{0, 100}, {5, 924}}), 5));  // 1024 is not below 1 kb

  ASSERT_OK_AND_ASSIGN(auto inc, CompactStrategyOptions::FromOptions(TableOptions(
                                     {{"compaction.incremental-size-threshold", "100 b"}})));
  CompactStrategy incremental(inc);
  // Only runs outside the max level count.
  EXPECT_FALSE(incremental.Pick(Runs({{0, 50}, {3, 50}, {5, 10000}}), 5));
  auto unit = incremental.Pick(Runs({{0, 50}, {3, 51}, {5, 10000}}), 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 5);
  EXPECT_EQ(unit->files.size(), 3u);
}

TEST(CompactStrategyTest, FirstRowForcesLevel0UpEveryTime) {
  ASSERT_OK_AND_ASSIGN(
      auto o, CompactStrategyOptions::FromOptions(TableOptions({{"merge-engine", "first-row"}})));
  EXPECT_TRUE(o.force_up_level0);
  EXPECT_FALSE(o.force_interval);
  CompactStrategy s(o);
  // Below the trigger the universal picker finds nothing; level 0 is forced up. The two level-0
  // runs (2 bytes) do not reach the size ratio of the level-3 run: output level 3 - 1 = 2.
  auto unit = s.Pick(Runs({{0, 1}, {0, 1}, {3, 100}, {5, 1000}}), 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 2);
  EXPECT_EQ(Names(*unit), (std::vector<std::string>{"f0", "f1"}));
  // A level-0 run over a smaller level-4 run absorbs it (size ratio) and outputs at level 4.
  unit = s.Pick(Runs({{0, 10}, {4, 5}, {5, 1000}}), 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 4);
  EXPECT_EQ(Names(*unit), (std::vector<std::string>{"f0", "f1"}));
  // Only level 0: everything goes to the max level.
  unit = s.Pick(Runs({{0, 10}}), 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 5);
  // No level 0: nothing.
  EXPECT_FALSE(s.Pick(Runs({{4, 5}, {5, 1000}}), 5));
}

TEST(CompactStrategyTest, GentleLookupCompactionForcesEveryMaxInterval) {
  ASSERT_OK_AND_ASSIGN(auto o, CompactStrategyOptions::FromOptions(
                                   TableOptions({{"merge-engine", "first-row"},
                                                 {"lookup-compact", "gentle"},
                                                 {"num-sorted-run.compaction-trigger", "3"}})));
  ASSERT_TRUE(o.force_interval);
  EXPECT_EQ(*o.force_interval, 6);  // 2 x trigger
  CompactStrategy s(o);
  auto runs = Runs({{0, 1}, {5, 1000}});
  for (int i = 1; i <= 12; ++i) {
    EXPECT_EQ(s.Pick(runs, 5).has_value(), i % 6 == 0) << "pick " << i;
  }
  ASSERT_OK_AND_ASSIGN(auto low, CompactStrategyOptions::FromOptions(
                                     TableOptions({{"force-lookup", "true"},
                                                   {"lookup-compact", "gentle"},
                                                   {"lookup-compact.max-interval", "2"}})));
  EXPECT_EQ(*low.force_interval, 5);  // never below the trigger
}

TEST(CompactStrategyTest, ForceUpLevel0WithoutLookupAndPlainTables) {
  ASSERT_OK_AND_ASSIGN(auto forced, CompactStrategyOptions::FromOptions(
                                        TableOptions({{"compaction.force-up-level-0", "true"}})));
  EXPECT_TRUE(CompactStrategy(forced).Pick(Runs({{0, 1}, {5, 1000}}), 5));
  ASSERT_OK_AND_ASSIGN(auto plain, CompactStrategyOptions::FromOptions(TableOptions({})));
  EXPECT_FALSE(plain.force_up_level0);
  EXPECT_FALSE(CompactStrategy(plain).Pick(Runs({{0, 1}, {5, 1000}}), 5));
  // A mode that is neither radical nor gentle fails when the options are parsed.
  EXPECT_THAT(
      CoreOptions::FromMap({{"merge-engine", "first-row"}, {"lookup-compact", "soft"}}).status(),
      IsError(StatusCode::kInvalid, "lookup-compact"));
}

TEST(CompactStrategyTest, LookupNeeds) {
  LookupNeeds none = LookupNeeds::FromOptions(TableOptions({}));
  EXPECT_FALSE(none.needed());
  LookupNeeds dv = LookupNeeds::FromOptions(TableOptions({{"deletion-vectors.enabled", "true"}}));
  EXPECT_TRUE(dv.needed());
  LookupNeeds cl = LookupNeeds::FromOptions(TableOptions({{"changelog-producer", "lookup"}}));
  EXPECT_TRUE(cl.produce_changelog);
}

}  // namespace
}  // namespace fjord
