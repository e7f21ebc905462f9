// No option silently ignored, through the public API: a create or alter that sets an option
// Fjord does not honour fails naming it; a table that has one (written by another engine) refuses
// the operations it concerns and keeps the others (reads of a deletion-vector table); dynamic
// options too; performance-only options and unknown keys are warned about, once.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/testing/test_util.h"
#include "fjord/warning.h"

namespace fjord {
namespace {

using testing::TempDir;

std::shared_ptr<arrow::RecordBatch> Rows(int32_t from, int32_t to) {
  arrow::Int32Builder id;
  arrow::StringBuilder text;
  for (int32_t i = from; i < to; ++i) {
    EXPECT_TRUE(id.Append(i).ok());
    EXPECT_TRUE(text.Append("s" + std::to_string(i)).ok());
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32(), false), arrow::field("s", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, to - from, {*id.Finish(), *text.Finish()});
}

class OptionSupportApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = *Catalog::Open(dir_.path());
    ASSERT_OK(catalog_->CreateDatabase("db"));
    old_sink_ = SetWarningSink([this](const std::string& w) { warnings_.push_back(w); });
  }
  void TearDown() override { SetWarningSink(old_sink_); }

  TableSpec Spec(bool primary_key, std::vector<std::pair<std::string, std::string>> options) {
    TableSpec spec;
    spec.fields = *ParseColumnList("id INT NOT NULL, s STRING");
    if (primary_key) spec.primary_keys = {"id"};
    spec.options = std::move(options);
    return spec;
  }

  // An append table with rows 0..9 committed as snapshot 1.
  std::unique_ptr<Table> TableWithRows(const TableIdentifier& id) {
    EXPECT_OK(catalog_->CreateTable(id, Spec(false, {})));
    auto table = *catalog_->GetTable(id);
    auto writer = *table->NewWrite();
    EXPECT_OK(WriteBatch(*writer, *Rows(0, 10)));
    auto messages = *writer->PrepareCommit(1);
    EXPECT_TRUE((*table->NewCommit("u"))->Commit(messages, 1).ok());
    return table;
  }

  // The next schema file with `key` = `value`, as Java Paimon would write it (Fjord's catalog
  // refuses it).
  void SetOptionBehindFjordsBack(const Table& table, const std::string& key,
                                 const std::string& value) {
    TableSchema next = table.schema();
    next.id += 1;
    next.options.emplace_back(key, value);
    ASSERT_OK(table.io()->WriteFile(table.path() + "/schema/schema-" + std::to_string(next.id),
                                    next.ToJson()));
  }

  int64_t RowCount(const Table& table) {
    auto reader = OpenArrowReader(table.NewRead());
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return -1;
    int64_t rows = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE((*reader)->ReadNext(&batch).ok());
      if (!batch) break;
      rows += batch->num_rows();
    }
    return rows;
  }

  TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  WarningSink old_sink_;
  std::vector<std::string> warnings_;
};

TEST_F(OptionSupportApiTest, CreateRefusesAnOptionFjordDoesNotHonour) {
  TableIdentifier id{"db", "t"};
  EXPECT_THAT(
      catalog_->CreateTable(id, Spec(true, {{"bucket", "-2"}})),
      IsError(StatusCode::kNotImplemented, "option 'bucket' = '-2' is not honoured by Fjord yet"));
  EXPECT_THAT(catalog_->CreateTable(id, Spec(false, {{"commit.user-prefix", "app"}})),
              IsError(StatusCode::kNotImplemented, "commit users are not prefixed"));
  EXPECT_THAT(catalog_->CreateTable(id, Spec(true, {{"file.suffix.include.compression", "true"}})),
              IsError(StatusCode::kNotImplemented, "'file.suffix.include.compression' = 'true'"));
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> tables, catalog_->ListTables("db"));
  EXPECT_TRUE(tables.empty()) << "nothing was created";
  // Through the catalog's table defaults too.
  auto defaults =
      *Catalog::Open(dir_.path(), {{"table-default.file.suffix.include.compression", "true"}});
  EXPECT_THAT(defaults->CreateTable(id, Spec(true, {})),
              IsError(StatusCode::kNotImplemented, "'file.suffix.include.compression' = 'true'"));
  // The values Fjord honours pass.
  EXPECT_OK(catalog_->CreateTable(id, Spec(true, {{"changelog-producer", "none"}})));
  TableIdentifier full{"db", "full"};
  EXPECT_OK(
      catalog_->CreateTable(full, Spec(true, {{"changelog-producer", "full-compaction"},
                                              {"changelog-producer.row-deduplicate", "true"}})));
}

TEST_F(OptionSupportApiTest, AlterRefusesAnOptionFjordDoesNotHonour) {
  TableIdentifier id{"db", "t"};
  ASSERT_OK(catalog_->CreateTable(id, Spec(true, {{"bucket", "2"}})));
  EXPECT_THAT(catalog_->AlterTable(id, {SchemaChange::SetOption("commit.user-prefix", "app")}),
              IsError(StatusCode::kNotImplemented, "option 'commit.user-prefix' = 'app'"));
  EXPECT_THAT(
      catalog_->AlterTable(id, {SchemaChange::SetOption("tag.create-success-file", "true")}),
      IsError(StatusCode::kNotImplemented, "success files"));
  // Deletion vectors switch only where deletion-vectors.modifiable allows it (and Fjord does not
  // write them in any case).
  EXPECT_THAT(
      catalog_->AlterTable(id, {SchemaChange::SetOption("deletion-vectors.enabled", "true")}),
      IsError(StatusCode::kInvalid, "deletion-vectors.modifiable"));
  ASSERT_OK(catalog_->AlterTable(id, {SchemaChange::SetOption("commit.max-retries", "3")}));
  auto table = *catalog_->GetTable(id);
  EXPECT_EQ(table->schema().id, 1);  // only the honoured change was written
}

