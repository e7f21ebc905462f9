// A table created by the catalog, data files written by the data file writer, snapshots made by
// the committer: Fjord reads it back, and (tests/compat/java_commit_check.py) so does Java.
#include <arrow/api.h>

#include <cstdlib>

#include "fjord/common/ids.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/column_stats.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/append_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::shared_ptr<arrow::Table> Rows(int first, int count) {
  arrow::Int32Builder ids;
  arrow::StringBuilder names;
  arrow::DoubleBuilder values;
  for (int i = first; i < first + count; ++i) {
    (void)ids.Append(i);
    (void)names.Append("name-" + std::to_string(i));
    if (i % 3 == 0) {
      (void)values.AppendNull();
    } else {
      (void)values.Append(i * 1.5);
    }
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("name", arrow::utf8()),
                     arrow::field("v", arrow::float64())});
  return arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie(),
                                     values.Finish().ValueOrDie()});
}

Result<DataFileMeta> WriteFile(FileIO* io, const std::string& table_dir, const TableSchema& schema,
                               const arrow::Table& rows, int64_t first_seq) {
  std::string name = "data-" + RandomUuid() + "-0.parquet";
  FJORD_ASSIGN_OR_RAISE(DataFileWriteResult written,
                        WriteDataFile(io, table_dir + "/bucket-0/" + name, FileFormat::kParquet,
                                      schema.fields, rows));
  return AppendFileMeta(name, written, schema, /*dense_stats=*/true, first_seq);
}

TEST(CommitTest, AppendCommitsAreReadBackAndIdempotent) {
  testing::TempDir tmp;
  const char* keep = std::getenv("FJORD_TEST_WAREHOUSE");
  std::string warehouse = keep ? keep : tmp.Join("wh");
  ASSERT_OK_AND_ASSIGN(auto catalog, FileSystemCatalog::Open(warehouse));
  ASSERT_OK(catalog->CreateDatabase("db", true));
  TableIdentifier id{"db", "events"};
  (void)catalog->DropTable(id, true);
  TableSpec spec;
  ASSERT_OK_AND_ASSIGN(spec.fields, ParseColumnList("id INT, name STRING, v DOUBLE"));
  ASSERT_OK(catalog->CreateTable(id, spec));
  ASSERT_OK_AND_ASSIGN(auto table, catalog->GetTable(id));
  auto io = table->io();

  ASSERT_OK_AND_ASSIGN(std::string empty_row, EncodeStoredBinaryRow({}, {}));
  FileStoreCommit commit(io, table->path(), table->schema(), "fjord-test-user");
  ASSERT_OK_AND_ASSIGN(DataFileMeta f1,
                       WriteFile(io.get(), table->path(), table->schema(), *Rows(0, 5), 0));
  CommitMessage m1{empty_row, 0, -1, {f1}, {}};
  ASSERT_OK_AND_ASSIGN(auto s1, commit.Commit({m1}, 1));
  ASSERT_EQ(s1, std::optional<int64_t>(1));
  // Retrying the same identifier adds nothing.
  ASSERT_OK_AND_ASSIGN(auto again, commit.Commit({m1}, 1));
  EXPECT_FALSE(again.has_value());

  ASSERT_OK_AND_ASSIGN(DataFileMeta f2,
                       WriteFile(io.get(), table->path(), table->schema(), *Rows(5, 4), 5));
  ASSERT_OK_AND_ASSIGN(auto s2, commit.Commit({CommitMessage{empty_row, 0, -1, {f2}, {}}}, 2));
  ASSERT_EQ(s2, std::optional<int64_t>(2));

  ASSERT_OK_AND_ASSIGN(ReadResult latest, table->Read(ReadRequest{}));
  EXPECT_EQ(latest.rows->num_rows(), 9);
  ReadRequest first;
  first.selector.snapshot_id = 1;
  ASSERT_OK_AND_ASSIGN(ReadResult at1, table->Read(first));
  EXPECT_EQ(at1.rows->num_rows(), 5);
  ASSERT_OK_AND_ASSIGN(auto snap, table->snapshots().Load(2));
  EXPECT_EQ(snap.total_record_count, 9);
  EXPECT_EQ(snap.delta_record_count, 4);
  EXPECT_EQ(snap.commit_identifier, 2);
  // Statistics prune: ids 5..8 only in the second file.
  ASSERT_OK_AND_ASSIGN(ScanPlan plan, table->Plan(ScanSelector{}, "id >= 6"));
  ASSERT_EQ(plan.splits.size(), 1u);
  EXPECT_EQ(plan.splits[0].files.size(), 1u);
  EXPECT_EQ(plan.splits[0].files[0].file_name, f2.file_name);
}

