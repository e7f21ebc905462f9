// Manifest merging (behaviour.md §5.3): the base list of every snapshot stays bounded, ADD/DELETE
// pairs cancel, full compaction drops every DELETE; the data reads the same at every snapshot.
#include "fjord/table/commit/manifest_merge.h"
#include "commit_test_util.h"
#include "fjord/common/ids.h"
#include "fjord/format/avro/codec.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/commit/file_entry.h"

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

ListedEntries Inspect(const FileStoreTable& table, const Snapshot& s, bool base_only = false) {
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

// A large first manifest followed by manifests that delete nothing is merged by copying its
// blocks: the result reads as the rewrite would (same entries, same order) and is described
// alike (counts, partition statistics, bucket and level ranges); a later DELETE, or a first
// manifest another writer produced, falls back to the rewrite.
TEST(ManifestMergeTest, CopyMergeEqualsRewrite) {
  testing::TempDir tmp;
  TableDef def;
  def.partition_keys = {"p"};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  std::vector<DataTypePtr> types = {table->schema().fields[1].type->WithNullable(true)};
  ManifestFileWriter writer(table->io(), TablePaths{table->path()}, table->schema(), {}, "avro",
                            8 << 20);
  auto entry = [&](FileKind kind, const std::string& name, std::optional<std::string> p,
                   int32_t bucket, int32_t level) {
    ManifestEntry e;
    e.kind = kind;
    e.partition = EncodeStoredBinaryRow({p ? Value(*p) : Value()}, types).value();
    e.bucket = bucket;
    e.total_buckets = 4;
    e.file.file_name = name;
    e.file.level = level;
    std::string empty = EncodeStoredBinaryRow({}, {}).value();
    e.file.min_key = e.file.max_key = empty;
    e.file.key_stats = e.file.value_stats =
        SimpleStats{empty, empty, std::vector<std::optional<int64_t>>{}};
    e.file.row_count = 1;
    return e;
  };
  std::vector<ManifestEntry> history;
  for (int i = 0; i < 5000; ++i) {  // random names: a manifest that compresses like real ones
    history.push_back(entry(FileKind::kAdd, "h" + std::to_string(i) + "-" + RandomUuid(),
                            std::string(1, static_cast<char>('c' + i % 20)), i % 3, 0));
  }
  ASSERT_OK_AND_ASSIGN(auto base, writer.Write(history));
  ASSERT_EQ(base.size(), 1u);
  ASSERT_GE(base[0].file_size, kCopyMergeMinSize);
  std::vector<ManifestFileMeta> input = base;
  std::vector<ManifestEntry> all = history;
  std::vector<std::optional<std::string>> parts = {"a", std::nullopt, "zz", "m"};
  for (int i = 0; i < 4; ++i) {
    ManifestEntry e = entry(FileKind::kAdd, "n" + std::to_string(i), parts[i], 3, 4 + i % 2);
    all.push_back(e);
    ASSERT_OK_AND_ASSIGN(auto m, writer.Write({e}));
    input.push_back(m[0]);
  }
  ManifestMergeOptions options;
  options.merge_min_count = 5;
  std::vector<ManifestFileMeta> written;
  ASSERT_OK_AND_ASSIGN(auto merged,
                       MergeManifests(input, writer, table->schema(), options, &written));
  ASSERT_EQ(merged.size(), 1u);
  ASSERT_EQ(written.size(), 1u);
  // Copied: the new file begins with the base's bytes.
  ASSERT_OK_AND_ASSIGN(std::string base_bytes,
                       table->io()->ReadFile(table->path() + "/manifest/" + base[0].file_name));
  ASSERT_OK_AND_ASSIGN(std::string merged_bytes,
                       table->io()->ReadFile(table->path() + "/manifest/" + merged[0].file_name));
  EXPECT_EQ(merged_bytes.compare(0, base_bytes.size(), base_bytes), 0);
  EXPECT_EQ(merged[0].file_size, static_cast<int64_t>(merged_bytes.size()));
  ASSERT_OK_AND_ASSIGN(auto entries, writer.Read(merged[0]));
  ASSERT_EQ(entries.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(entries[i].file.file_name, all[i].file.file_name) << i;
    EXPECT_EQ(entries[i].partition, all[i].partition) << i;
  }
  // Described as a rewrite of the same entries is.
  ASSERT_OK_AND_ASSIGN(auto rewritten, writer.Write(all));
  ASSERT_EQ(rewritten.size(), 1u);
  const ManifestFileMeta& a = merged[0];
  const ManifestFileMeta& b = rewritten[0];
  EXPECT_EQ(a.num_added_files, b.num_added_files);
  EXPECT_EQ(a.num_deleted_files, b.num_deleted_files);
  EXPECT_EQ(a.partition_stats.min_values, b.partition_stats.min_values);
  EXPECT_EQ(a.partition_stats.max_values, b.partition_stats.max_values);
  EXPECT_EQ(a.partition_stats.null_counts, b.partition_stats.null_counts);
  EXPECT_EQ(a.min_bucket, b.min_bucket);
  EXPECT_EQ(a.max_bucket, b.max_bucket);
  EXPECT_EQ(a.min_level, b.min_level);
  EXPECT_EQ(a.max_level, b.max_level);
  EXPECT_EQ(a.schema_id, b.schema_id);

  // A DELETE after the large manifest: rewritten, the pair cancelled.
  ASSERT_OK_AND_ASSIGN(auto del,
                       writer.Write({entry(FileKind::kDelete, history[7].file.file_name,
                                           std::string(1, static_cast<char>('c' + 7)), 1, 0)}));
  input.back() = del[0];
  written.clear();
  ASSERT_OK_AND_ASSIGN(merged, MergeManifests(input, writer, table->schema(), options, &written));
  ASSERT_EQ(merged.size(), 1u);
  ASSERT_OK_AND_ASSIGN(entries, writer.Read(merged[0]));
  EXPECT_EQ(entries.size(), history.size() + 2);  // history - h7 + n0..n2
  for (const ManifestEntry& e : entries) EXPECT_NE(e.file.file_name, history[7].file.file_name);

  // A large first manifest with another codec (not what this writer writes): rewritten.
  ManifestWriterOptions deflate;
  deflate.codec = avro::Codec::kDeflate;
  ManifestFileWriter other(table->io(), TablePaths{table->path()}, table->schema(), deflate, "avro",
                           8 << 20);
  ASSERT_OK_AND_ASSIGN(auto foreign, other.Write(history));
  ASSERT_GE(foreign[0].file_size, kCopyMergeMinSize);
  input[0] = foreign[0];
  written.clear();
  ASSERT_OK_AND_ASSIGN(auto two, writer.Write({entry(FileKind::kAdd, "n9", "b", 0, 0)}));
  input.back() = two[0];
  ASSERT_OK_AND_ASSIGN(merged, MergeManifests(input, writer, table->schema(), options, &written));
  ASSERT_EQ(merged.size(), 1u);
  ASSERT_OK_AND_ASSIGN(merged_bytes,
                       table->io()->ReadFile(table->path() + "/manifest/" + merged[0].file_name));
  ASSERT_OK_AND_ASSIGN(std::string foreign_bytes,
                       table->io()->ReadFile(table->path() + "/manifest/" + foreign[0].file_name));
  EXPECT_NE(
      merged_bytes.compare(0, std::min(foreign_bytes.size(), merged_bytes.size()), foreign_bytes),
      0);
  ASSERT_OK_AND_ASSIGN(entries, writer.Read(merged[0]));
  EXPECT_EQ(entries.size(), history.size() + 4);
}

}  // namespace
}  // namespace fjord
