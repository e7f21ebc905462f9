// A table created by the catalog, data files written by the data file writer, snapshots made by
// the committer: Fjord reads it back, and (tests/compat/java_commit_check.py) so does Java.
#include <arrow/api.h>

#include <cstdlib>

#include "fjord/common/ids.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/column_stats.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/table/append_write.h"
#include "fjord/table/catalog.h"
#include "fjord/table/commit.h"
#include "fjord/table/table.h"
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
  ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Open(warehouse));
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

}  // namespace
}  // namespace fjord
