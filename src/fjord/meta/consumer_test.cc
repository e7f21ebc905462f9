#include "fjord/meta/consumer.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

// What Java Paimon 1.4.2 wrote for consumer c1 after `fjord-oracle stream --consumer-id c1
// --commit-progress` had read up to snapshot 5 (StreamTableScan.notifyCheckpointComplete):
// the file's bytes, all 24 of them.
constexpr std::string_view kJavaConsumerFile = "{\n  \"nextSnapshot\" : 6\n}";

void WriteRaw(const std::string& path, std::string_view text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string ReadRaw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ConsumerManager Manager(const TempDir& dir, std::string_view branch = "main") {
  ConsumerManager m(FileIO::Local(), dir.path(), branch);
  m.set_read_retries(2, std::chrono::milliseconds(1));
  return m;
}

TEST(ConsumerTest, JavaBytesBothWays) {
  EXPECT_EQ(Consumer{6}.ToJson(), kJavaConsumerFile);
  ASSERT_OK_AND_ASSIGN(Consumer c, Consumer::FromJson(kJavaConsumerFile, "java"));
  EXPECT_EQ(c.next_snapshot, 6);
  EXPECT_EQ(Consumer{INT64_MAX}.ToJson(), "{\n  \"nextSnapshot\" : 9223372036854775807\n}");

  TempDir dir;
  ConsumerManager m = Manager(dir);
  WriteRaw(dir.Join("consumer/consumer-c1"), kJavaConsumerFile);
  ASSERT_OK_AND_ASSIGN(std::optional<Consumer> read, m.Read("c1"));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->next_snapshot, 6);
  ASSERT_OK(m.Write("c2", Consumer{6}));
  EXPECT_EQ(ReadRaw(dir.Join("consumer/consumer-c2")), kJavaConsumerFile);
}

TEST(ConsumerTest, PathsOfMainAndBranches) {
  TempDir dir;
  EXPECT_EQ(Manager(dir).PathOf("x"), dir.Join("consumer/consumer-x"));
  EXPECT_EQ(Manager(dir, "").dir(), dir.Join("consumer"));
  EXPECT_EQ(Manager(dir, "  ").dir(), dir.Join("consumer"));
  EXPECT_EQ(Manager(dir, "b1").PathOf("x"), dir.Join("branch/branch-b1/consumer/consumer-x"));
  ConsumerManager slash(FileIO::Local(), dir.path() + "/", "main");
  EXPECT_EQ(slash.PathOf("x"), dir.Join("consumer/consumer-x"));

  // A branch's consumers are its own.
  ASSERT_OK(Manager(dir, "b1").Write("x", Consumer{3}));
  ASSERT_OK_AND_ASSIGN(auto main_consumer, Manager(dir).Read("x"));
  EXPECT_FALSE(main_consumer.has_value());
  ASSERT_OK_AND_ASSIGN(auto branch_consumer, Manager(dir, "b1").Read("x"));
  ASSERT_TRUE(branch_consumer.has_value());
  EXPECT_EQ(branch_consumer->next_snapshot, 3);
}

TEST(ConsumerTest, RoundTripOverwriteDelete) {
  TempDir dir;
  ConsumerManager m = Manager(dir);
  ASSERT_OK_AND_ASSIGN(auto none, m.Read("a"));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK(m.Write("a", Consumer{1}));  // creates consumer/
  ASSERT_OK(m.Write("a", Consumer{42}));
  ASSERT_OK_AND_ASSIGN(auto a, m.Read("a"));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->next_snapshot, 42);
  // Overwriting leaves no temporary file that a listing could see.
  ASSERT_OK_AND_ASSIGN(auto files, FileIO::Local()->List(m.dir()));
  ASSERT_EQ(files.size(), 1u);
  ASSERT_OK(m.Delete("a"));
  ASSERT_OK(m.Delete("a"));  // already gone
  ASSERT_OK_AND_ASSIGN(auto gone, m.Read("a"));
  EXPECT_FALSE(gone.has_value());
}

