// Overwrite commits (spec/format.md §8.5, behaviour.md §5.5): dynamic partition overwrite,
// static (full and partial) partition overwrite, whole-table overwrite, truncate and drop
// partition, on append and primary-key tables.
#include "commit_test_util.h"
#include "fjord/meta/manifest.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {
namespace {

using commit_test::CreateTable;
using commit_test::Prepare;
using commit_test::Range;
using commit_test::ReadRows;
using commit_test::Rows;
using commit_test::TableDef;

using RowList = std::vector<std::pair<int64_t, std::string>>;

RowList Expect(const std::vector<std::pair<std::vector<int64_t>, int>>& parts) {
  RowList out;
  for (const auto& [ids, version] : parts) {
    for (int64_t id : ids) {
      out.emplace_back(id, "v" + std::to_string(id) + "-" + std::to_string(version));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Partitions a, b, c with ids 0-9, 10-19, 20-29 (version 0), one commit.
void Fill(const FileStoreTable& table, FileStoreCommit* commit) {
  std::vector<CommitMessage> all;
  for (int i = 0; i < 3; ++i) {
    auto m = Prepare(table, Rows(Range(i * 10, 10), std::string(1, 'a' + i)));
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    all.insert(all.end(), m->begin(), m->end());
  }
  ASSERT_OK(commit->Commit(all, 1).status());
}

class OverwriteTest : public ::testing::TestWithParam<bool> {  // primary key or not
 protected:
  TableDef Def() const {
    TableDef def;
    def.partition_keys = {"p"};
    if (GetParam()) {
      def.primary_keys = {"id", "p"};
      def.options = {{"bucket", "2"}};
    }
    return def;
  }
};

TEST_P(OverwriteTest, DynamicReplacesOnlyThePartitionsOfTheNewData) {
  testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", Def()));
  FileStoreCommit commit(table->io(), table->path(), table->schema(), "u");
  Fill(*table, &commit);
  ASSERT_OK_AND_ASSIGN(auto messages, Prepare(*table, Rows({3, 4, 100}, "a", 1)));
  ASSERT_OK_AND_ASSIGN(auto id, commit.Overwrite(messages, 2));
  ASSERT_EQ(id, std::optional<int64_t>(2));
  ASSERT_OK_AND_ASSIGN(Snapshot s, table->snapshots().Load(2));
  EXPECT_EQ(s.commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(s.total_record_count, 23);
  EXPECT_EQ(s.delta_record_count, -7);
  ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{{3, 4, 100}, 1}, {Range(10, 20), 0}}));
  // Nothing new: nothing replaced, no snapshot.
  ASSERT_OK_AND_ASSIGN(auto none, commit.Overwrite({}, 3));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK_AND_ASSIGN(auto latest, table->snapshots().LatestId());
  EXPECT_EQ(latest, std::optional<int64_t>(2));
  // The same (user, identifier) again is a no-op.
  ASSERT_OK_AND_ASSIGN(auto again, commit.Overwrite(messages, 2));
  EXPECT_FALSE(again.has_value());
}

TEST_P(OverwriteTest, StaticPartitionWholeTableTruncateAndDrop) {
  testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", Def()));
  FileStoreCommit commit(table->io(), table->path(), table->schema(), "u",
                         {{"dynamic-partition-overwrite", "false"}});
  Fill(*table, &commit);
  // Static: partition b replaced by rows of b.
  ASSERT_OK_AND_ASSIGN(auto b, Prepare(*table, Rows({11, 50}, "b", 1)));
  ASSERT_OK(commit.Overwrite(b, 2, {{"p", "b"}}).status());
  ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{Range(0, 10), 0}, {{11, 50}, 1}, {Range(20, 10), 0}}));
  // Static with no rows still empties the partition (unlike dynamic mode).
  ASSERT_OK(commit.Overwrite({}, 3, {{"p", "c"}}).status());
  ASSERT_OK_AND_ASSIGN(rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{Range(0, 10), 0}, {{11, 50}, 1}}));
  // Rows outside the static partition are refused, naming the partition.
  ASSERT_OK_AND_ASSIGN(auto stray, Prepare(*table, Rows({7}, "a", 2)));
  EXPECT_THAT(commit.Overwrite(stray, 4, {{"p", "b"}}),
              IsError(StatusCode::kInvalid, "is in partition p=a"));
  EXPECT_THAT(commit.Overwrite(stray, 4, {{"q", "b"}}),
              IsError(StatusCode::kInvalid, "'q' is not a partition column"));
  // Whole table: an empty spec with dynamic overwrite off.
  ASSERT_OK_AND_ASSIGN(auto whole, Prepare(*table, Rows({1, 2}, "z", 3)));
  ASSERT_OK(commit.Overwrite(whole, 5).status());
  ASSERT_OK_AND_ASSIGN(rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{{1, 2}, 3}}));
  // Drop partition, then truncate.
  ASSERT_OK_AND_ASSIGN(auto more, Prepare(*table, Rows({5}, "y", 4)));
  ASSERT_OK(commit.Commit(more, 6).status());
  ASSERT_OK(commit.DropPartitions({{{"p", "z"}}}, 7).status());
  ASSERT_OK_AND_ASSIGN(rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{{5}, 4}}));
  ASSERT_OK_AND_ASSIGN(auto truncated, commit.Truncate(8));
  ASSERT_OK_AND_ASSIGN(Snapshot s, table->snapshots().Load(*truncated));
  EXPECT_EQ(s.commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(s.total_record_count, 0);
  ASSERT_OK_AND_ASSIGN(rows, ReadRows(table->path()));
  EXPECT_TRUE(rows.empty());
  // Earlier snapshots still read as they were.
  ASSERT_OK_AND_ASSIGN(rows, ReadRows(table->path(), 1));
  EXPECT_EQ(rows.size(), 30u);
}

