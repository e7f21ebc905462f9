#include "fjord/table/file_store_table.h"

#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

class FileStoreTableOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = std::move(FileSystemCatalog::Open(dir_.Join("wh"))).value();
    ASSERT_OK(catalog_->CreateDatabase("db"));
    TableSpec spec;
    spec.fields = ParseColumnList("id BIGINT NOT NULL, v STRING").value();
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "2"}, {"write-buffer-size", "32 mb"}};
    ASSERT_OK(catalog_->CreateTable(id_, spec));
    ASSERT_OK_AND_ASSIGN(auto table, catalog_->GetTable(id_));
    path_ = table->path();
  }

  // Writes the next schema file with `key` = `value`, as another writer might have (the catalog
  // refuses such values).
  void WriteSchemaWith(const std::string& key, const std::string& value) {
    ASSERT_OK_AND_ASSIGN(auto table, FileStoreTable::Open(path_));
    TableSchema next = table->schema();
    next.id += 1;
    bool replaced = false;
    for (auto& [k, v] : next.options) {
      if (k == key) v = value, replaced = true;
    }
    if (!replaced) next.options.emplace_back(key, value);
    ASSERT_OK(FileIO::Local()->WriteFile(TablePaths{path_}.SchemaFile(next.id), next.ToJson()));
  }

  testing::TempDir dir_;
  std::unique_ptr<FileSystemCatalog> catalog_;
  TableIdentifier id_ = TableIdentifier::Parse("db.t").value();
  std::string path_;
};

TEST_F(FileStoreTableOptionsTest, CoreOptionsAreTheSchemas) {
  ASSERT_OK_AND_ASSIGN(auto table, FileStoreTable::Open(path_));
  EXPECT_EQ(table->core_options().bucket(), 2);
  EXPECT_EQ(table->core_options().write_buffer_size(), int64_t{32} << 20);
  EXPECT_EQ(table->options().Get("bucket"), "2");
  // Dynamic options make a table whose CoreOptions hold them; the original keeps its own.
  ASSERT_OK_AND_ASSIGN(auto dynamic, table->WithDynamicOptions({{"write-buffer-size", "1 mb"},
                                                                {"commit.max-retries", "3"}}));
  EXPECT_EQ(dynamic->core_options().write_buffer_size(), int64_t{1} << 20);
  EXPECT_EQ(dynamic->core_options().commit_max_retries(), 3);
  EXPECT_EQ(dynamic->core_options().bucket(), 2);
  EXPECT_EQ(table->core_options().write_buffer_size(), int64_t{32} << 20);
  EXPECT_THAT(table->WithDynamicOptions({{"write-buffer-size", "lots"}}),
              IsError(StatusCode::kInvalid, "write-buffer-size"));
}

TEST_F(FileStoreTableOptionsTest, OpeningFailsOnAnOptionThatDoesNotParse) {
  WriteSchemaWith("deletion-vectors.enabled", "maybe");
  EXPECT_THAT(FileStoreTable::Open(path_),
              IsError(StatusCode::kInvalid, "option 'deletion-vectors.enabled'"));
  EXPECT_THAT(FileStoreTable::Open(path_), IsError(StatusCode::kInvalid, "'maybe'"));
  EXPECT_THAT(catalog_->GetTable(id_), IsError(StatusCode::kInvalid, "deletion-vectors.enabled"));
  // ALTER TABLE still works on the schema and repairs it.
  ASSERT_OK(
      catalog_->AlterTable(id_, {SchemaChange::SetOption("deletion-vectors.enabled", "false")}));
  ASSERT_OK_AND_ASSIGN(auto table, FileStoreTable::Open(path_));
  EXPECT_FALSE(table->core_options().deletion_vectors_enabled());
}

TEST_F(FileStoreTableOptionsTest, OpeningFailsOnABadBucketCount) {
  WriteSchemaWith("bucket", "abc");
  EXPECT_THAT(FileStoreTable::Open(path_), IsError(StatusCode::kInvalid, "option 'bucket': 'abc'"));
}

TEST_F(FileStoreTableOptionsTest, OpeningFailsOnABadMemorySize) {
  WriteSchemaWith("target-file-size", "12 parsecs");
  EXPECT_THAT(FileStoreTable::Open(path_),
              IsError(StatusCode::kInvalid, "option 'target-file-size'"));
  EXPECT_THAT(FileStoreTable::Open(path_), IsError(StatusCode::kInvalid, "'12 parsecs'"));
}

}  // namespace
}  // namespace fjord
