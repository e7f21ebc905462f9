#include "fjord/schema.h"

#include <filesystem>

#include "fjord/file_io.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::vector<std::string> FixtureSchemaFiles() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(testing::FixturesDir())) {
    if (e.is_regular_file() && e.path().parent_path().filename() == "schema" &&
        e.path().filename().string().rfind("schema-", 0) == 0) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TableSchemaTest, EveryFixtureSchemaRoundTripsExactly) {
  auto files = FixtureSchemaFiles();
  ASSERT_GE(files.size(), 25u);
  for (const std::string& f : files) {
    ASSERT_OK_AND_ASSIGN(std::string text, FileIO::Local()->ReadFile(f));
    ASSERT_OK_AND_ASSIGN(TableSchema schema, TableSchema::FromJson(text, f));
    EXPECT_EQ(schema.ToJson(), text) << f;
    EXPECT_EQ(schema.id, std::stoll(f.substr(f.rfind('-') + 1))) << f;
  }
}

TEST(TableSchemaTest, KeysAndCompatibilityDefaults) {
  std::string text = R"({"version":1,"id":0,"fields":[
    {"id":0,"name":"k","type":"INT NOT NULL"},{"id":1,"name":"p","type":"STRING NOT NULL"},
    {"id":2,"name":"v","type":"DOUBLE"}],"highestFieldId":2,"partitionKeys":["p"],
    "primaryKeys":["p","k"],"options":{}})";
  ASSERT_OK_AND_ASSIGN(TableSchema s, TableSchema::FromJson(text, "schema-0"));
  EXPECT_EQ(s.TrimmedPrimaryKeys(), std::vector<std::string>{"k"});
  EXPECT_EQ(s.BucketKeys(), std::vector<std::string>{"k"});
  EXPECT_EQ(s.Option("bucket"), "1");
  EXPECT_EQ(s.Option("file.format"), "orc");
  EXPECT_EQ(s.FieldIndex("v"), 2);
}

TEST(TableSchemaTest, CorruptSchemasNameFileAndField) {
  EXPECT_THAT(TableSchema::FromJson(R"({"id":0})", "t/schema/schema-0"),
              IsError(StatusCode::kCorruption, "t/schema/schema-0: field 'fields' is missing"));
  EXPECT_THAT(TableSchema::FromJson(R"({"id":"zero","fields":[]})", "schema-0"),
              IsError(StatusCode::kCorruption, "field 'id' must be an integer"));
  EXPECT_THAT(
      TableSchema::FromJson(R"({"id":0,"fields":[{"id":0,"name":"a","type":"WIBBLE"}]})", "s"),
      IsError(StatusCode::kCorruption, "unknown type 'WIBBLE'"));
  EXPECT_THAT(TableSchema::FromJson(R"({"id":0,"fields":[],"primaryKeys":["nope"]})", "s"),
              IsError(StatusCode::kCorruption, "key column 'nope'"));
  EXPECT_THAT(TableSchema::FromJson(R"({"id":0,"fields":[],"options":{"bucket":2}})", "s"),
              IsError(StatusCode::kCorruption, "option 'bucket' must be a string"));
  EXPECT_THAT(TableSchema::FromJson("[1,2", "s"), IsError(StatusCode::kCorruption, "invalid JSON"));
}

}  // namespace
}  // namespace fjord
