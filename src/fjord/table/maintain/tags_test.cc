// Tags: the tag JSON as Java writes it, create / list / delete rules, Java's doClean (files the
// neighbour tags and the earliest snapshot use are kept), time expiration, and a crash at every
// I/O step of a deletion (the table stays readable, a retry finishes).
#include "fjord/table/maintain/tags.h"
#include "fjord/meta/changelog_manager.h"
#include "fjord/table/maintain/changelog_expire.h"
#include "fjord/table/maintain/expire_config.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "fjord/io/fault_injection_file_io.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/maintain/tags_test_util.h"
#include "fjord/table/write/append_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TagTestTable;

TEST(TagJsonTest, WritesJavaFieldsInJavaOrder) {
  Snapshot s;
  s.id = 3;
  s.base_manifest_list = "b";
  s.delta_manifest_list = "d";
  s.commit_user = "u";
  s.time_millis = 5;
  LocalDateTime t = ParseLocalDateTime("2026-01-03T05:07:09.000000011").value();
  std::string json = TagToJson(s, t, TagDuration{4, 0});
  EXPECT_NE(json.find("  \"timeMillis\" : 5,"), std::string::npos) << json;
  EXPECT_NE(json.find(",\n  \"tagCreateTime\" : [ 2026, 1, 3, 5, 7, 9, 11 ],\n"
                      "  \"tagTimeRetained\" : 4.000000000\n}"),
            std::string::npos)
      << json;
  // Jackson leaves out zero seconds and nanos.
  LocalDateTime whole = ParseLocalDateTime("2026-01-03T05:07").value();
  EXPECT_NE(TagToJson(s, whole, TagDuration{90, 500000000}).find("[ 2026, 1, 3, 5, 7 ]"),
            std::string::npos);
  // Without a time retained, the snapshot JSON alone.
  EXPECT_EQ(TagToJson(s, t, std::nullopt), s.ToJson());

  TagEntry back = TagFromJson("x", TagToJson(s, t, TagDuration{90, 500000000}), "f").value();
  EXPECT_EQ(back.snapshot.id, 3);
  EXPECT_EQ(back.create_time, t);
  EXPECT_EQ(back.time_retained, (TagDuration{90, 500000000}));
  EXPECT_FALSE(TagFromJson("x", s.ToJson(), "f").value().time_retained);
  Result<TagEntry> bad = TagFromJson(
      "x", TagToJson(s, t, TagDuration{1, 0}).replace(json.find("[ 2026"), 6, "[ \"a\""), "f");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("tagCreateTime"), std::string::npos);
}

TEST(TagsTest, CreateListAndRefusals) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  CreateTagRequest r;
  r.name = "a";
  LocalDateTime now = ParseLocalDateTime("2026-05-01T10:00").value();
  // No snapshot yet.
  EXPECT_FALSE(CreateTag(*t.table, r, now).ok());
  t.Append({1, 2});
  t.Append({3});
  ASSERT_TRUE(CreateTag(*t.table, r, now).value());
  r.name = "b";
  r.snapshot_id = 1;
  r.time_retained = TagDuration::FromMillis(3600000);
  ASSERT_TRUE(CreateTag(*t.table, r, now).value());
  // Existing name, missing snapshot, blank name, a '/'.
  Result<bool> exists = CreateTag(*t.table, r, now);
  ASSERT_FALSE(exists.ok());
  EXPECT_NE(exists.status().ToString().find("Tag 'b' already exists."), std::string::npos);
  r.ignore_if_exists = true;
  EXPECT_FALSE(CreateTag(*t.table, r, now).value());
  r.ignore_if_exists = false;
  r.name = "c";
  r.snapshot_id = 9;
  Result<bool> missing = CreateTag(*t.table, r, now);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("Snapshot 9 doesn't exist"), std::string::npos);
  r.snapshot_id = 1;
  r.name = "  ";
  EXPECT_NE(CreateTag(*t.table, r, now).status().ToString().find("shouldn't be blank"),
            std::string::npos);
  r.name = "x/y";
  EXPECT_FALSE(CreateTag(*t.table, r, now).ok());

  std::vector<TagEntry> tags = ListTagEntries(*t.table).value();
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[0].name, "a");
  EXPECT_EQ(tags[0].snapshot.id, 2);
  EXPECT_FALSE(tags[0].time_retained);
  EXPECT_EQ(tags[1].name, "b");
  EXPECT_EQ(tags[1].snapshot.id, 1);
  EXPECT_EQ(tags[1].create_time, now);
  EXPECT_EQ(tags[1].time_retained->ToMillis(), 3600000);
  EXPECT_EQ(t.TagRows("b"), (std::multiset<int64_t>{1, 2}));
  EXPECT_EQ(t.TagRows("a"), (std::multiset<int64_t>{1, 2, 3}));

  // Deleting a tag whose snapshot still exists deletes only the tag file.
  std::set<std::string> before = t.Files();
  ASSERT_TRUE(DeleteTag(*t.table, "b").value());
  std::set<std::string> after = t.Files();
  EXPECT_EQ(before.size(), after.size() + 1);
  EXPECT_FALSE(DeleteTag(*t.table, "b").value());
}

