// Rollback (rollback.h): to a snapshot, a tag (also one whose snapshot has expired) and a time;
// what it deletes and keeps; refusals; a crash at every I/O step.

#include "fjord/table/maintain/rollback.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "fjord/io/fault_injection_file_io.h"
#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/consumer.h"
#include "fjord/table/maintain/tags_test_util.h"

namespace fjord {
namespace {

using testing::TagTestTable;

std::string ReadText(const std::string& path) { return FileIO::Local()->ReadFile(path).value(); }

RollbackTarget ToSnapshot(int64_t id) {
  RollbackTarget t;
  t.snapshot_id = id;
  return t;
}

RollbackTarget ToTag(const std::string& name) {
  RollbackTarget t;
  t.tag = name;
  return t;
}

// The files under `path` without the hidden temp files a crashed atomic create leaves (orphan
// clean-up removes them).
std::set<std::string> VisibleFiles(const std::string& path) {
  std::set<std::string> out;
  for (const std::string& f : TagTestTable::FilesOf(path)) {
    if (BaseName(f).rfind('.', 0) != 0) out.insert(f);
  }
  return out;
}

std::multiset<int64_t> SnapshotRows(const std::string& path, int64_t id) {
  ReadRequest request;
  request.selector.snapshot_id = id;
  return TagTestTable::RowsOf(path, request);
}

TEST(RollbackTest, ToASnapshotDeletesNewerSnapshotsAndTagsButNoDataFile) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  for (int64_t v = 1; v <= 5; ++v) t.Append({v});
  t.Tag("t2", 2);
  t.Tag("t4", 4);
  ConsumerManager consumers(t.table->io(), t.table->path());
  ASSERT_OK(consumers.Write("behind", Consumer{3}));
  ASSERT_OK(consumers.Write("next", Consumer{4}));
  ASSERT_OK(consumers.Write("ahead", Consumer{6}));
  std::set<std::string> before = t.Files();

  RollbackOutcome out = Rollback(*t.table, ToSnapshot(3)).value();
  EXPECT_EQ(out.snapshot_id, 3);
  EXPECT_FALSE(out.snapshot_recreated);
  EXPECT_EQ(out.snapshots_deleted, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(out.tags_deleted, (std::vector<std::string>{"t4"}));
  EXPECT_TRUE(out.changelogs_deleted.empty());
  ASSERT_EQ(out.consumers_ahead.size(), 1u);
  EXPECT_EQ(out.consumers_ahead[0], (std::pair<std::string, int64_t>{"ahead", 6}));

  EXPECT_EQ(t.table->snapshots().LatestId().value(), 3);
  EXPECT_EQ(t.table->snapshots().ListIds().value(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(t.table->snapshots().ListTags().value(), (std::vector<std::string>{"t2"}));
  EXPECT_EQ(ReadText(t.table->snapshots().paths().LatestHint()), "3");
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{1, 2, 3}));
  // Only metadata went: the data files of snapshots 4 and 5 are left to orphan clean-up.
  std::set<std::string> after = t.Files();
  for (const std::string& f : before) {
    if (f.rfind("snapshot/snapshot-", 0) == 0 || f.rfind("tag/", 0) == 0) continue;
    if (f == "snapshot/LATEST") continue;
    EXPECT_TRUE(after.count(f)) << f;
  }
  EXPECT_TRUE(after.count(t.DataFileOf(5)));
  // The next commit is snapshot 4 again, on top of 3.
  t.Append({6});
  EXPECT_EQ(t.table->snapshots().LatestId().value(), 4);
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{1, 2, 3, 6}));
  EXPECT_EQ(t.TagRows("t2"), (std::multiset<int64_t>{1, 2}));
}

TEST(RollbackTest, ToTheLatestSnapshotChangesNothing) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.Append({1});
  t.Append({2});
  t.Tag("t2", 2);
  std::set<std::string> before = t.Files();
  RollbackOutcome out = Rollback(*t.table, ToSnapshot(2)).value();
  EXPECT_TRUE(out.snapshots_deleted.empty());
  EXPECT_TRUE(out.tags_deleted.empty());
  EXPECT_EQ(t.Files(), before);
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{1, 2}));
}

