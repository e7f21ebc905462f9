// Batch tags (tag.automatic-creation = batch): the name from the commit date in the zone or the
// customized name, replacing the tag of the same day (and the files only it kept),
// tag.num-retained-max over every tag, the option checks, and commit maintenance making the tag
// only when a batch job ends.
#include "fjord/table/maintain/tag_batch_create.h"

#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>

#include "fjord/table/maintain/commit_maintenance.h"
#include "fjord/table/maintain/tags.h"
#include "fjord/table/maintain/tags_test_util.h"

namespace fjord {
namespace {

using testing::TagTestTable;
using Opts = std::vector<std::pair<std::string, std::string>>;

int64_t Utc(const std::string& text) { return ParseLocalDateTime(text).value().ToMillis(); }

const Opts kBatchUtc = {{"tag.automatic-creation", "batch"}, {"sink.process-time-zone", "UTC"}};

std::unique_ptr<TagBatchCreation> Creation(const TagTestTable& t) {
  auto made = TagBatchCreation::Make(t.table);
  EXPECT_OK(made.status());
  return made.ok() ? std::move(*made) : nullptr;
}

// Every tag as name@snapshot, by name.
std::vector<std::string> Tags(const TagTestTable& t) {
  std::vector<std::string> out;
  std::vector<TagEntry> tags = ListTagEntries(*t.table).value();
  for (const TagEntry& tag : tags) {
    out.push_back(tag.name + "@" + std::to_string(tag.snapshot.id));
  }
  return out;
}

LocalDateTime Now() { return LocalDateTime::Now(); }

TEST(TagBatchCreationTest, NameIsTheCommitDateInTheZoneOrTheCustomizedName) {
  testing::TempDir dir;
  TagTestTable utc(dir, kBatchUtc);
  EXPECT_EQ(Creation(utc)->TagName(Utc("2026-03-01T23:59:59")), "batch-write-2026-03-01");
  auto east = utc.table->WithDynamicOptions({{"sink.process-time-zone", "+08:00"}}).value();
  EXPECT_EQ(TagBatchCreation::Make(east).value()->TagName(Utc("2026-03-01T16:00")),
            "batch-write-2026-03-02");
  auto named = utc.table->WithDynamicOptions({{"tag.batch.customized-name", "nightly"}}).value();
  EXPECT_EQ(TagBatchCreation::Make(named).value()->TagName(Utc("2026-03-01T16:00")), "nightly");
  // Unset: the process's local zone, as Java's JVM default.
  testing::TempDir other;
  TagTestTable plain(other, {{"tag.automatic-creation", "batch"}});
  time_t seconds = Utc("2026-07-15T22:30") / 1000;
  struct tm tm {};
  localtime_r(&seconds, &tm);
  char expect[32];
  std::strftime(expect, sizeof(expect), "batch-write-%Y-%m-%d", &tm);
  EXPECT_EQ(Creation(plain)->TagName(seconds * 1000), expect);
}

TEST(TagBatchCreationTest, OptionChecks) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  EXPECT_TRUE(TagBatchCreation::Make(t.table).value() == nullptr);  // not batch mode
  auto check = [&](Opts opts, const std::string& option) {
    opts.emplace_back("tag.automatic-creation", "batch");
    std::map<std::string, std::string> dynamic(opts.begin(), opts.end());
    auto table = t.table->WithDynamicOptions(dynamic).value();
    Result<std::unique_ptr<TagBatchCreation>> made = TagBatchCreation::Make(table);
    ASSERT_FALSE(made.ok()) << option;
    EXPECT_NE(made.status().ToString().find("'" + option + "'"), std::string::npos)
        << made.status().ToString();
  };
  check({{"sink.process-time-zone", "Asia/Shanghai"}}, "sink.process-time-zone");
  check({{"tag.batch.customized-name", " "}}, "tag.batch.customized-name");
  check({{"tag.batch.customized-name", "a/b"}}, "tag.batch.customized-name");
  check({{"tag.num-retained-max", "-1"}}, "tag.num-retained-max");
}

TEST(TagBatchCreationTest, ReplacesTheTagOfTheSameDay) {
  testing::TempDir dir;
  Opts opts = kBatchUtc;
  opts.emplace_back("tag.default-time-retained", "1 d");
  TagTestTable t(dir, opts);
  auto creation = Creation(t);
  // No snapshot: no tag.
  EXPECT_FALSE(creation->Run(Now()).value().tag);
  t.Append({1});
  t.SetSnapshotTime(1, Utc("2026-03-01T10:00"), std::nullopt);
  TagBatchCreation::Outcome first = creation->Run(Now()).value();
  EXPECT_EQ(first.tag, "batch-write-2026-03-01");
  EXPECT_EQ(first.snapshot_id, 1);
  EXPECT_EQ(LoadTagEntry(*t.table, "batch-write-2026-03-01").value().time_retained,
            TagDuration::FromMillis(86400000));
  // The same day: the tag moves to the new snapshot. Snapshot 1 has expired, so the data file
  // only the old tag kept goes with it.
  t.Overwrite({2});
  t.SetSnapshotTime(2, Utc("2026-03-01T23:30"), std::nullopt);
  t.ExpireSnapshotsBefore(2);
  std::string file1 = t.DataFileOf(1);
  ASSERT_TRUE(t.Files().count(file1));
  ASSERT_OK(creation->Run(Now()).status());
  EXPECT_EQ(Tags(t), (std::vector<std::string>{"batch-write-2026-03-01@2"}));
  EXPECT_FALSE(t.Files().count(file1));
  EXPECT_EQ(t.TagRows("batch-write-2026-03-01"), (std::multiset<int64_t>{2}));
  // The next day: a second tag.
  t.Append({3});
  t.SetSnapshotTime(3, Utc("2026-03-02T00:10"), std::nullopt);
  ASSERT_OK(creation->Run(Now()).status());
  EXPECT_EQ(Tags(t),
            (std::vector<std::string>{"batch-write-2026-03-01@2", "batch-write-2026-03-02@3"}));
  // A customized name is replaced at every batch job.
  auto named = t.table->WithDynamicOptions({{"tag.batch.customized-name", "last"}}).value();
  ASSERT_OK(TagBatchCreation::Make(named).value()->Run(Now()).status());
  t.Append({4});
  ASSERT_OK(TagBatchCreation::Make(named).value()->Run(Now()).status());
  EXPECT_EQ(LoadTagEntry(*t.table, "last").value().snapshot.id, 4);
}

// Tags a: @1, b: @1, c: @2, d: @3, e: @3 (e's file older than d's), and the batch tag @4.
void BuildTagsForRetention(TagTestTable& t) {
  for (int64_t v = 1; v <= 4; ++v) t.Append({v});
  const std::vector<std::pair<std::string, int64_t>> tags = {
      {"a", 1}, {"b", 1}, {"c", 2}, {"d", 3}, {"e", 3}};
  auto base = std::filesystem::file_time_type::clock::now() - std::chrono::hours(10);
  int hour = 0;
  for (const auto& [name, id] : tags) {
    CreateTagRequest r;
    r.name = name;
    r.snapshot_id = id;
    ASSERT_TRUE(CreateTag(*t.table, r, Now()).value());
    std::string path = t.table->snapshots().paths().TagFile(name);
    // e before d: the order within a snapshot is the files' age, not the names.
    int at = name == "e" ? 2 : name == "d" ? 3 : hour;
    std::filesystem::last_write_time(path, base + std::chrono::hours(at));
    ++hour;
  }
}

TEST(TagBatchCreationTest, NumRetainedMaxCountsEveryTagOldestSnapshotFirst) {
  for (auto [max, expect] : std::vector<std::pair<int, std::vector<std::string>>>{
           {3, {"batch-write-2026-03-01@4", "d@3", "e@3"}},
           {2, {"batch-write-2026-03-01@4", "d@3"}},
           {0, {}},
           {9, {"a@1", "b@1", "batch-write-2026-03-01@4", "c@2", "d@3", "e@3"}}}) {
    testing::TempDir dir;
    Opts opts = kBatchUtc;
    opts.emplace_back("tag.num-retained-max", std::to_string(max));
    TagTestTable t(dir, opts);
    BuildTagsForRetention(t);
    t.SetSnapshotTime(4, Utc("2026-03-01T10:00"), std::nullopt);
    TagBatchCreation::Outcome out = Creation(t)->Run(Now()).value();
    EXPECT_EQ(Tags(t), expect) << "max " << max;
    EXPECT_EQ(out.expired.size(), 6 - expect.size()) << "max " << max;
  }
}

TEST(TagBatchCreationTest, CommitMaintenanceTagsOnlyWhenABatchJobEnds) {
  testing::TempDir dir;
  TagTestTable t(dir, kBatchUtc);
  t.Append({1});
  t.SetSnapshotTime(1, Utc("2026-03-01T10:00"), std::nullopt);
  auto m = CommitMaintenance::Make(t.table, "writer").value();
  ASSERT_OK(m->AfterCommit(7, true));  // a streaming checkpoint's commit
  EXPECT_TRUE(Tags(t).empty());
  ASSERT_OK(m->AfterCommit(INT64_MAX, false, true));  // a batch job's end, even without a snapshot
  EXPECT_EQ(Tags(t), (std::vector<std::string>{"batch-write-2026-03-01@1"}));
  // Write-only writers too (Java's batch sinks tag whatever write-only says), only at a batch
  // job's end.
  t.Append({2});
  t.SetSnapshotTime(2, Utc("2026-03-01T12:00"), std::nullopt);
  auto write_only = t.table->WithDynamicOptions({{"write-only", "true"}}).value();
  auto wo = CommitMaintenance::Make(write_only, "writer").value();
  ASSERT_OK(wo->AfterCommit(8, true));
  EXPECT_EQ(Tags(t), (std::vector<std::string>{"batch-write-2026-03-01@1"}));
  ASSERT_OK(wo->AfterCommit(INT64_MAX, true, true));
  EXPECT_EQ(Tags(t), (std::vector<std::string>{"batch-write-2026-03-01@2"}));
  // Async: the tag comes with the queued run.
  t.Append({3});
  t.SetSnapshotTime(3, Utc("2026-03-01T13:00"), std::nullopt);
  auto async = t.table->WithDynamicOptions({{"snapshot.expire.execution-mode", "async"}}).value();
  auto queued = CommitMaintenance::Make(async, "writer").value();
  ASSERT_OK(queued->AfterCommit(INT64_MAX, true, true));
  ASSERT_OK(queued->Wait());
  EXPECT_EQ(Tags(t), (std::vector<std::string>{"batch-write-2026-03-01@3"}));
}

}  // namespace
}  // namespace fjord