TEST(TagsTest, TimeExpirationDeletesTagsPastTheirRetention) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.Append({1});
  LocalDateTime now = ParseLocalDateTime("2026-05-01T10:00").value();
  CreateTagRequest r;
  r.name = "short";
  r.time_retained = TagDuration::FromMillis(60000);
  ASSERT_TRUE(CreateTag(*t.table, r, now).value());
  r.name = "long";
  r.time_retained = TagDuration::FromMillis(3600000);
  ASSERT_TRUE(CreateTag(*t.table, r, now).value());
  r.name = "forever";
  r.time_retained.reset();
  ASSERT_TRUE(CreateTag(*t.table, r, now).value());
  EXPECT_TRUE(ExpireTagsByTime(*t.table, now.MinusMillis(-60000)).value().empty());
  EXPECT_EQ(ExpireTagsByTime(*t.table, now.MinusMillis(-60001)).value(),
            std::vector<std::string>{"short"});
  EXPECT_EQ(ExpireTagsByTime(*t.table, now.MinusMillis(-86400000)).value(),
            std::vector<std::string>{"long"});
  EXPECT_EQ(t.table->snapshots().ListTags().value(), std::vector<std::string>{"forever"});
}

// Tags t1 @1 (rows 1), t2 @2 (1, 2), t3 @3 (overwrite: 3), then snapshots 1-3 expire (the earliest
// is 4: 3, 4). Deleting t2 deletes the data file of row 2 only (t1 uses 1, the earliest snapshot
// uses 3) and snapshot 2's manifest lists, keeping everything t1, t3 and snapshot 4 read.
TEST(TagsTest, DeleteKeepsWhatNeighboursUse) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.WriteFourSnapshots();
  LocalDateTime now = LocalDateTime::Now();
  for (int64_t id : {1, 2, 3}) {
    CreateTagRequest r;
    r.name = "t" + std::to_string(id);
    r.snapshot_id = id;
    ASSERT_TRUE(CreateTag(*t.table, r, now).value());
  }
  t.ExpireSnapshotsBefore(4);
  std::set<std::string> before = t.Files();
  std::string data2 = t.DataFileOf(2);
  Snapshot s2 = t.table->snapshots().LoadTag("t2").value();
  ASSERT_TRUE(DeleteTag(*t.table, "t2").value());
  std::set<std::string> after = t.Files();
  std::set<std::string> gone;
  for (const std::string& f : before) {
    if (!after.count(f)) gone.insert(f);
  }
  EXPECT_TRUE(gone.count("tag/tag-t2"));
  EXPECT_TRUE(gone.count(data2)) << data2;
  EXPECT_TRUE(gone.count("manifest/" + s2.delta_manifest_list));
  EXPECT_TRUE(gone.count("manifest/" + s2.base_manifest_list));
  for (const std::string& f : gone) {
    EXPECT_TRUE(f.starts_with("manifest/") || f == data2 || f == "tag/tag-t2") << f;
  }
  EXPECT_EQ(t.TagRows("t1"), (std::multiset<int64_t>{1}));
  EXPECT_EQ(t.TagRows("t3"), (std::multiset<int64_t>{3}));
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{3, 4}));
  // Deleting t1 then: its left neighbour is none, its right t3; row 1's file goes.
  std::string data1 = t.DataFileOf(1);
  ASSERT_TRUE(DeleteTag(*t.table, "t1").value());
  EXPECT_FALSE(t.Files().count(data1));
  EXPECT_EQ(t.TagRows("t3"), (std::multiset<int64_t>{3}));
}

