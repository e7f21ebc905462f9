// Conflict detection (spec/format.md §8.3): COMPACT and OVERWRITE commits, and APPENDs that
// delete files, are checked against the latest snapshot; each kind of conflict ends with a
// Status::Conflict naming the file, partition and bucket. Appends never conflict with appends.
// File metadata is made up here (the committer never opens data files).
#include <thread>

#include "commit_test_util.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/table/commit/conflict_check.h"
#include "fjord/table/read/scan.h"

namespace fjord {
namespace {

using commit_test::CreateTable;
using commit_test::TableDef;

std::string StoredRow(const std::vector<Value>& values, const std::vector<DataTypePtr>& types) {
  return EncodeStoredBinaryRow(values, types).value();
}

// A data file of `rows` rows; for primary-key tables with a BIGINT key, keys [min_key, max_key].
DataFileMeta File(const std::string& name, int32_t level = 0, int64_t min_key = 0,
                  int64_t max_key = 0, bool pk = false) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = 100;
  f.row_count = 10;
  std::string empty = StoredRow({}, {});
  if (pk) {
    DataTypePtr bigint = ParseColumnList("k BIGINT NOT NULL").value()[0].type;
    f.min_key = StoredRow({Value(min_key)}, {bigint});
    f.max_key = StoredRow({Value(max_key)}, {bigint});
  } else {
    f.min_key = f.max_key = empty;
  }
  f.key_stats = SimpleStats{empty, empty, std::vector<std::optional<int64_t>>{}};
  f.value_stats = SimpleStats{empty, empty, std::vector<std::optional<int64_t>>{}};
  f.value_stats_cols = std::vector<std::string>{};
  f.level = level;
  f.file_source = level == 0 ? 0 : 1;
  f.delete_row_count = 0;
  return f;
}

struct Fixture {
  testing::TempDir tmp;
  std::unique_ptr<FileStoreTable> table;
  std::string partition;  // stored row of p = 'a' (or the empty row)