TEST(ConsumerTest, IdsAndValuesRefused) {
  TempDir dir;
  ConsumerManager m = Manager(dir);
  EXPECT_THAT(m.Write("", Consumer{1}), IsError(StatusCode::kInvalid, "cannot be empty"));
  EXPECT_THAT(m.Read(""), HasStatusCode(StatusCode::kInvalid));
  EXPECT_THAT(m.Delete(""), HasStatusCode(StatusCode::kInvalid));
  EXPECT_THAT(m.Write("a/b", Consumer{1}), IsError(StatusCode::kInvalid, "a/b"));
  EXPECT_THAT(m.Write(std::string_view("a\0b", 3), Consumer{1}),
              HasStatusCode(StatusCode::kInvalid));
  EXPECT_THAT(m.Write("a", Consumer{0}), IsError(StatusCode::kInvalid, "at least 1"));
  EXPECT_THAT(m.Write("a", Consumer{-1}), IsError(StatusCode::kInvalid, "at least 1"));
  ASSERT_OK_AND_ASSIGN(auto ids, m.ListIds());
  EXPECT_TRUE(ids.empty());
  // Ids Java accepts and Fjord too: dots, spaces, non-ASCII.
  for (std::string id : {"..", "a b", "\xc3\xa9t\xc3\xa9", "-", "consumer-x"}) {
    ASSERT_OK(m.Write(id, Consumer{2}));
    ASSERT_OK_AND_ASSIGN(auto c, m.Read(id));
    ASSERT_TRUE(c.has_value()) << id;
  }
}

TEST(ConsumerTest, WhatJavaWritesOrIgnoresReadsAlike) {
  // Unknown keys (Jackson's FAIL_ON_UNKNOWN_PROPERTIES is off) and layout do not matter.
  for (std::string_view text :
       {"{\"nextSnapshot\":4}", "{\"a\":1,\"nextSnapshot\":4,\"b\":[1,{\"x\":2}]}",
        "{\"nextSnapshot\":4}\n\n", " {\n\t\"nextSnapshot\" :   4 } "}) {
    ASSERT_OK_AND_ASSIGN(Consumer c, Consumer::FromJson(text, "f"));
    EXPECT_EQ(c.next_snapshot, 4) << text;
  }
  // Java reads a negative value as it is (its scan then clamps it to the earliest snapshot).
  ASSERT_OK_AND_ASSIGN(Consumer neg, Consumer::FromJson("{\"nextSnapshot\":-1}", "f"));
  EXPECT_EQ(neg.next_snapshot, -1);
}

TEST(ConsumerTest, DamagedFilesAreErrorsNamingTheFile) {
  TempDir dir;
  ConsumerManager m = Manager(dir);
  // Java coerces some of these (missing/null -> 0, "4" -> 4, 4.5 -> 4, trailing text ignored);
  // no Paimon writer produces them, and Fjord refuses rather than guess.
  const std::vector<std::string> bad = {
      "",
      "garbage",
      "[4]",
      "{}",
      "{\"nextSnapshot\":null}",
      "{\"NextSnapshot\":4}",
      "{\"nextSnapshot\":\"4\"}",
      "{\"nextSnapshot\":4.5}",
      "{\"nextSnapshot\":4.0}",
      "{\"nextSnapshot\":true}",
      "{\"nextSnapshot\":99999999999999999999}",
      "{\"nextSnapshot\":4} x",
      "{\n  \"nextSnapshot\" : 6",  // a write cut short
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    const std::string id = "bad" + std::to_string(i);
    WriteRaw(m.PathOf(id), bad[i]);
    auto r = m.Read(id);
    EXPECT_THAT(r, IsError(StatusCode::kCorruption, m.PathOf(id))) << bad[i];
    EXPECT_THAT(r, IsError(StatusCode::kCorruption, "damaged consumer file")) << bad[i];
  }
  // Listing and the minimum fail on a damaged file rather than skip it: expiration must not
  // lose a consumer's protection.
  EXPECT_THAT(m.List(), HasStatusCode(StatusCode::kCorruption));
  EXPECT_THAT(m.MinNextSnapshot(), HasStatusCode(StatusCode::kCorruption));
}

