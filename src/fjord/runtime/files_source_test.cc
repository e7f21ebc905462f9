#include <arrow/api.h>
#include <gtest/gtest.h>

#include <fstream>

#include "fjord/runtime/source.h"
#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

TableSchema Schema() {
  TableSchema s;
  s.fields = {{0, "id", DataType::BigInt(false), {}, {}}, {1, "v", DataType::String(), {}, {}}};
  s.highest_field_id = 1;
  return s;
}

SourceSpec Spec(const std::string& dir, const std::string& format, int64_t batch_rows) {
  SourceSpec spec;
  spec.type = "files";
  spec.files.path = dir;
  spec.files.format = format;
  spec.files.pattern = "*." + format;
  spec.batch_rows = batch_rows;
  return spec;
}

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app | std::ios::binary) << text;
}

// Reads until nothing is available; the ids in order.
std::vector<int64_t> Drain(Source* source, bool bounded, bool* end) {
  std::vector<int64_t> ids;
  while (true) {
    auto batch = source->Next(bounded, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) return ids;
    auto col = std::static_pointer_cast<arrow::Int64Array>((*batch)->column(0));
    for (int64_t i = 0; i < col->length(); ++i) ids.push_back(col->Value(i));
  }
}

TEST(FilesSourceTest, FollowsGrowingFilesAndNewOnes) {
  fjord::testing::TempDir dir;
  Append(dir.Join("a.jsonl"), "{\"id\":1}\n{\"id\":2}\n{\"id\":3");  // last line incomplete
  Append(dir.Join("ignored.txt"), "x");
  auto source = MakeFilesSource(Spec(dir.path(), "jsonl", 1), Schema());
  ASSERT_OK(source->Seek(""));
  bool end = false;
  EXPECT_EQ(Drain(source.get(), false, &end), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(end);
  std::string position = source->Position();
  Append(dir.Join("a.jsonl"), "}\n");
  EXPECT_EQ(Drain(source.get(), false, &end), (std::vector<int64_t>{3}));
  Append(dir.Join("b.jsonl"), "{\"id\":4}\n\n{\"id\":5}");
  // A later file exists: a.jsonl is complete, b.jsonl's last line waits for its break.
  EXPECT_EQ(Drain(source.get(), false, &end), (std::vector<int64_t>{4}));
  EXPECT_EQ(Drain(source.get(), true, &end), (std::vector<int64_t>{5}));
  EXPECT_TRUE(end);
  // Resuming at a position re-reads exactly what came after it.
  auto again = MakeFilesSource(Spec(dir.path(), "jsonl", 100), Schema());
  ASSERT_OK(again->Seek(position));
  EXPECT_EQ(Drain(again.get(), true, &end), (std::vector<int64_t>{3, 4, 5}));
}

TEST(FilesSourceTest, CsvHeaderQuotedLineBreaksAndLineNumbers) {
  fjord::testing::TempDir dir;
  Append(dir.Join("a.csv"), "id,v\n1,\"two\nlines\"\n2,x\n3,y\n");
  auto source = MakeFilesSource(Spec(dir.path(), "csv", 1), Schema());
  ASSERT_OK(source->Seek(""));
  bool end = false;
  EXPECT_EQ(Drain(source.get(), true, &end), (std::vector<int64_t>{1, 2, 3}));
  Append(dir.Join("b.csv"), "v,id\nok,4\nbad,notanumber\n");
  auto batch = source->Next(true, &end);
  ASSERT_TRUE(batch.ok());
  auto bad = source->Next(true, &end);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("b.csv line 3"), std::string::npos)
      << bad.status().ToString();
}

TEST(FilesSourceTest, JsonErrorsNameTheFileLine) {
  fjord::testing::TempDir dir;
  Append(dir.Join("a.jsonl"), "{\"id\":1}\n{\"id\":2}\n{\"id\":\"x\"}\n");
  auto source = MakeFilesSource(Spec(dir.path(), "jsonl", 2), Schema());
  ASSERT_OK(source->Seek(""));
  bool end = false;
  ASSERT_TRUE(source->Next(true, &end).ok());
  auto bad = source->Next(true, &end);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a.jsonl line 3"), std::string::npos)
      << bad.status().ToString();
}

TEST(FilesSourceTest, ResumeInAFileThatShrankIsRefused) {
  fjord::testing::TempDir dir;
  Append(dir.Join("a.jsonl"), "{\"id\":1}\n");
  auto source = MakeFilesSource(Spec(dir.path(), "jsonl", 2), Schema());
  Status st = source->Seek(R"({"file":"a.jsonl","offset":100,"line":5})");
  EXPECT_FALSE(st.ok());
  st = source->Seek(R"({"file":"gone.jsonl","offset":1,"line":2})");
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(FilesSourceTest, DeadLetterKeepsTheSourceGoingExactly) {
  fjord::testing::TempDir dir;
  Append(dir.Join("a.jsonl"), "{\"id\":1}\n{\"id\":\"x\"}\n{\"id\":3}\n");
  Append(dir.Join("b.jsonl"), "{\"id\":4}\n{\"v\":\"no id\"}\n{\"id\":6}\n");
  SourceSpec spec = Spec(dir.path(), "jsonl", 100);
  spec.files.on_error = "dead-letter";
  spec.files.dead_letter = dir.Join("dead/letters.jsonl");
  auto source = MakeFilesSource(spec, Schema());
  ASSERT_OK(source->Seek(""));
  bool end = false;
  auto first = source->Next(true, &end);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::string after_a = source->Position();
  EXPECT_EQ(Drain(source.get(), true, &end), (std::vector<int64_t>{4, 6}));
  std::string letters = ReadAll(spec.files.dead_letter);
  EXPECT_NE(letters.find("a.jsonl\",\"line\":2"), std::string::npos) << letters;
  EXPECT_NE(letters.find("b.jsonl\",\"line\":2"), std::string::npos) << letters;
  EXPECT_NE(letters.find("\"record\":\"{\\\"v\\\":\\\"no id\\\"}\""), std::string::npos) << letters;
  // Resuming after a.jsonl cuts the dead letters back to a.jsonl's, then writes b.jsonl's again:
  // each bad row once.
  auto again = MakeFilesSource(spec, Schema());
  ASSERT_OK(again->Seek(after_a));
  EXPECT_EQ(ReadAll(spec.files.dead_letter).find("b.jsonl"), std::string::npos);
  EXPECT_EQ(Drain(again.get(), true, &end), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(ReadAll(spec.files.dead_letter), letters);
}

}  // namespace
}  // namespace fjord::runtime