// t1 @1 (1), t2 @2 (1, 2), t3 @3 (3); snapshots 1-3 expired, snapshot 4 (3, 4) is the earliest.
TEST(RollbackTest, ToATagWhoseSnapshotExpiredWritesItAgain) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.BuildThreeTagsAndExpire();
  std::string tag_text = ReadText(t.table->snapshots().paths().TagFile("t2"));

  RollbackOutcome out = Rollback(*t.table, ToTag("t2")).value();
  EXPECT_EQ(out.snapshot_id, 2);
  EXPECT_TRUE(out.snapshot_recreated);
  EXPECT_EQ(out.snapshots_deleted, (std::vector<int64_t>{4}));
  EXPECT_EQ(out.tags_deleted, (std::vector<std::string>{"t3"}));

  const TablePaths& paths = t.table->snapshots().paths();
  EXPECT_EQ(t.table->snapshots().ListIds().value(), (std::vector<int64_t>{2}));
  EXPECT_EQ(ReadText(paths.LatestHint()), "2");
  EXPECT_EQ(ReadText(paths.EarliestHint()), "2");
  // The snapshot file is the tag's snapshot without the tag's own fields.
  std::string snapshot_text = ReadText(paths.SnapshotFile(2));
  Snapshot trimmed = t.table->snapshots().LoadTag("t2").value();
  EXPECT_TRUE(trimmed.log_offsets.has_value());  // Fjord writes them as Java 1.0-1.4 commits do
  trimmed.log_offsets.reset();
  EXPECT_EQ(snapshot_text, trimmed.ToJson());
  EXPECT_EQ(snapshot_text.find("logOffsets"), std::string::npos);
  EXPECT_EQ(snapshot_text.find("tagCreateTime"), std::string::npos);
  EXPECT_EQ(tag_text, ReadText(paths.TagFile("t2")));
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{1, 2}));
  EXPECT_EQ(t.TagRows("t1"), (std::multiset<int64_t>{1}));
  t.Append({5});
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{1, 2, 5}));
}

TEST(RollbackTest, ToAnExpiredSnapshotIdGoesThroughItsTag) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.BuildThreeTagsAndExpire();
  RollbackOutcome out = Rollback(*t.table, ToSnapshot(3)).value();
  EXPECT_EQ(out.snapshot_id, 3);
  EXPECT_TRUE(out.snapshot_recreated);
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{3}));
  EXPECT_EQ(t.table->snapshots().ListTags().value(), (std::vector<std::string>{"t1", "t2", "t3"}));
}

TEST(RollbackTest, NewerLongLivedChangelogsGo) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.BuildThreeTagsAndExpire();
  // As decoupled expiration leaves them: the expired snapshots 1-3 as changelog-1..3.
  ChangelogManager changelogs(t.table->io(), t.table->path());
  for (const char* tag : {"t1", "t2", "t3"}) {
    ASSERT_OK(changelogs.Commit(t.table->snapshots().LoadTag(tag).value()));
  }
  RollbackOutcome out = Rollback(*t.table, ToTag("t2")).value();
  EXPECT_EQ(out.changelogs_deleted, (std::vector<int64_t>{3}));
  EXPECT_EQ(changelogs.ListIds().value(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ReadText(changelogs.LatestHint()), "2");
  out = Rollback(*t.table, ToTag("t1")).value();
  EXPECT_EQ(out.changelogs_deleted, (std::vector<int64_t>{2}));
  EXPECT_EQ(ReadText(changelogs.LatestHint()), "1");
}

TEST(RollbackTest, ToATime) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  for (int64_t v = 1; v <= 4; ++v) t.Append({v});
  for (int64_t id = 1; id <= 4; ++id) t.SetSnapshotTime(id, 1000 * id, std::nullopt);
  RollbackTarget at;
  at.timestamp_millis = 500;
  Result<RollbackOutcome> none = Rollback(*t.table, at);
  EXPECT_TRUE(none.status().IsNotFound()) << none.status().ToString();
  at.timestamp_millis = 2999;
  EXPECT_EQ(Rollback(*t.table, at).value().snapshot_id, 2);
  EXPECT_EQ(t.LatestRows(), (std::multiset<int64_t>{1, 2}));
}

