#include "fjord/table/read/read_parts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fjord {
namespace {

constexpr int64_t kMB = int64_t{1} << 20;

DataFileMeta File(const std::string& name, int64_t mb, int32_t level) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = mb * kMB;
  f.level = level;
  return f;
}

DataSplit Bucket(int32_t bucket, std::vector<DataFileMeta> files) {
  DataSplit s;
  s.bucket = bucket;
  s.bucket_path = "b-" + std::to_string(bucket);
  for (const DataFileMeta& f : files) {
    s.deletion_files[f.file_name] = DeletionFile{"index-" + f.file_name, 1, 2, 3};
  }
  s.files = std::move(files);
  return s;
}

std::vector<std::string> Names(const DataSplit& s) {
  std::vector<std::string> out;
  for (const DataFileMeta& f : s.files) out.push_back(f.file_name);
  return out;
}

using Names_ = std::vector<std::string>;

TEST(ReadParts, SplitsStayWholeUnlessTheirFilesAreIndependent) {
  std::vector<DataSplit> splits = {Bucket(0, {File("a", 50, 1), File("b", 50, 1)})};
  ReadPartOptions options;
  options.threads = 2;
  std::vector<DataSplit> parts = SplitIntoReadParts(splits, options);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(Names(parts[0]), (Names_{"a", "b"}));
}

TEST(ReadParts, BinsOfFilesUpToTheTargetLevelZeroLeftOut) {
  // Files under the open-file cost weigh 4 MB each; level 0 is skipped and weighs nothing.
  std::vector<DataSplit> splits = {
      Bucket(0, {File("l0", 10, 0), File("a", 100, 5), File("b", 20, 5), File("c", 1, 4),
                 File("d", 1, 4), File("e", 90, 3)})};
  ReadPartOptions options;
  options.files_independent = true;
  options.threads = 1;  // parts of total / 4 = 56 MB: a | b c d | e
  std::vector<DataSplit> parts = SplitIntoReadParts(splits, options);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(Names(parts[0]), (Names_{"a"}));
  EXPECT_EQ(Names(parts[1]), (Names_{"b", "c", "d"}));
  EXPECT_EQ(Names(parts[2]), (Names_{"e"}));
  // Each part carries its own files' deletion vectors, and the split's place.
  EXPECT_EQ(parts[1].deletion_files.size(), 3u);
  EXPECT_EQ(parts[1].deletion_files.count("b"), 1u);
  EXPECT_EQ(parts[1].deletion_files.count("a"), 0u);
  EXPECT_EQ(parts[2].bucket_path, "b-0");

  options.target_size = 22 * kMB;  // below the spread: the configured target packs
  parts = SplitIntoReadParts(splits, options);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(Names(parts[1]), (Names_{"b"}));
  EXPECT_EQ(Names(parts[2]), (Names_{"c", "d"}));
}

TEST(ReadParts, HeaviestFirstWhenAsked) {
  std::vector<DataSplit> splits = {Bucket(0, {File("small", 20, 1), File("big", 100, 1)}),
                                   Bucket(1, {File("mid", 60, 1)})};
  ReadPartOptions options;
  options.files_independent = true;
  options.threads = 2;
  options.largest_first = true;
  std::vector<DataSplit> parts = SplitIntoReadParts(splits, options);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(Names(parts[0]), (Names_{"big"}));
  EXPECT_EQ(Names(parts[1]), (Names_{"mid"}));
  EXPECT_EQ(Names(parts[2]), (Names_{"small"}));
  EXPECT_EQ(parts[2].bucket, 0);
}

TEST(ReadParts, StreamingDiffAndLevelZeroOnlySplitsAreKept) {
  DataSplit streaming = Bucket(0, {File("s1", 50, 0), File("s2", 50, 0)});
  streaming.streaming = true;
  DataSplit diff = Bucket(1, {File("d1", 50, 1), File("d2", 50, 1)});
  diff.diff = true;
  DataSplit fresh = Bucket(2, {File("z1", 50, 0), File("z2", 50, 0)});
  ReadPartOptions options;
  options.files_independent = true;
  options.threads = 4;
  std::vector<DataSplit> parts = SplitIntoReadParts({streaming, diff, fresh}, options);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(Names(parts[0]), (Names_{"s1", "s2"}));
  EXPECT_TRUE(parts[0].streaming);
  EXPECT_EQ(Names(parts[1]), (Names_{"d1", "d2"}));
  EXPECT_TRUE(parts[1].diff);
  EXPECT_TRUE(parts[2].files.empty());  // a batch read skips level 0 here
  EXPECT_EQ(parts[2].bucket, 2);
}

}  // namespace
}  // namespace fjord
