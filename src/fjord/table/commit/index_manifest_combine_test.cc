#include "fjord/table/commit/index_manifest_combine.h"

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

IndexManifestEntry Entry(FileKind kind, const std::string& partition, int32_t bucket,
                         const std::string& type, const std::string& name,
                         std::vector<std::string> dv_files = {}) {
  IndexManifestEntry e;
  e.kind = kind;
  e.partition = partition;
  e.bucket = bucket;
  e.index_type = type;
  e.file_name = name;
  e.file_size = 10;
  e.row_count = 1;
  if (!dv_files.empty()) {
    std::vector<DeletionVectorMeta> ranges;
    for (auto& f : dv_files) ranges.push_back(DeletionVectorMeta{f, 0, 1, 1});
    e.dv_ranges = std::move(ranges);
  }
  return e;
}

std::vector<std::string> Names(const std::vector<IndexManifestEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) {
    EXPECT_EQ(e.kind, FileKind::kAdd);
    out.push_back(e.file_name);
  }
  return out;
}

constexpr FileKind kAdd = FileKind::kAdd;
constexpr FileKind kDel = FileKind::kDelete;

TEST(IndexManifestCombineTest, HashFilesReplacePerPartitionAndBucket) {
  std::vector<IndexManifestEntry> previous = {Entry(kAdd, "p1", 0, "HASH", "h-a"),
                                              Entry(kAdd, "p1", 1, "HASH", "h-b"),
                                              Entry(kAdd, "p2", 0, "HASH", "h-c")};
  // A writer replacing bucket 1 of p1 reports the old file deleted and the new one added; the
  // new one of p2/0 replaces its slot even without a DELETE; p3/0 is new.
  std::vector<IndexManifestEntry> changes = {
      Entry(kAdd, "p1", 1, "HASH", "h-b2"), Entry(kDel, "p1", 1, "HASH", "h-b"),
      Entry(kAdd, "p2", 0, "HASH", "h-c2"), Entry(kAdd, "p3", 0, "HASH", "h-d")};
  ASSERT_OK_AND_ASSIGN(auto out, CombineIndexManifest(previous, changes, false));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"h-a", "h-b2", "h-c2", "h-d"}));
  // Deleting a slot with nothing in it is not an error for bucketed indexes (Java ignores it).
  ASSERT_OK_AND_ASSIGN(out,
                       CombineIndexManifest(previous, {Entry(kDel, "p9", 0, "HASH", "x")}, false));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"h-a", "h-b", "h-c"}));
  // Deleting everything of p1 (an overwrite) leaves p2 only.
  ASSERT_OK_AND_ASSIGN(
      out, CombineIndexManifest(
               previous, {Entry(kDel, "p1", 0, "HASH", "h-a"), Entry(kDel, "p1", 1, "HASH", "h-b")},
               false));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"h-c"}));
}

TEST(IndexManifestCombineTest, TypesDoNotShareSlots) {
  std::vector<IndexManifestEntry> previous = {Entry(kAdd, "p", 0, "HASH", "h"),
                                              Entry(kAdd, "p", 0, "DELETION_VECTORS", "dv")};
  ASSERT_OK_AND_ASSIGN(
      auto out,
      CombineIndexManifest(previous, {Entry(kAdd, "p", 0, "DELETION_VECTORS", "dv2")}, false));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"h", "dv2"}));
}

TEST(IndexManifestCombineTest, UnawareDeletionVectorsByFileName) {
  std::vector<IndexManifestEntry> previous = {
      Entry(kAdd, "p", -1, "DELETION_VECTORS", "dv-1", {"data-1", "data-2"})};
  ASSERT_OK_AND_ASSIGN(
      auto out,
      CombineIndexManifest(previous, {Entry(kAdd, "p", -1, "DELETION_VECTORS", "dv-2", {"data-3"})},
                           true));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"dv-1", "dv-2"}));
  // Replacing dv-1 by a file covering one more data file.
  ASSERT_OK_AND_ASSIGN(
      out, CombineIndexManifest(
               previous,
               {Entry(kDel, "p", -1, "DELETION_VECTORS", "dv-1", {"data-1", "data-2"}),
                Entry(kAdd, "p", -1, "DELETION_VECTORS", "dv-3", {"data-1", "data-2", "data-4"})},
               true));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"dv-3"}));
  EXPECT_THAT(CombineIndexManifest(previous,
                                   {Entry(kAdd, "p", -1, "DELETION_VECTORS", "dv-1", {"x"})}, true),
              IsError(StatusCode::kInvalid, "dv-1 is added but is already there"));
  EXPECT_THAT(
      CombineIndexManifest(previous, {Entry(kAdd, "p", -1, "DELETION_VECTORS", "dv-9", {"data-2"})},
                           true),
      IsError(StatusCode::kInvalid, "deletion vector for data file data-2, which already has one"));
  EXPECT_THAT(
      CombineIndexManifest(previous, {Entry(kDel, "p", -1, "DELETION_VECTORS", "dv-7")}, true),
      IsError(StatusCode::kInvalid, "dv-7 (DELETION_VECTORS) is deleted but is not in"));
}

TEST(IndexManifestCombineTest, GlobalIndexesByFileName) {
  std::vector<IndexManifestEntry> previous = {Entry(kAdd, "", 0, "BTREE", "g-1")};
  ASSERT_OK_AND_ASSIGN(auto out,
                       CombineIndexManifest(previous, {Entry(kAdd, "", 0, "BTREE", "g-2")}, false));
  EXPECT_EQ(Names(out), (std::vector<std::string>{"g-1", "g-2"}));
  EXPECT_THAT(CombineIndexManifest(previous, {Entry(kDel, "", 0, "BTREE", "g-3")}, false),
              IsError(StatusCode::kInvalid, "g-3 (BTREE) is deleted but is not in"));
}

TEST(IndexManifestCombineTest, RefusesDeleteEntriesInThePreviousManifest) {
  EXPECT_THAT(CombineIndexManifest({Entry(kDel, "p", 0, "HASH", "h")}, {}, false),
              IsError(StatusCode::kCorruption, "holds a DELETE entry for h"));
}

}  // namespace
}  // namespace fjord
