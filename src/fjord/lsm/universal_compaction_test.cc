#include "fjord/lsm/universal_compaction.h"

#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Runs;

UniversalCompactionOptions Opts(int trigger = 5) {
  UniversalCompactionOptions o;
  o.compaction_trigger = trigger;
  return o;
}

std::vector<std::string> Names(const CompactUnit& u) {
  std::vector<std::string> out;
  for (const auto& f : u.files) out.push_back(f.file_name);
  return out;
}

TEST(UniversalCompactionTest, NothingBelowTheTrigger) {
  EXPECT_FALSE(PickUniversal(Runs({{0, 1}, {0, 1}, {0, 1}, {0, 1}}), 5, Opts()));
  EXPECT_FALSE(PickUniversal({}, 5, Opts()));
}

TEST(UniversalCompactionTest, SizeAmplificationCompactsEverythingIntoTheMaxLevel) {
  // 4 small runs over a max-level run: 1+1+1+100 = 103 > 2 x 50.
  auto unit = PickUniversal(Runs({{0, 1}, {0, 1}, {0, 1}, {0, 100}, {5, 50}}), 5, Opts());
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 5);
  EXPECT_EQ(unit->files.size(), 5u);
}

TEST(UniversalCompactionTest, SizeRatioTakesRunsWhileTheNextIsNotBigger) {
  // No amplification (1+1+2+3 = 7 < 2 x 1000); ratio: 1 >= 1, 2 >= 2, 4 >= 3, 7 < 1000.
  auto unit = PickUniversal(Runs({{0, 1}, {0, 1}, {0, 2}, {0, 3}, {5, 1000}}), 5, Opts());
  ASSERT_TRUE(unit);
  EXPECT_EQ(Names(*unit), (std::vector<std::string>{"f0", "f1", "f2", "f3"}));
  EXPECT_EQ(unit->output_level, 4);  // one above the next run's level
}

TEST(UniversalCompactionTest, RunCountForcesTheOldestExcessRuns) {
  // Ratio fails at once (10 < 100), 6 runs > trigger 5: the first 2 runs are forced.
  auto unit = PickUniversal(
      Runs({{0, 10}, {0, 100}, {0, 1000}, {3, 10000}, {4, 100000}, {5, 1000000}}), 5, Opts());
  ASSERT_TRUE(unit);
  EXPECT_EQ(Names(*unit), (std::vector<std::string>{"f0", "f1", "f2", "f3"}));
  // The next run after the two forced ones is at level 0, so the unit absorbs level-0 runs until
  // a level >= 1 run (f3 at level 3) and outputs at its level.
  EXPECT_EQ(unit->output_level, 3);
}

TEST(UniversalCompactionTest, FullCompactionSkipsALoneMaxLevelRun) {
  EXPECT_FALSE(PickFull(Runs({{5, 10}}), 5));
  auto unit = PickFull(Runs({{0, 1}, {5, 10}}), 5);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->output_level, 5);
  EXPECT_EQ(unit->files.size(), 2u);
}

TEST(UniversalCompactionTest, OptionsFollowJavaDefaults) {
  ASSERT_OK_AND_ASSIGN(auto o,
                       UniversalCompactionOptions::FromOptions(CoreOptions::FromMap({}).value()));
  EXPECT_EQ(o.compaction_trigger, 5);
  EXPECT_EQ(o.stop_trigger, 8);
  EXPECT_EQ(o.num_levels, 6);
  EXPECT_EQ(o.max_size_amplification_percent, 200);
  EXPECT_EQ(o.size_ratio, 1);
}

TEST(UniversalCompactionTest, OffPeakHoursRaiseTheSizeRatio) {
  ASSERT_OK_AND_ASSIGN(CoreOptions table,
                       CoreOptions::FromMap({{"compaction.offpeak.start.hour", "22"},
                                             {"compaction.offpeak.end.hour", "6"},
                                             {"compaction.offpeak-ratio", "50"}}));
  ASSERT_OK_AND_ASSIGN(auto o, UniversalCompactionOptions::FromOptions(table));
  int32_t hour = 12;
  o.hour_of_day = [&hour] { return hour; };
  // Runs 100, 140, 500, 1000, 100000: 100 x 1.01 < 140 stops the size ratio at peak hours and
  // nothing is picked; off-peak 100 x 1.51 >= 140 takes the second run, 240 x 1.51 < 500 stops.
  auto runs = Runs({{0, 100}, {0, 140}, {3, 500}, {4, 1000}, {5, 100000}});
  for (int32_t h : {12, 6, 21}) {
    hour = h;
    EXPECT_EQ(o.CurrentOffPeakRatio(), 0) << h;
    EXPECT_FALSE(PickUniversal(runs, 5, o)) << h;
  }
  for (int32_t h : {22, 23, 0, 5}) {
    hour = h;
    EXPECT_EQ(o.CurrentOffPeakRatio(), 50) << h;
    auto unit = PickUniversal(runs, 5, o);
    ASSERT_TRUE(unit) << h;
    EXPECT_EQ(unit->output_level, 2);
    EXPECT_EQ(Names(*unit), (std::vector<std::string>{"f0", "f1"}));
  }
  // Off at start == end or -1.
  o.offpeak_end_hour = 22;
  EXPECT_EQ(o.CurrentOffPeakRatio(), 0);
}

}  // namespace
}  // namespace fjord