TEST(RollbackTest, BadTargetsChangeNothing) {
  testing::TempDir dir;
  TagTestTable t(dir, {});
  t.Append({1});
  t.Append({2});
  std::set<std::string> before = t.Files();
  Result<RollbackOutcome> missing = Rollback(*t.table, ToSnapshot(9));
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("Rollback snapshot '9' doesn't exist."),
            std::string::npos)
      << missing.status().ToString();
  Result<RollbackOutcome> no_tag = Rollback(*t.table, ToTag("nope"));
  EXPECT_TRUE(no_tag.status().IsNotFound());
  EXPECT_NE(no_tag.status().message().find("nope"), std::string::npos);
  RollbackTarget two = ToSnapshot(1);
  two.tag = "x";
  EXPECT_TRUE(Rollback(*t.table, two).status().IsInvalid());
  EXPECT_TRUE(Rollback(*t.table, RollbackTarget{}).status().IsInvalid());
  EXPECT_EQ(t.Files(), before);
}

// A crash at every I/O step of a rollback to an expired tag (the longest one) leaves every
// snapshot and tag that is left reading its rows, and a retry ends with the files of an
// undisturbed rollback.
TEST(RollbackTest, SurvivesACrashAtEveryStep) {
  testing::TempDir base;
  TagTestTable built(base, {});
  built.BuildThreeTagsAndExpire();
  built.Append({5});  // snapshot 5: (3, 4, 5)
  built.Tag("t5", 5);
  ChangelogManager built_changelogs(built.table->io(), built.table->path());
  ASSERT_OK(built_changelogs.Commit(built.table->snapshots().LoadTag("t3").value()));
  const std::map<int64_t, std::multiset<int64_t>> model = {
      {1, {1}}, {2, {1, 2}}, {3, {3}}, {4, {3, 4}}, {5, {3, 4, 5}}};
  const std::map<std::string, int64_t> tags = {{"t1", 1}, {"t2", 2}, {"t3", 3}, {"t5", 5}};
  auto copy = [&](const testing::TempDir& to) { return built.CopyTo(to); };
  testing::TempDir reference_dir;
  std::string reference = copy(reference_dir);
  ASSERT_OK(Rollback(*FileStoreTable::Open(reference).value(), ToTag("t2")).status());
  const std::set<std::string> expected = TagTestTable::FilesOf(reference);
  int64_t crashes = 0;
  for (int64_t step = 1;; ++step) {
    testing::TempDir dir;
    std::string path = copy(dir);
    auto faulty = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
    auto table = std::move(FileStoreTable::Open(path, faulty)).value();
    faulty->FailAt(step, FaultInjectionFileIO::Mode::kCrash);
    Result<RollbackOutcome> crashed = Rollback(*table, ToTag("t2"));
    if (!faulty->crashed()) {
      ASSERT_TRUE(crashed.ok()) << crashed.status().ToString();
      EXPECT_EQ(TagTestTable::FilesOf(path), expected);
      break;
    }
    ++crashes;
    EXPECT_FALSE(crashed.ok());
    auto fresh = std::move(FileStoreTable::Open(path)).value();
    const std::vector<int64_t> ids = fresh->snapshots().ListIds().value();
    for (int64_t id : ids) {
      ASSERT_TRUE(model.count(id)) << "snapshot " << id << " step " << step;
      EXPECT_EQ(SnapshotRows(path, id), model.at(id)) << "step " << step << " snapshot " << id;
    }
    const std::vector<std::string> names = fresh->snapshots().ListTags().value();
    for (const std::string& name : names) {
      ASSERT_TRUE(tags.count(name)) << name;
      EXPECT_EQ(TagTestTable::TagRowsOf(path, name), model.at(tags.at(name))) << step << name;
    }
    std::optional<int64_t> latest = fresh->snapshots().LatestId().value();
    ASSERT_TRUE(latest.has_value()) << step;
    EXPECT_EQ(TagTestTable::RowsOf(path, ReadRequest{}), model.at(*latest)) << step;
    ASSERT_OK(Rollback(*fresh, ToTag("t2")).status());
    EXPECT_EQ(VisibleFiles(path), expected) << "step " << step;
    ASSERT_LT(step, 200);
  }
  std::printf("rollback to an expired tag: %lld crash points, each retried\n",
              static_cast<long long>(crashes));
  EXPECT_GT(crashes, 8);
}

}  // namespace
}  // namespace fjord
