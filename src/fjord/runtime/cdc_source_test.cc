// The files source in CDC mode: messages never split, the batch cut, positions between messages,
// errors and dead letters naming file and line.
#include "fjord/runtime/cdc_source.h"

#include <gtest/gtest.h>

#include <fstream>

#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

JobSpec Job(const std::string& dir, const std::string& dead_letter = "") {
  JobSpec job;
  job.file = "job.yaml";
  job.source.type = "files";
  job.source.cdc_format = "json";
  job.source.files.path = dir;
  job.source.files.pattern = "*.jsonl";
  job.source.files.on_error = dead_letter.empty() ? "fail" : "dead-letter";
  job.source.files.dead_letter = dead_letter;
  return job;
}

std::vector<std::string> Ids(const std::vector<cdc::CdcRecord>& records) {
  std::vector<std::string> ids;
  for (const auto& r : records) ids.push_back(r.Find("id") ? r.Find("id")->value.value_or("") : "");
  return ids;
}

TEST(CdcSourceTest, CutKeepsTheMessageForTheNextBatch) {
  fjord::testing::TempDir dir;
  std::ofstream(dir.Join("a.jsonl"))
      << "{\"id\":1}\n{\"id\":2}\n\n{\"id\":3,\"x\":1}\n{\"id\":4}\n";
  ASSERT_OK_AND_ASSIGN(auto source, MakeCdcSource(Job(dir.path())));
  ASSERT_OK(source->Seek(""));
  // Records with a column `x` must start a batch.
  CdcCut cut = [](const cdc::CdcRecord& r) { return r.Find("x") != nullptr; };
  std::vector<cdc::CdcRecord> out;
  bool end = false;
  ASSERT_OK(source->Next(true, 100, cut, &out, &end));
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(out[1].origin, "file " + dir.Join("a.jsonl") + " line 2");
  std::string before_cut = source->Position();
  out.clear();
  ASSERT_OK(source->Next(true, 100, cut, &out, &end));
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"3", "4"}));  // the cut record opens it
  EXPECT_EQ(out[0].origin, "file " + dir.Join("a.jsonl") + " line 4");
  // A new source at the position before the cut reads from the held-back message on.
  ASSERT_OK_AND_ASSIGN(auto again, MakeCdcSource(Job(dir.path())));
  ASSERT_OK(again->Seek(before_cut));
  out.clear();
  ASSERT_OK(again->Next(true, 1, cut, &out, &end));
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"3"}));  // max_records 1
  out.clear();
  ASSERT_OK(again->Next(true, 100, cut, &out, &end));
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"4"}));
  out.clear();
  ASSERT_OK(again->Next(true, 100, cut, &out, &end));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(end);
}

TEST(CdcSourceTest, BadMessagesFailOrGoToTheDeadLetterFile) {
  fjord::testing::TempDir dir;
  std::ofstream(dir.Join("a.jsonl")) << "{\"id\":1}\n[1, 2]\n{\"id\":3}\n";
  ASSERT_OK_AND_ASSIGN(auto source, MakeCdcSource(Job(dir.path())));
  ASSERT_OK(source->Seek(""));
  CdcCut never = [](const cdc::CdcRecord&) { return false; };
  std::vector<cdc::CdcRecord> out;
  bool end = false;
  Status st = source->Next(true, 100, never, &out, &end);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("file " + dir.Join("a.jsonl") + " line 2"), std::string::npos)
      << st.ToString();

  std::string letters = dir.Join("dead.jsonl");
  ASSERT_OK_AND_ASSIGN(auto lenient, MakeCdcSource(Job(dir.path(), letters)));
  ASSERT_OK(lenient->Seek(""));
  out.clear();
  ASSERT_OK(lenient->Next(true, 100, never, &out, &end));
  EXPECT_EQ(Ids(out), (std::vector<std::string>{"1", "3"}));
  std::ifstream in(letters);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_NE(line.find("\"line\":2"), std::string::npos) << line;
  EXPECT_NE(line.find("\"record\":\"[1, 2]\""), std::string::npos) << line;
}

}  // namespace
}  // namespace fjord::runtime