IndexFileMeta Index(const std::string& type, const std::string& name) {
  IndexFileMeta f;
  f.index_type = type;
  f.file_name = name;
  f.file_size = 8;
  f.row_count = 2;
  if (type == "DELETION_VECTORS")
    f.dv_ranges = std::vector<DeletionVectorMeta>{{"data-x", 1, 4, 1}};
  return f;
}

std::vector<std::string> IndexNames(FileIO* io, const TablePaths& paths, const Snapshot& s) {
  std::vector<std::string> out;
  if (!s.index_manifest) return out;
  auto entries = ReadIndexManifest(io, paths.ManifestFile(*s.index_manifest), "avro");
  EXPECT_OK(entries.status());
  if (!entries.ok()) return out;
  for (const auto& e : *entries) {
    EXPECT_EQ(e.kind, FileKind::kAdd);
    out.push_back(e.index_type + ":" + std::to_string(e.bucket) + ":" + e.file_name);
  }
  return out;
}

// Changelog files and index files travel in commit messages: changelog files become the
// snapshot's changelog manifest list, index files update its index manifest per (partition,
// bucket, type); deletion vectors in the data increment make the snapshot an OVERWRITE.
TEST(CommitTest, ChangelogAndIndexFilesFromMessages) {
  testing::TempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto catalog, FileSystemCatalog::Open(tmp.Join("wh")));
  ASSERT_OK(catalog->CreateDatabase("db", true));
  TableIdentifier id{"db", "t"};
  TableSpec spec;
  ASSERT_OK_AND_ASSIGN(spec.fields, ParseColumnList("id INT, name STRING, v DOUBLE"));
  ASSERT_OK(catalog->CreateTable(id, spec));
  ASSERT_OK_AND_ASSIGN(auto table, catalog->GetTable(id));
  auto io = table->io();
  TablePaths paths{table->path()};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeStoredBinaryRow({}, {}));
  FileStoreCommit commit(io, table->path(), table->schema(), "user");

  ASSERT_OK_AND_ASSIGN(DataFileMeta f1,
                       WriteFile(io.get(), table->path(), table->schema(), *Rows(0, 5), 0));
  ASSERT_OK_AND_ASSIGN(DataFileMeta c1,
                       WriteFile(io.get(), table->path(), table->schema(), *Rows(0, 3), 0));
  CommitMessage m1{row, 0, -1, {f1}, {}};
  m1.changelog_files = {c1};
  m1.new_index_files = {Index("HASH", "index-h0")};
  CommitMessage m1b{row, 1, -1, {}, {}};
  m1b.new_index_files = {Index("HASH", "index-h1")};
  ASSERT_OK_AND_ASSIGN(auto s1, commit.Commit({m1, m1b}, 1));
  ASSERT_EQ(s1, std::optional<int64_t>(1));
  ASSERT_OK_AND_ASSIGN(Snapshot snap1, table->snapshots().Load(1));
  EXPECT_EQ(snap1.commit_kind, CommitKind::kAppend);
  ASSERT_TRUE(snap1.changelog_manifest_list.has_value());
  EXPECT_EQ(snap1.changelog_record_count, 3);
  EXPECT_EQ(snap1.delta_record_count, 5);
  ASSERT_OK_AND_ASSIGN(
      auto changelog_manifests,
      ReadManifestList(io.get(), paths.ManifestFile(*snap1.changelog_manifest_list), "avro"));
  ASSERT_EQ(changelog_manifests.size(), 1u);
  ASSERT_OK_AND_ASSIGN(
      auto changelog_entries,
      ReadManifestFile(io.get(), paths.ManifestFile(changelog_manifests[0].file_name), "avro"));
  ASSERT_EQ(changelog_entries.size(), 1u);
  EXPECT_EQ(changelog_entries[0].file.file_name, c1.file_name);
  EXPECT_EQ(IndexNames(io.get(), paths, snap1),
            (std::vector<std::string>{"HASH:0:index-h0", "HASH:1:index-h1"}));
  // The changelog is not table data.
  ASSERT_OK_AND_ASSIGN(ReadResult read1, table->Read(ReadRequest{}));
  EXPECT_EQ(read1.rows->num_rows(), 5);

  // Index files alone make a snapshot; bucket 0's file is replaced, bucket 1's kept.
  CommitMessage m2{row, 0, -1, {}, {}};
  m2.new_index_files = {Index("HASH", "index-h0b")};
  m2.deleted_index_files = {Index("HASH", "index-h0")};
  ASSERT_OK_AND_ASSIGN(auto s2, commit.Commit({m2}, 2));
  ASSERT_EQ(s2, std::optional<int64_t>(2));
  ASSERT_OK_AND_ASSIGN(Snapshot snap2, table->snapshots().Load(2));
  EXPECT_EQ(snap2.commit_kind, CommitKind::kAppend);
  EXPECT_FALSE(snap2.changelog_manifest_list.has_value());
  EXPECT_EQ(IndexNames(io.get(), paths, snap2),
            (std::vector<std::string>{"HASH:0:index-h0b", "HASH:1:index-h1"}));

  // Deletion vectors in the data increment: an OVERWRITE; in the compact increment: COMPACT.
  CommitMessage m3{row, 0, -1, {}, {}};
  m3.new_index_files = {Index("DELETION_VECTORS", "index-dv0")};
  m3.compact_new_index_files = {Index("DELETION_VECTORS", "index-dv0b")};
  m3.compact_deleted_index_files = {Index("DELETION_VECTORS", "index-dv0")};
  ASSERT_OK_AND_ASSIGN(auto s3, commit.Commit({m3}, 3));
  ASSERT_EQ(s3, std::optional<int64_t>(4));
  ASSERT_OK_AND_ASSIGN(Snapshot snap3, table->snapshots().Load(3));
  ASSERT_OK_AND_ASSIGN(Snapshot snap4, table->snapshots().Load(4));
  EXPECT_EQ(snap3.commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(snap4.commit_kind, CommitKind::kCompact);
  EXPECT_EQ(IndexNames(io.get(), paths, snap3),
            (std::vector<std::string>{"HASH:0:index-h0b", "HASH:1:index-h1",
                                      "DELETION_VECTORS:0:index-dv0"}));
  EXPECT_EQ(IndexNames(io.get(), paths, snap4),
            (std::vector<std::string>{"HASH:0:index-h0b", "HASH:1:index-h1",
                                      "DELETION_VECTORS:0:index-dv0b"}));

  // Messages survive the byte form: the same through the codec is a no-op retry.
  ASSERT_OK_AND_ASSIGN(auto again, commit.Commit({m3}, 3));
  EXPECT_FALSE(again.has_value());

  // A whole-table overwrite drops every index file; the new ones of the overwrite stay.
  CommitMessage m5{row, 1, -1, {}, {}};
  ASSERT_OK_AND_ASSIGN(DataFileMeta f5,
                       WriteFile(io.get(), table->path(), table->schema(), *Rows(100, 2), 0));
  m5.new_files = {f5};
  m5.new_index_files = {Index("HASH", "index-h1c")};
  ASSERT_OK_AND_ASSIGN(auto s5, commit.Overwrite({m5}, 5));
  ASSERT_EQ(s5, std::optional<int64_t>(5));
  ASSERT_OK_AND_ASSIGN(Snapshot snap5, table->snapshots().Load(5));
  EXPECT_EQ(IndexNames(io.get(), paths, snap5), (std::vector<std::string>{"HASH:1:index-h1c"}));
  ASSERT_OK_AND_ASSIGN(auto s6, commit.Truncate(6));
  ASSERT_OK_AND_ASSIGN(Snapshot snap6, table->snapshots().Load(*s6));
  ASSERT_TRUE(snap6.index_manifest.has_value());
  EXPECT_TRUE(IndexNames(io.get(), paths, snap6).empty());
}

}  // namespace
}  // namespace fjord