  explicit Fixture(TableDef def) {
    auto t = CreateTable(tmp.Join("wh"), "t", def);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    table = std::move(*t);
    if (def.partition_keys.empty()) {
      partition = StoredRow({}, {});
    } else {
      DataTypePtr str = table->schema().FieldsByName({"p"})[0].type->WithNullable(true);
      partition = StoredRow({Value(std::string("a"))}, {str});
    }
  }
  FileStoreCommit Committer(const std::string& user) const {
    return FileStoreCommit(table->io(), table->path(), table->schema(), user);
  }
  CommitMessage Message(int32_t total_buckets = -1, int32_t bucket = 0) const {
    CommitMessage m;
    m.partition = partition;
    m.bucket = bucket;
    m.total_buckets = total_buckets;
    return m;
  }
};

TEST(CommitConflictTest, DeletingAFileThatIsNoLongerLiveIsAFileDeletionConflict) {
  TableDef def;
  def.partition_keys = {"p"};
  Fixture fx(def);
  CommitMessage add = fx.Message();
  add.new_files = {File("f1"), File("f2")};
  ASSERT_OK(fx.Committer("writer").Commit({add}, 1).status());

  // Compaction 1 rewrites f1 and f2; compaction 2, planned on the same snapshot, loses.
  CommitMessage c1 = fx.Message();
  c1.compact_before = {File("f1"), File("f2")};
  c1.compact_after = {File("g1", 0)};
  ASSERT_OK_AND_ASSIGN(auto s2, fx.Committer("compactor-1").Commit({c1}, 1));
  EXPECT_EQ(s2, std::optional<int64_t>(2));
  ASSERT_OK_AND_ASSIGN(Snapshot snap, fx.table->snapshots().Load(2));
  EXPECT_EQ(snap.commit_kind, CommitKind::kCompact);

  CommitMessage c2 = fx.Message();
  c2.compact_before = {File("f1")};
  c2.compact_after = {File("g2", 0)};
  auto result = fx.Committer("compactor-2").Commit({c2}, 1);
  EXPECT_THAT(result, IsError(StatusCode::kConflict, "File deletion conflicts detected"));
  EXPECT_THAT(result, IsError(StatusCode::kConflict, "partition p=a, bucket 0, level 0, file f1"));
  EXPECT_THAT(result, IsError(StatusCode::kConflict, "commit user 'compactor-1'"));
  ASSERT_OK_AND_ASSIGN(auto ids, fx.table->snapshots().ListIds());
  EXPECT_EQ(ids.size(), 2u);  // nothing of the conflicting commit

  // Adding a file that is live already is a conflict too.
  CommitMessage c3 = fx.Message();
  c3.compact_after = {File("g1", 0)};
  EXPECT_THAT(fx.Committer("compactor-3").Commit({c3}, 1),
              IsError(StatusCode::kConflict, "file g1, which is live already"));
  // So is a commit that deletes and re-adds one file.
  CommitMessage c4 = fx.Message();
  c4.compact_before = {File("g1", 0)};
  c4.compact_after = {File("g1", 0)};
  EXPECT_THAT(fx.Committer("compactor-4").Commit({c4}, 1),
              IsError(StatusCode::kConflict, "deletes and re-adds"));
}

TEST(CommitConflictTest, AnAppendThatDeletesFilesIsAnOverwriteAndChecked) {
  Fixture fx(TableDef{});
  CommitMessage add = fx.Message();
  add.new_files = {File("f1"), File("f2")};
  ASSERT_OK(fx.Committer("w").Commit({add}, 1).status());

  CommitMessage replace = fx.Message();
  replace.new_files = {File("f3")};
  replace.deleted_files = {File("f1")};
  ASSERT_OK_AND_ASSIGN(auto id, fx.Committer("w").Commit({replace}, 2));
  ASSERT_OK_AND_ASSIGN(Snapshot s, fx.table->snapshots().Load(*id));
  EXPECT_EQ(s.commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(s.delta_record_count, 0);

  CommitMessage again = fx.Message();
  again.deleted_files = {File("f1")};
  EXPECT_THAT(fx.Committer("w").Commit({again}, 3),
              IsError(StatusCode::kConflict, "Trying to delete bucket 0, level 0, file f1"));
}

TEST(CommitConflictTest, ChangedTotalBucketsConflictOnlyWithoutOverwrite) {
  TableDef def;
  def.partition_keys = {"p"};
  def.options = {{"bucket", "2"}, {"bucket-key", "id"}};
  Fixture fx(def);
  CommitMessage add = fx.Message(2);
  add.new_files = {File("f1")};
  ASSERT_OK(fx.Committer("w").Commit({add}, 1).status());
  // Appends are not checked (Java checks them only when restoring or told to).
  CommitMessage append3 = fx.Message(3);
  append3.new_files = {File("f2")};
  ASSERT_OK(fx.Committer("w").Commit({append3}, 2).status());

  CommitMessage compact = fx.Message(3, 1);
  compact.compact_after = {File("h1", 0)};
  EXPECT_THAT(fx.Committer("c").Commit({compact}, 1),
              IsError(StatusCode::kConflict,
                      "Total buckets of partition p=a changed from 2 to 3 without overwrite"));
}

TEST(CommitConflictTest, OverlappingKeyRangesAtLevelOneAreAnLsmConflict) {
  TableDef def;
  def.primary_keys = {"id"};
  def.options = {{"bucket", "1"}};
  Fixture fx(def);
  CommitMessage l0 = fx.Message(1);
  l0.new_files = {File("a", 0, 0, 100, true), File("b", 0, 50, 150, true)};
  ASSERT_OK(fx.Committer("w").Commit({l0}, 1).status());

  CommitMessage c1 = fx.Message(1);
  c1.compact_before = {File("a", 0, 0, 100, true)};
  c1.compact_after = {File("a1", 1, 0, 100, true)};
  ASSERT_OK(fx.Committer("c1").Commit({c1}, 1).status());
  // A compaction that puts an overlapping file into level 1 conflicts.
  CommitMessage c2 = fx.Message(1);
  c2.compact_before = {File("b", 0, 50, 150, true)};
  c2.compact_after = {File("b1", 1, 50, 150, true)};
  auto result = fx.Committer("c2").Commit({c2}, 1);
  EXPECT_THAT(result, IsError(StatusCode::kConflict, "LSM conflicts detected"));
  EXPECT_THAT(result, IsError(StatusCode::kConflict,
                              "bucket 0, level 1, file a1 and bucket 0, "
                              "level 1, file b1"));
  // Touching key ranges overlap too (max of one = min of the next).
  CommitMessage c3 = fx.Message(1);
  c3.compact_before = {File("b", 0, 50, 150, true)};
  c3.compact_after = {File("b2", 1, 100, 150, true)};
  EXPECT_THAT(fx.Committer("c3").Commit({c3}, 1),
              IsError(StatusCode::kConflict, "LSM conflicts detected"));
  // Disjoint ranges, or another level, are fine.
  CommitMessage c4 = fx.Message(1);
  c4.compact_before = {File("b", 0, 50, 150, true)};
  c4.compact_after = {File("b3", 1, 101, 150, true), File("b4", 2, 0, 150, true)};
  ASSERT_OK(fx.Committer("c4").Commit({c4}, 1).status());
}

TEST(CommitConflictTest, OfTwoRacingCompactionsOfOneFileExactlyOneWins) {
  Fixture fx(TableDef{});
  CommitMessage add = fx.Message();
  add.new_files = {File("f1"), File("f2")};
  ASSERT_OK(fx.Committer("w").Commit({add}, 1).status());
  for (int round = 0; round < 3; ++round) {
    std::vector<Status> results(2);
    std::vector<std::thread> threads;
    std::string before = round == 0 ? "f1" : "r" + std::to_string(round - 1) + "-0";
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        CommitMessage c = fx.Message();
        c.compact_before = {File(before)};
        c.compact_after = {File("r" + std::to_string(round) + "-" + std::to_string(i))};
        results[i] = fx.Committer("c" + std::to_string(i)).Commit({c}, round + 1).status();
      });
    }
    for (auto& t : threads) t.join();
    int ok = results[0].ok() + results[1].ok();
    ASSERT_EQ(ok, 1) << results[0].ToString() << " / " << results[1].ToString();
    const Status& lost = results[0].ok() ? results[1] : results[0];
    EXPECT_TRUE(lost.IsConflict()) << lost.ToString();
    EXPECT_NE(lost.message().find("file " + before), std::string::npos) << lost.ToString();
    if (!results[0].ok()) {
      // Keep the file names predictable: the winner's output is what the next round compacts.
      CommitMessage swap = fx.Message();
      swap.compact_before = {File("r" + std::to_string(round) + "-1")};
      swap.compact_after = {File("r" + std::to_string(round) + "-0")};
      ASSERT_OK(fx.Committer("swap").Commit({swap}, round + 1).status());
    }
  }
}

