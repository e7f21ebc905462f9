// Manifest merging (behaviour.md §5.3): the base list of every snapshot stays bounded, ADD/DELETE
// pairs cancel, full compaction drops every DELETE; the data reads the same at every snapshot.
#include "fjord/table/manifest_merge.h"
#include "commit_test_util.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/file_entry.h"

namespace fjord {
namespace {

using commit_test::CreateTable;
using commit_test::Prepare;
using commit_test::Range;
using commit_test::ReadIds;
using commit_test::Rows;
using commit_test::TableDef;

struct ListedEntries {
  size_t manifests = 0;
  int64_t adds = 0, deletes = 0;
};

ListedEntries Inspect(const Table& table, const Snapshot& s, bool base_only = false) {
  std::vector<std::string> lists = {s.base_manifest_list};
  if (!base_only) lists.push_back(s.delta_manifest_list);
  ListedEntries out;
  for (const std::string& list : lists) {
    auto manifests =
        ReadManifestList(table.io().get(), table.path() + "/manifest/" + list, "avro").value();
    out.manifests += manifests.size();
    for (const ManifestFileMeta& m : manifests) {
      out.adds += m.num_added_files;
      out.deletes += m.num_deleted_files;
    }
  }
  return out;
}

TEST(ManifestMergeTest, SnapshotsReferenceABoundedNumberOfManifests) {
  testing::TempDir tmp;
  TableDef def;
  def.partition_keys = {"p"};
  def.options = {{"manifest.merge-min-count", "5"}};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  FileStoreCommit commit(table->io(), table->path(), table->schema(), "u");
  size_t most = 0;
  int64_t merged = 0;
  for (int c = 1; c <= 40; ++c) {
    ASSERT_OK_AND_ASSIGN(auto m, Prepare(*table, Rows(Range(c * 10, 2), c % 3 ? "a" : "b")));
    ASSERT_OK(commit.Commit(m, c).status());
    merged += commit.last_stats().manifests_merged;
    ASSERT_OK_AND_ASSIGN(auto latest, table->snapshots().Latest());
    ListedEntries e = Inspect(*table, *latest);
    most = std::max(most, e.manifests);
    EXPECT_EQ(e.adds, c);  // no file is listed twice
  }
  EXPECT_LE(most, 6u);  // < 5 in the trailing group, + 1 merged, + the delta
  EXPECT_GE(merged, 40 / 5 - 1);
  std::vector<int64_t> expected;
  for (int c = 1; c <= 40; ++c) {
    for (int64_t id : Range(c * 10, 2)) expected.push_back(id);
  }
  ASSERT_OK_AND_ASSIGN(auto ids, ReadIds(table->path()));
  EXPECT_EQ(ids, expected);
  for (int64_t at : {1, 7, 23}) {
    ASSERT_OK_AND_ASSIGN(auto old, ReadIds(table->path(), at));
    EXPECT_EQ(old.size(), static_cast<size_t>(2 * at));
  }
}

TEST(ManifestMergeTest, MergingCancelsAddDeletePairsAndKeepsUnmatchedDeletes) {
  testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", TableDef{}));
  ManifestFileWriter writer(table->io(), TablePaths{table->path()}, table->schema(), {}, "avro",
                            8 << 20);
  auto entry = [&](FileKind kind, const std::string& name) {
    ManifestEntry e;
    e.kind = kind;
    e.partition = EncodeStoredBinaryRow({}, {}).value();
    e.bucket = 0;
    e.total_buckets = -1;
    e.file.file_name = name;
    e.file.min_key = e.file.max_key = e.partition;
    e.file.key_stats = e.file.value_stats =
        SimpleStats{e.partition, e.partition, std::vector<std::optional<int64_t>>{}};
    e.file.row_count = 1;
    return e;
  };
  ASSERT_OK_AND_ASSIGN(auto m1,
                       writer.Write({entry(FileKind::kAdd, "a"), entry(FileKind::kAdd, "b")}));
  ASSERT_OK_AND_ASSIGN(auto m2,
                       writer.Write({entry(FileKind::kDelete, "a"), entry(FileKind::kAdd, "c"),
                                     entry(FileKind::kDelete, "elsewhere")}));
  std::vector<ManifestFileMeta> input = {m1[0], m2[0]};
  ManifestMergeOptions options;
  options.merge_min_count = 2;
  std::vector<ManifestFileMeta> written;
  ASSERT_OK_AND_ASSIGN(auto merged,
                       MergeManifests(input, writer, table->schema(), options, &written));
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(written.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto entries, writer.Read(merged[0]));
  std::vector<std::pair<FileKind, std::string>> got;
  for (const ManifestEntry& e : entries) got.emplace_back(e.kind, e.file.file_name);
  std::vector<std::pair<FileKind, std::string>> want = {
      {FileKind::kAdd, "b"}, {FileKind::kAdd, "c"}, {FileKind::kDelete, "elsewhere"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(merged[0].num_added_files, 2);
  EXPECT_EQ(merged[0].num_deleted_files, 1);
  // Below the minimum count nothing is rewritten.
  options.merge_min_count = 3;
  written.clear();
  ASSERT_OK_AND_ASSIGN(merged, MergeManifests(input, writer, table->schema(), options, &written));
  EXPECT_EQ(merged.size(), 2u);
  EXPECT_TRUE(written.empty());
  // A full compaction (threshold reached) drops every DELETE with the ADD it cancels, the
  // unmatched one too.
  options.full_compaction_threshold_size = 1;
  ASSERT_OK_AND_ASSIGN(merged, MergeManifests(input, writer, table->schema(), options, &written));
  ASSERT_EQ(merged.size(), 1u);
  ASSERT_OK_AND_ASSIGN(entries, writer.Read(merged[0]));
  got.clear();
  for (const ManifestEntry& e : entries) got.emplace_back(e.kind, e.file.file_name);
  want = {{FileKind::kAdd, "b"}, {FileKind::kAdd, "c"}};
  EXPECT_EQ(got, want);
  // Entries are split into several files when over the target size.
  ManifestFileWriter small(table->io(), TablePaths{table->path()}, table->schema(), {}, "avro",
                           2000);
  std::vector<ManifestEntry> many;
  for (int i = 0; i < 200; ++i) many.push_back(entry(FileKind::kAdd, "f" + std::to_string(i)));
  ASSERT_OK_AND_ASSIGN(auto rolled, small.Write(many));
  EXPECT_GT(rolled.size(), 1u);
  int64_t total = 0;
  for (size_t i = 0; i < rolled.size(); ++i) {
    total += rolled[i].num_added_files;
    // As Java's rolling writer: every file but the last reaches the target size ...
    if (i + 1 < rolled.size()) {
      EXPECT_GE(rolled[i].file_size, 2000) << i;
    }
  }
  EXPECT_EQ(total, 200);
  // ... so that the next minor compaction leaves the full ones alone (files split below the
  // target would be merged again by every commit).
  ASSERT_OK_AND_ASSIGN(auto next, small.Write({entry(FileKind::kAdd, "new")}));
  std::vector<ManifestFileMeta> with_next = rolled;
  with_next.push_back(next[0]);
  ManifestMergeOptions small_options;
  small_options.target_file_size = 2000;
  small_options.merge_min_count = 30;
  written.clear();
  ASSERT_OK_AND_ASSIGN(merged,
                       MergeManifests(with_next, small, table->schema(), small_options, &written));
  ASSERT_GE(merged.size(), rolled.size() - 1);
  for (size_t i = 0; i + 1 < rolled.size(); ++i) {
    EXPECT_EQ(merged[i].file_name, rolled[i].file_name) << "full manifest " << i << " rewritten";
  }
}

TEST(ManifestMergeTest, FullCompactionLeavesNoDeleteEntriesInTheBase) {
  testing::TempDir tmp;
  TableDef def;
  def.partition_keys = {"p"};
  // Any must-change manifest triggers a full compaction.
  def.options = {{"manifest.full-compaction-threshold-size", "1"},
                 {"dynamic-partition-overwrite", "true"}};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  FileStoreCommit commit(table->io(), table->path(), table->schema(), "u");
  ASSERT_OK_AND_ASSIGN(auto a, Prepare(*table, Rows(Range(0, 5), "a")));
  ASSERT_OK(commit.Commit(a, 1).status());
  ASSERT_OK_AND_ASSIGN(auto b, Prepare(*table, Rows(Range(5, 5), "b")));
  ASSERT_OK(commit.Commit(b, 2).status());
  ASSERT_OK_AND_ASSIGN(auto a2, Prepare(*table, Rows(Range(100, 3), "a", 1)));
  ASSERT_OK(commit.Overwrite(a2, 3).status());  // DELETE a's file, ADD the new one
  ASSERT_OK_AND_ASSIGN(auto c, Prepare(*table, Rows(Range(200, 1), "c")));
  ASSERT_OK(commit.Commit(c, 4).status());
  ASSERT_OK_AND_ASSIGN(Snapshot s4, table->snapshots().Load(4));
  ListedEntries base = Inspect(*table, s4, /*base_only=*/true);
  EXPECT_EQ(base.deletes, 0);
  EXPECT_EQ(base.adds, 2);  // b's file and the overwrite's
  EXPECT_EQ(base.manifests, 1u);
  ASSERT_OK_AND_ASSIGN(auto ids, ReadIds(table->path()));
  std::vector<int64_t> want = {5, 6, 7, 8, 9, 100, 101, 102, 200};
  EXPECT_EQ(ids, want);
}

}  // namespace
}  // namespace fjord