// A crash at every I/O step of deleting t2 leaves t1, t3 and the latest snapshot readable, and a
// retry leaves the same files as an undisturbed deletion.
TEST(TagsTest, DeleteSurvivesACrashAtEveryStep) {
  testing::TempDir base;
  TagTestTable built(base, {});
  built.BuildThreeTagsAndExpire();
  auto copy = [&](const testing::TempDir& to) { return built.CopyTo(to); };
  testing::TempDir reference_dir;
  std::string reference = copy(reference_dir);
  {
    auto table = std::move(FileStoreTable::Open(reference)).value();
    ASSERT_TRUE(DeleteTag(*table, "t2").value());
  }
  const std::set<std::string> expected = TagTestTable::FilesOf(reference);
  ASSERT_LT(expected.size(), TagTestTable::FilesOf(built.table->path()).size());
  int64_t crashes = 0;
  for (int64_t step = 1;; ++step) {
    testing::TempDir dir;
    std::string path = copy(dir);
    auto faulty = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
    auto table = std::move(FileStoreTable::Open(path, faulty)).value();
    faulty->FailAt(step, FaultInjectionFileIO::Mode::kCrash);
    Result<bool> crashed = DeleteTag(*table, "t2");
    if (!faulty->crashed()) {
      ASSERT_TRUE(crashed.ok()) << crashed.status().ToString();
      EXPECT_EQ(TagTestTable::FilesOf(path), expected);
      break;
    }
    ++crashes;
    EXPECT_FALSE(crashed.ok());
    EXPECT_EQ(TagTestTable::TagRowsOf(path, "t1"), (std::multiset<int64_t>{1})) << step;
    EXPECT_EQ(TagTestTable::TagRowsOf(path, "t3"), (std::multiset<int64_t>{3})) << step;
    EXPECT_EQ(TagTestTable::RowsOf(path, ReadRequest{}), (std::multiset<int64_t>{3, 4})) << step;
    auto retry = std::move(FileStoreTable::Open(path)).value();
    ASSERT_OK(DeleteTag(*retry, "t2").status());
    EXPECT_EQ(TagTestTable::FilesOf(path), expected) << "step " << step;
    ASSERT_LT(step, 500);
  }
  EXPECT_GT(crashes, 10);
}

// With a decoupled changelog (producer none), the long-lived changelogs still read their manifest
// lists and the APPEND files their commits added; deleting a tag keeps them (Java's doClean does
// not), and changelog expiration deletes them later.
TEST(TagsTest, DeleteKeepsWhatLongLivedChangelogsRead) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.WriteFourSnapshots();
  t.Tag("t2", 2);
  ExpireConfig config;
  config.snapshot_retain_max = 1;
  config.snapshot_time_retain_millis = 0;
  config.changelog_retain_max = 10;
  config.changelog_retain_min = 10;
  ASSERT_TRUE(config.ChangelogDecoupled());
  ASSERT_OK(ExpireSnapshots(*t.table, config).status());
  ChangelogManager changelogs(t.table->io(), t.table->path());
  ASSERT_EQ(changelogs.ListIds().value(), (std::vector<int64_t>{1, 2, 3}));

  ASSERT_TRUE(DeleteTag(*t.table, "t2").value());
  std::set<std::string> files = t.Files();
  for (int64_t id : {1, 2, 3}) {
    Snapshot c = changelogs.Load(id).value();
    for (const std::string& list : {c.base_manifest_list, c.delta_manifest_list}) {
      EXPECT_TRUE(files.count("manifest/" + list)) << "changelog " << id << ": " << list;
    }
  }
  // Values 1 and 2 were overwritten at snapshot 3: only the changelogs still read their files.
  EXPECT_TRUE(files.count(t.DataFileOf(1)));
  EXPECT_TRUE(files.count(t.DataFileOf(2)));

  // Changelog expiration then deletes them, once changelog-3 (whose delta deleted them) goes.
  t.Append({5});
  ASSERT_OK(ExpireSnapshots(*t.table, config).status());
  ASSERT_EQ(changelogs.ListIds().value(), (std::vector<int64_t>{1, 2, 3, 4}));
  config.changelog_retain_max = 1;
  config.changelog_retain_min = 1;
  ASSERT_OK(ExpireChangelogs(*t.table, config).status());
  files = t.Files();
  EXPECT_FALSE(files.count(t.DataFileOf(1)));
  EXPECT_FALSE(files.count(t.DataFileOf(2)));
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{3, 4, 5}));
}

}  // namespace
}  // namespace fjord