// Every operation fails ("the process died") right after snapshot `crash_after` was created.
class CrashAfterSnapshotIO : public FaultInjectionFileIO {
 public:
  using FaultInjectionFileIO::FaultInjectionFileIO;
  int64_t crash_after = 0;
  Status CreateIfAbsent(const std::string& path, std::string_view data) override {
    Status st = FaultInjectionFileIO::CreateIfAbsent(path, data);
    if (st.ok() && crash_after > 0 &&
        path.substr(path.rfind('/') + 1) == "snapshot-" + std::to_string(crash_after)) {
      FailAt(1, Mode::kCrash);
    }
    return st;
  }
};

std::set<std::string> LiveFiles(const FileStoreTable& table) {
  std::set<std::string> names;
  auto latest = table.snapshots().Latest();
  EXPECT_TRUE(latest.ok() && latest->has_value());
  TableScan scan(table.io(), table.path(), table.schema());
  auto entries = scan.LiveEntries(**latest, nullptr);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  for (const ManifestEntry& e : *entries) names.insert(e.file.file_name);
  return names;
}

// A commit whose APPEND snapshot landed but whose COMPACT snapshot did not (the commit failed,
// or the process died, between the two). Java's filter-committed rule counts the identifier as
// committed; a writer that lives on believing the compaction committed then deletes the
// compaction's output with its next compaction: a file deletion conflict. With
// set_complete_compaction the retry commits the missing COMPACT snapshot instead.
TEST(CommitConflictTest, RetryAfterOnlyTheAppendLandedCommitsTheCompaction) {
  TableDef def;
  def.partition_keys = {"p"};
  Fixture fx(def);
  auto io = std::make_shared<CrashAfterSnapshotIO>(fx.table->io());
  auto committer = [&] { return FileStoreCommit(io, fx.table->path(), fx.table->schema(), "job"); };
  CommitMessage add = fx.Message();
  add.new_files = {File("f1"), File("f2")};
  ASSERT_OK(committer().Commit({add}, 1).status());

  // Checkpoint 2: a new file, and f1 + f2 compacted into g1. Only its APPEND snapshot lands.
  CommitMessage second = fx.Message();
  second.new_files = {File("f3")};
  second.compact_before = {File("f1"), File("f2")};
  second.compact_after = {File("g1")};
  io->crash_after = 2;
  EXPECT_FALSE(committer().Commit({second}, 2).ok());
  io->crash_after = 0;
  io->FailAt(0, FaultInjectionFileIO::Mode::kFail);
  ASSERT_OK_AND_ASSIGN(Snapshot append, fx.table->snapshots().Load(2));
  EXPECT_EQ(append.commit_kind, CommitKind::kAppend);
  ASSERT_OK_AND_ASSIGN(auto ids, fx.table->snapshots().ListIds());
  EXPECT_EQ(ids.size(), 2u);

  // By default (Java's filter-committed rule) the identifier counts as committed.
  FileStoreCommit java = committer();
  ASSERT_OK_AND_ASSIGN(auto id, java.Commit({second}, 2));
  EXPECT_EQ(id, std::nullopt);
  EXPECT_TRUE(java.last_stats().already_committed);
  // The writer's next compaction rewrites g1, which the table never had.
  CommitMessage third = fx.Message();
  third.compact_before = {File("g1"), File("f3")};
  third.compact_after = {File("g2")};
  EXPECT_THAT(committer().Commit({third}, 3),
              IsError(StatusCode::kConflict, "file g1, which is not live in snapshot 2"));

  // A committer that completes compactions commits the compaction alone, same identifier.
  FileStoreCommit retry = committer();
  retry.set_complete_compaction(true);
  ASSERT_OK_AND_ASSIGN(id, retry.Commit({second}, 2));
  EXPECT_EQ(id, std::optional<int64_t>(3));
  EXPECT_FALSE(retry.last_stats().already_committed);
  ASSERT_OK_AND_ASSIGN(Snapshot compact, fx.table->snapshots().Load(3));
  EXPECT_EQ(compact.commit_kind, CommitKind::kCompact);
  EXPECT_EQ(compact.commit_identifier, 2);
  EXPECT_EQ(LiveFiles(*fx.table), (std::set<std::string>{"f3", "g1"}));
  // Now the identifier is committed whole.
  ASSERT_OK_AND_ASSIGN(id, retry.Commit({second}, 2));
  EXPECT_EQ(id, std::nullopt);
  EXPECT_TRUE(retry.last_stats().already_committed);

  // Now the writer's next compaction commits.
  ASSERT_OK(committer().Commit({third}, 3).status());
  EXPECT_EQ(LiveFiles(*fx.table), (std::set<std::string>{"g2"}));

  // A commit without a compaction whose APPEND landed is committed whole, as before.
  CommitMessage fourth = fx.Message();
  fourth.new_files = {File("f4")};
  ASSERT_OK(committer().Commit({fourth}, 4).status());
  ASSERT_OK_AND_ASSIGN(id, retry.Commit({fourth}, 4));
  EXPECT_EQ(id, std::nullopt);
  EXPECT_TRUE(retry.last_stats().already_committed);
}