TEST_F(OptionSupportApiTest, ATableWithARefusedOptionIsReadButNotWritten) {
  TableIdentifier id{"db", "t"};
  auto before = TableWithRows(id);
  SetOptionBehindFjordsBack(*before, "commit.user-prefix", "app");
  auto table = *catalog_->GetTable(id);
  EXPECT_THAT(table->NewWrite(),
              IsError(StatusCode::kNotImplemented, "option 'commit.user-prefix' = 'app'"));
  EXPECT_THAT(table->NewCommit("u"), IsError(StatusCode::kNotImplemented, "commit.user-prefix"));
  EXPECT_THAT(table->NewCompaction(), IsError(StatusCode::kNotImplemented, "commit.user-prefix"));
  EXPECT_EQ(RowCount(*table), 10);  // reads commit nothing: the read honours it
  ASSERT_OK_AND_ASSIGN(ReadPlan plan, table->NewRead().Plan());
  EXPECT_EQ(plan.snapshot_id, 1);
}

// An option set by another engine that Fjord reads but does not write by.
TEST_F(OptionSupportApiTest, AWriteOptionOnTheTableRefusesWritesNotReads) {
  TableIdentifier id{"db", "codec_names"};
  auto before = TableWithRows(id);
  SetOptionBehindFjordsBack(*before, "file.suffix.include.compression", "true");
  auto table = *catalog_->GetTable(id);
  EXPECT_THAT(table->NewWrite(),
              IsError(StatusCode::kNotImplemented,
                      "'file.suffix.include.compression' = 'true' is not honoured by Fjord yet: "
                      "file names never carry the codec"));
  EXPECT_EQ(RowCount(*table), 10);
}

TEST_F(OptionSupportApiTest, AScanOptionOnTheTableRefusesReadsNotWrites) {
  TableIdentifier id{"db", "t"};
  auto before = TableWithRows(id);
  SetOptionBehindFjordsBack(*before, "scan.ignore-corrupt-files", "true");
  auto table = *catalog_->GetTable(id);
  EXPECT_THAT(table->NewRead().Open(),
              IsError(StatusCode::kNotImplemented, "'scan.ignore-corrupt-files' = 'true'"));
  EXPECT_THAT(table->NewRead().Plan(),
              IsError(StatusCode::kNotImplemented, "scan.ignore-corrupt-files"));
  EXPECT_OK(table->NewWrite().status());
}

TEST_F(OptionSupportApiTest, DynamicOptionsAreCheckedToo) {
  TableIdentifier id{"db", "pk"};
  ASSERT_OK(catalog_->CreateTable(id, Spec(true, {{"bucket", "1"}})));
  auto table = *catalog_->GetTable(id);
  WriteOptions w;
  w.dynamic_options = {{"file.suffix.include.compression", "true"}};
  EXPECT_THAT(table->NewWrite(w), IsError(StatusCode::kNotImplemented,
                                          "'file.suffix.include.compression' = 'true' is not "
                                          "honoured by Fjord yet: file names never carry the "
                                          "codec"));
  CompactionOptions c;
  c.dynamic_options = {{"commit.user-prefix", "app"}};
  EXPECT_THAT(table->NewCompaction(c),
              IsError(StatusCode::kNotImplemented, "'commit.user-prefix' = 'app'"));
  CommitOptions co;
  co.dynamic_options = {{"commit.user-prefix", "app"}};
  EXPECT_THAT(table->NewCommit("u", co),
              IsError(StatusCode::kNotImplemented, "commit.user-prefix"));
  // An unknown dynamic key is refused with the nearest known key.
  w.dynamic_options = {{"write-bufer-size", "1 mb"}};
  EXPECT_THAT(table->NewWrite(w),
              IsError(StatusCode::kInvalid, "did you mean 'write-buffer-size'?"));
}

TEST_F(OptionSupportApiTest, PerformanceOptionsAndUnknownKeysAreWarnedAboutOnce) {
  TableIdentifier id{"db", "t"};
  ASSERT_OK(catalog_->CreateTable(
      id, Spec(true, {{"bucket", "1"}, {"sort-engine", "min-heap"}, {"bukcet-key", "id"}})));
  ASSERT_EQ(warnings_.size(), 2u);
  EXPECT_EQ(warnings_[0],
            "unknown option 'bukcet-key' (kept, but Fjord does not use it); did you mean "
            "'bucket-key'?");
  EXPECT_EQ(warnings_[1],
            "option 'sort-engine' = 'min-heap' is ignored by Fjord (it changes only "
            "performance)");
  auto table = *catalog_->GetTable(id);
  EXPECT_EQ(table->schema().options.size(), 3u);  // the unknown key is kept, as Java keeps it
  ASSERT_OK(table->NewWrite().status());
  ASSERT_OK(table->NewWrite().status());
  EXPECT_EQ(warnings_.size(), 2u) << "each warning is given once";
}

}  // namespace
}  // namespace fjord