TEST_P(OverwriteTest, PartialStaticSpecOnTwoPartitionColumns) {
  testing::TempDir tmp;
  TableDef def = Def();
  def.columns = "id BIGINT NOT NULL, p STRING, v STRING, q INT";
  def.partition_keys = {"p", "q"};
  if (GetParam()) def.primary_keys = {"id", "p", "q"};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  FileStoreCommit commit(table->io(), table->path(), table->schema(), "u",
                         {{"dynamic-partition-overwrite", "false"}});
  auto rows_of = [](std::vector<int64_t> ids, std::string p, std::optional<int32_t> q, int ver) {
    auto base = Rows(ids, p, ver);
    arrow::Int32Builder qb;
    for (size_t i = 0; i < ids.size(); ++i) (void)(q ? qb.Append(*q) : qb.AppendNull());
    return base
        ->AddColumn(3, arrow::field("q", arrow::int32()),
                    std::make_shared<arrow::ChunkedArray>(qb.Finish().ValueOrDie()))
        .ValueOrDie();
  };
  std::vector<CommitMessage> all;
  for (auto [ids, p, q] : {std::tuple{Range(0, 3), "a", std::optional<int32_t>(1)},
                           std::tuple{Range(3, 3), "a", std::optional<int32_t>(2)},
                           std::tuple{Range(6, 3), "a", std::optional<int32_t>()},
                           std::tuple{Range(9, 3), "b", std::optional<int32_t>(1)}}) {
    if (!q && GetParam()) continue;  // primary-key columns are NOT NULL
    ASSERT_OK_AND_ASSIGN(auto m, Prepare(*table, rows_of(ids, p, q, 0)));
    all.insert(all.end(), m.begin(), m.end());
  }
  ASSERT_OK(commit.Commit(all, 1).status());
  // p=a (any q) replaced by one row in (a, 2).
  ASSERT_OK_AND_ASSIGN(auto m, Prepare(*table, rows_of({42}, "a", 2, 1)));
  ASSERT_OK(commit.Overwrite(m, 2, {{"p", "a"}}).status());
  ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{{42}, 1}, {Range(9, 3), 0}}));
  if (GetParam()) return;  // primary-key columns (partition columns included) are NOT NULL
  // NULL partition values through the default partition name.
  ASSERT_OK_AND_ASSIGN(auto n, Prepare(*table, rows_of({77}, "c", std::nullopt, 2)));
  ASSERT_OK(commit.Commit(n, 3).status());
  ASSERT_OK(commit.DropPartitions({{{"q", "__DEFAULT_PARTITION__"}}}, 4).status());
  ASSERT_OK_AND_ASSIGN(rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{{42}, 1}, {Range(9, 3), 0}}));
}

INSTANTIATE_TEST_SUITE_P(AppendAndPrimaryKey, OverwriteTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "PrimaryKey" : "Append"; });

TEST(OverwriteUpgradeTest, NonOverlappingNewFilesOfAPrimaryKeyTableGoToTheMaxLevel) {
  testing::TempDir tmp;
  TableDef def;
  def.primary_keys = {"id"};
  def.options = {{"bucket", "1"}};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  FileStoreCommit commit(table->io(), table->path(), table->schema(), "u");
  ASSERT_OK_AND_ASSIGN(auto first, Prepare(*table, Rows(Range(0, 10), "")));
  ASSERT_OK(commit.Commit(first, 1).status());
  ASSERT_OK_AND_ASSIGN(auto m, Prepare(*table, Rows(Range(5, 10), "", 1)));
  ASSERT_OK(commit.Overwrite(m, 2).status());
  ASSERT_OK_AND_ASSIGN(Snapshot s, table->snapshots().Load(2));
  ASSERT_OK_AND_ASSIGN(
      auto delta, ReadManifestList(table->io().get(),
                                   table->path() + "/manifest/" + s.delta_manifest_list, "avro"));
  int adds = 0, deletes = 0;
  for (const ManifestFileMeta& meta : delta) {
    ASSERT_OK_AND_ASSIGN(
        auto entries,
        ReadManifestFile(table->io().get(), table->path() + "/manifest/" + meta.file_name, "avro"));
    for (const ManifestEntry& e : entries) {
      if (e.kind == FileKind::kAdd) {
        ++adds;
        EXPECT_EQ(e.file.level, 5);  // num-levels = compaction trigger 5 + 1
      } else {
        ++deletes;
        EXPECT_EQ(e.file.level, 0);
      }
    }
  }
  EXPECT_EQ(adds, 1);
  EXPECT_EQ(deletes, 1);
  ASSERT_OK_AND_ASSIGN(auto rows, ReadRows(table->path()));
  EXPECT_EQ(rows, Expect({{Range(5, 10), 1}}));
  // With overwrite-upgrade off the files stay at level 0.
  FileStoreCommit plain(table->io(), table->path(), table->schema(), "v",
                        {{"overwrite-upgrade", "false"}});
  ASSERT_OK_AND_ASSIGN(auto m2, Prepare(*table, Rows(Range(0, 3), "", 2)));
  ASSERT_OK(plain.Overwrite(m2, 1).status());
  ASSERT_OK_AND_ASSIGN(auto plan, table->Plan(ScanSelector{}));
  ASSERT_EQ(plan.splits.size(), 1u);
  ASSERT_EQ(plan.splits[0].files.size(), 1u);
  EXPECT_EQ(plan.splits[0].files[0].level, 0);
}

}  // namespace
}  // namespace fjord