TEST(CommitConflictTest, CheckerOnItsOwn) {
  TableDef def;
  def.partition_keys = {"p"};
  Fixture fx(def);
  ManifestEntry live{FileKind::kAdd, fx.partition, 0, 2, File("x")};
  ManifestEntry gone{FileKind::kDelete, fx.partition, 0, 2, File("y")};
  ConflictContext ctx{"me", "them", 7};
  EXPECT_OK(CheckConflicts({live}, {}, CommitKind::kCompact, fx.table->schema(),
                           fx.table->core_options(), ctx));
  EXPECT_THAT(CheckConflicts({live}, {gone}, CommitKind::kCompact, fx.table->schema(),
                             fx.table->core_options(), ctx),
              IsError(StatusCode::kConflict, "not live in snapshot 7"));
  ManifestEntry three{FileKind::kAdd, fx.partition, 1, 3, File("z")};
  EXPECT_THAT(CheckConflicts({live}, {three}, CommitKind::kCompact, fx.table->schema(),
                             fx.table->core_options(), ctx),
              IsError(StatusCode::kConflict, "changed from 2 to 3"));
  EXPECT_OK(CheckConflicts({live}, {three}, CommitKind::kOverwrite, fx.table->schema(),
                           fx.table->core_options(), ctx));
}

}  // namespace
}  // namespace fjord