TEST(ConsumerTest, ListAndMinimum) {
  TempDir dir;
  ConsumerManager m = Manager(dir);
  ASSERT_OK_AND_ASSIGN(auto empty, m.List());
  EXPECT_TRUE(empty.empty());
  ASSERT_OK_AND_ASSIGN(auto no_min, m.MinNextSnapshot());
  EXPECT_FALSE(no_min.has_value());

  ASSERT_OK(m.Write("b", Consumer{7}));
  ASSERT_OK(m.Write("a", Consumer{12}));
  ASSERT_OK(m.Write("c", Consumer{5}));
  // Not consumers: other names, a directory with the prefix, hidden temporary files.
  WriteRaw(dir.Join("consumer/other"), "{\"nextSnapshot\":1}");
  WriteRaw(dir.Join("consumer/.consumer-d.tmp"), "{\"nextSnapshot\":1}");
  WriteRaw(dir.Join("consumer/consumer-dir/x"), "{\"nextSnapshot\":1}");
  WriteRaw(dir.Join("consumer/consumer-"), "{\"nextSnapshot\":1}");
  ASSERT_OK_AND_ASSIGN(auto ids, m.ListIds());
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_OK_AND_ASSIGN(auto all, m.List());
  EXPECT_EQ(all, (std::map<std::string, int64_t>{{"a", 12}, {"b", 7}, {"c", 5}}));
  ASSERT_OK_AND_ASSIGN(auto min, m.MinNextSnapshot());
  ASSERT_TRUE(min.has_value());
  EXPECT_EQ(*min, 5);
}

TEST(ConsumerTest, ClearByPatterns) {
  TempDir dir;
  ConsumerManager m = Manager(dir);
  auto reset = [&] {
    for (std::string id : {"job-1", "job-2", "job-10", "tail", "ad-hoc"}) {
      ASSERT_OK(m.Write(id, Consumer{3}));
    }
  };
  reset();
  // Whole-id match (Java's Matcher.matches), not a search.
  ASSERT_OK_AND_ASSIGN(auto deleted, m.Clear("job-\\d"));
  EXPECT_EQ(deleted, (std::vector<std::string>{"job-1", "job-2"}));
  ASSERT_OK_AND_ASSIGN(auto left, m.ListIds());
  EXPECT_EQ(left, (std::vector<std::string>{"ad-hoc", "job-10", "tail"}));

  reset();
  ASSERT_OK_AND_ASSIGN(deleted, m.Clear("job-.*", "job-1.*"));
  EXPECT_EQ(deleted, (std::vector<std::string>{"job-2"}));

  reset();
  ASSERT_OK_AND_ASSIGN(deleted, m.Clear("", "tail|ad-hoc"));  // blank including: every id
  EXPECT_EQ(deleted, (std::vector<std::string>{"job-1", "job-10", "job-2"}));

  reset();
  ASSERT_OK_AND_ASSIGN(deleted, m.Clear(" ", " "));  // blank both: all
  EXPECT_EQ(deleted.size(), 5u);
  ASSERT_OK_AND_ASSIGN(left, m.ListIds());
  EXPECT_TRUE(left.empty());

  EXPECT_THAT(m.Clear("job-("), IsError(StatusCode::kInvalid, "job-("));
  EXPECT_THAT(m.Clear(".*", "[z-a]"), IsError(StatusCode::kInvalid, "excluding"));
}

TEST(ConsumerTest, ExpireByModificationTime) {
  TempDir dir;
  ConsumerManager m = Manager(dir);
  ASSERT_OK(m.Write("old", Consumer{1}));
  ASSERT_OK(m.Write("edge", Consumer{1}));
  ASSERT_OK(m.Write("new", Consumer{2}));
  namespace fs = std::filesystem;
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(m.PathOf("old"), now - std::chrono::hours(2));
  fs::last_write_time(m.PathOf("edge"), now - std::chrono::hours(1));
  ASSERT_OK_AND_ASSIGN(FileStatus edge, FileIO::Local()->GetStatus(m.PathOf("edge")));

  // Strictly older than the limit goes (Java: expireDateTime.isAfter(modificationTime)).
  ASSERT_OK_AND_ASSIGN(auto deleted, m.Expire(edge.mtime_millis));
  EXPECT_EQ(deleted, (std::vector<std::string>{"old"}));
  ASSERT_OK_AND_ASSIGN(deleted, m.Expire(edge.mtime_millis + 1));
  EXPECT_EQ(deleted, (std::vector<std::string>{"edge"}));
  ASSERT_OK_AND_ASSIGN(auto left, m.List());
  EXPECT_EQ(left, (std::map<std::string, int64_t>{{"new", 2}}));
  // A consumer rewritten by its reader is fresh again.
  ASSERT_OK(m.Write("new", Consumer{3}));
  ASSERT_OK_AND_ASSIGN(deleted, m.Expire(edge.mtime_millis + 1));
  EXPECT_TRUE(deleted.empty());
  // No consumer directory: nothing to do.
  TempDir empty;
  ASSERT_OK_AND_ASSIGN(deleted, Manager(empty).Expire(INT64_MAX));
  EXPECT_TRUE(deleted.empty());
}

}  // namespace
}  // namespace fjord
