#include "fjord/meta/tag_period.h"

#include "fjord/common/calendar.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

constexpr int64_t kHour = 3600 * 1000;
constexpr int64_t kDay = 24 * kHour;

int64_t Local(int64_t y, unsigned mo, unsigned d, int64_t h = 0, int64_t mi = 0) {
  return DaysFromCivil(y, mo, d) * kDay + h * kHour + mi * 60000;
}

TagPeriod Make(std::map<std::string, std::string> options) {
  Result<TagPeriod> p = TagPeriod::Make(Options::FromTable(options));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return *p;
}

TEST(TagPeriodTest, DailyIsTheDefaultWithDashes) {
  TagPeriod p = Make({});
  EXPECT_EQ(p.kind(), TagPeriod::Kind::kDaily);
  EXPECT_EQ(p.period_millis(), kDay);
  EXPECT_EQ(p.TagToLocalMillis("2024-02-29"), Local(2024, 2, 29));
  // Java's daily handler reads the part before a space only.
  EXPECT_EQ(p.TagToLocalMillis("2024-02-29 13"), Local(2024, 2, 29));
  EXPECT_EQ(p.LocalMillisToTag(Local(2024, 3, 1, 5)), "2024-03-01");
  // Strict: real dates, fixed widths, the whole text.
  EXPECT_FALSE(p.TagToLocalMillis("2023-02-29"));
  EXPECT_FALSE(p.TagToLocalMillis("2024-2-01"));
  EXPECT_FALSE(p.TagToLocalMillis("20240201"));
  EXPECT_FALSE(p.TagToLocalMillis("2024-02-01x"));
  EXPECT_FALSE(p.TagToLocalMillis("my-tag"));
  EXPECT_FALSE(p.TagToLocalMillis(" 2024-02-01"));
}

TEST(TagPeriodTest, HourlyFormatters) {
  TagPeriod dashes = Make({{"tag.creation-period", "hourly"}});
  EXPECT_EQ(dashes.period_millis(), kHour);
  EXPECT_EQ(dashes.TagToLocalMillis("2024-01-05 07"), Local(2024, 1, 5, 7));
  EXPECT_FALSE(dashes.TagToLocalMillis("2024-01-05 24"));
  EXPECT_FALSE(dashes.TagToLocalMillis("2024-01-05"));
  EXPECT_EQ(dashes.LocalMillisToTag(Local(2024, 1, 5, 7, 30)), "2024-01-05 07");
  TagPeriod plain =
      Make({{"tag.creation-period", "HOURLY"}, {"tag.period-formatter", "without_dashes"}});
  EXPECT_EQ(plain.TagToLocalMillis("20240105 07"), Local(2024, 1, 5, 7));
  EXPECT_EQ(plain.LocalMillisToTag(Local(2024, 1, 5, 7)), "20240105 07");
  TagPeriod packed = Make(
      {{"tag.creation-period", "hourly"}, {"tag.period-formatter", "without_dashes_and_spaces"}});
  EXPECT_EQ(packed.TagToLocalMillis("2024010507"), Local(2024, 1, 5, 7));
  EXPECT_FALSE(packed.TagToLocalMillis("20240105 07"));
  TagPeriod daily_plain = Make({{"tag.period-formatter", "without_dashes_and_spaces"}});
  EXPECT_EQ(daily_plain.TagToLocalMillis("20240105"), Local(2024, 1, 5));
}

TEST(TagPeriodTest, TwoHoursAndDurations) {
  TagPeriod two =
      Make({{"tag.creation-period", "two-hours"}, {"tag.period-formatter", "without_dashes"}});
  EXPECT_EQ(two.period_millis(), 2 * kHour);
  // Two-hour tags always use the dashed hour form.
  EXPECT_EQ(two.TagToLocalMillis("2024-01-05 08"), Local(2024, 1, 5, 8));
  TagPeriod minutes =
      Make({{"tag.creation-period-duration", "15 min"}, {"tag.creation-period", "daily"}});
  EXPECT_EQ(minutes.kind(), TagPeriod::Kind::kDuration);
  EXPECT_EQ(minutes.period_millis(), 15 * 60000);
  EXPECT_EQ(minutes.TagToLocalMillis("202401050845"), Local(2024, 1, 5, 8, 45));
  EXPECT_FALSE(minutes.TagToLocalMillis("202401050860"));
  EXPECT_EQ(minutes.LocalMillisToTag(Local(1999, 12, 31, 23, 59)), "199912312359");
}

TEST(TagPeriodTest, BadOptionsAreNamed) {
  Result<TagPeriod> p = TagPeriod::Make(Options::FromTable({{"tag.creation-period", "weekly"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("tag.creation-period"), std::string::npos);
  p = TagPeriod::Make(Options::FromTable({{"tag.period-formatter", "iso"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("tag.period-formatter"), std::string::npos);
}

}  // namespace
}  // namespace fjord
