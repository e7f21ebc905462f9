// Automatic tags: the first tag at once, one tag per elapsed period, the delay, completion of
// skipped periods, watermark mode skipping snapshots without watermark, num-retained-max, and the
// zone options.
#include "fjord/table/maintain/tag_auto_create.h"

#include <gtest/gtest.h>

#include "fjord/table/maintain/tags.h"
#include "fjord/table/maintain/tags_test_util.h"

namespace fjord {
namespace {

using testing::TagTestTable;
using Opts = std::vector<std::pair<std::string, std::string>>;

// Epoch millis of a UTC date-time text.
int64_t Utc(const std::string& text) { return ParseLocalDateTime(text).value().ToMillis(); }

// Commits one snapshot per time (UTC) and runs a fresh maintenance after each, as commits do.
std::vector<std::string> TagsAfter(const Opts& options, const std::vector<std::string>& times,
                                   bool watermark_only_odd = false) {
  testing::TempDir dir;
  TagTestTable t(dir, options);
  int64_t id = 0;
  for (const std::string& time : times) {
    t.Append({++id});
    std::optional<int64_t> wm;
    if (!watermark_only_odd || id % 2 == 1) wm = Utc(time);
    t.SetSnapshotTime(id, Utc(time), wm);
    EXPECT_OK(RunTagMaintenance(t.table, LocalDateTime::Now()));
  }
  std::vector<std::string> out;
  std::vector<TagEntry> tags = ListTagEntries(*t.table).value();
  for (const TagEntry& tag : tags) {
    out.push_back(tag.name + "@" + std::to_string(tag.snapshot.id));
  }
  return out;
}

const Opts kHourlyUtc = {{"tag.automatic-creation", "process-time"},
                         {"tag.creation-period", "hourly"},
                         {"sink.process-time-zone", "UTC"}};

TEST(TagAutoCreationTest, FirstTagAtOnceThenOnePerPeriod) {
  EXPECT_EQ(TagsAfter(kHourlyUtc, {"2026-03-01T10:20", "2026-03-01T10:50", "2026-03-01T11:05",
                                   "2026-03-01T12:00", "2026-03-01T15:30"}),
            (std::vector<std::string>{"2026-03-01 09@1", "2026-03-01 10@3", "2026-03-01 11@4",
                                      "2026-03-01 14@5"}));
}

TEST(TagAutoCreationTest, DelayAndCompletion) {
  Opts delayed = kHourlyUtc;
  delayed.emplace_back("tag.creation-delay", "10 min");
  EXPECT_EQ(TagsAfter(delayed, {"2026-03-01T10:20", "2026-03-01T11:05", "2026-03-01T11:10"}),
            (std::vector<std::string>{"2026-03-01 09@1", "2026-03-01 10@3"}));
  Opts completion = kHourlyUtc;
  completion.emplace_back("tag.automatic-completion", "true");
  EXPECT_EQ(TagsAfter(completion, {"2026-03-01T10:20", "2026-03-01T13:30"}),
            (std::vector<std::string>{"2026-03-01 09@1", "2026-03-01 10@2"}));
  Opts bad = kHourlyUtc;
  bad.emplace_back("tag.creation-delay", "1 h");
  testing::TempDir dir;
  TagTestTable t(dir, bad);
  Status st = RunTagMaintenance(t.table, LocalDateTime::Now());
  EXPECT_NE(st.ToString().find("tag.creation-delay"), std::string::npos) << st.ToString();
}

TEST(TagAutoCreationTest, DailyFormatterAndWatermarkMode) {
  Opts daily = {{"tag.automatic-creation", "watermark"},
                {"tag.period-formatter", "without_dashes"}};
  // Snapshots 2 and 4 have no watermark: never tagged.
  EXPECT_EQ(TagsAfter(daily,
                      {"2026-03-01T10:00", "2026-03-03T10:00", "2026-03-03T11:00",
                       "2026-03-04T00:00", "2026-03-04T01:00"},
                      true),
            (std::vector<std::string>{"20260228@1", "20260302@3", "20260303@5"}));
}

TEST(TagAutoCreationTest, NumRetainedMaxDeletesOldestAutoTagsOnly) {
  Opts opts = kHourlyUtc;
  opts.emplace_back("tag.num-retained-max", "2");
  testing::TempDir dir;
  TagTestTable t(dir, opts);
  t.Append({0});
  CreateTagRequest manual;
  manual.name = "manual";
  ASSERT_TRUE(CreateTag(*t.table, manual, LocalDateTime::Now()).value());
  const char* times[] = {"2026-03-01T10:20", "2026-03-01T11:20", "2026-03-01T12:20",
                         "2026-03-01T13:20"};
  int64_t id = 1;
  t.SetSnapshotTime(1, Utc("2026-03-01T09:20"), std::nullopt);
  ASSERT_OK(RunTagMaintenance(t.table, LocalDateTime::Now()));
  for (const char* time : times) {
    t.Append({++id});
    t.SetSnapshotTime(id, Utc(time), std::nullopt);
    ASSERT_OK(RunTagMaintenance(t.table, LocalDateTime::Now()));
  }
  EXPECT_EQ(t.table->snapshots().ListTags().value(),
            (std::vector<std::string>{"2026-03-01 11", "2026-03-01 12", "manual"}));
  // A manual tag with an auto-tag name on an auto-tagged snapshot is refused.
  manual.name = "2026-03-01 05";
  manual.snapshot_id = 5;
  Result<bool> refused = CreateTag(*t.table, manual, LocalDateTime::Now());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().ToString().find("already auto-tagged"), std::string::npos);
}

TEST(TagAutoCreationTest, DefaultTimeRetainedAndExpiration) {
  Opts opts = kHourlyUtc;
  opts.emplace_back("tag.default-time-retained", "1 h");
  testing::TempDir dir;
  TagTestTable t(dir, opts);
  t.Append({1});
  ASSERT_OK(RunTagMaintenance(t.table, LocalDateTime::Now()));
  std::vector<TagEntry> tags = ListTagEntries(*t.table).value();
  ASSERT_EQ(tags.size(), 1u);
  ASSERT_TRUE(tags[0].time_retained);
  EXPECT_EQ(tags[0].time_retained->ToMillis(), 3600000);
  ASSERT_OK(RunTagMaintenance(t.table, tags[0].create_time->MinusMillis(-3600001)));
  EXPECT_TRUE(t.table->snapshots().ListTags().value().empty());
}

TEST(TagAutoCreationTest, Zones) {
  EXPECT_EQ(ParseZoneOffset("o", std::string("+08:00")).value(), 8 * 3600000);
  EXPECT_EQ(ParseZoneOffset("o", std::string("UTC-0530")).value(), -(5 * 60 + 30) * 60000);
  EXPECT_EQ(ParseZoneOffset("o", std::string("UTC")).value(), 0);
  EXPECT_FALSE(ParseZoneOffset("o", std::nullopt).value());
  Result<std::optional<int64_t>> region = ParseZoneOffset("o", std::string("Asia/Shanghai"));
  ASSERT_FALSE(region.ok());
  EXPECT_NE(region.status().ToString().find("'o'"), std::string::npos);
  testing::TempDir dir;
  TagTestTable t(dir, {});
  // Batch mode tags at the end of a batch job (tag_batch_create.h), not per snapshot.
  auto batch = t.table->WithDynamicOptions({{"tag.automatic-creation", "batch"}}).value();
  EXPECT_TRUE(TagAutoCreation::Make(batch).value() == nullptr);
}

}  // namespace
}  // namespace fjord
