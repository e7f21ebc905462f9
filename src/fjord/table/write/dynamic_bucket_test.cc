#include "fjord/table/write/dynamic_bucket.h"

#include <fstream>
#include <set>

#include "fjord/meta/hash_index.h"
#include "fjord/meta/manifest_writer.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

const std::string kPart("\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00", 16);
const std::string kOther("\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00", 16);

class DynamicBucketTest : public ::testing::Test {
 protected:
  std::unique_ptr<DynamicBucketAssigner> Make(int64_t target, int32_t max_buckets = -1) {
    return std::make_unique<DynamicBucketAssigner>(io_, dir_.path(), "avro",
                                                   DynamicBucketOptions{target, max_buckets});
  }

  // Publishes snapshot `id` whose index manifest lists `entries` (the assigner reads nothing
  // else of a snapshot).
  void Publish(int64_t id, const std::vector<IndexManifestEntry>& entries) {
    TablePaths paths{dir_.path()};
    std::string name = "index-manifest-test-" + std::to_string(id);
    ASSERT_OK(WriteIndexManifest(io_.get(), paths.ManifestFile(name), entries).status());
    Snapshot s;
    s.id = id;
    s.base_manifest_list = "manifest-list-none";
    s.delta_manifest_list = "manifest-list-none";
    s.index_manifest = name;
    s.commit_user = "test";
    ASSERT_OK(io_->CreateIfAbsent(paths.SnapshotFile(id), s.ToJson()));
  }

  std::vector<int32_t> Assign(DynamicBucketAssigner& a, const std::string& part,
                              const std::vector<int32_t>& hashes) {
    std::vector<int32_t> out;
    for (int32_t h : hashes) {
      Result<int32_t> b = a.Assign(part, h);
      EXPECT_OK(b.status());
      out.push_back(b.ok() ? *b : -1);
    }
    return out;
  }

  TempDir dir_;
  std::shared_ptr<FileIO> io_ = FileIO::Local();
};

TEST_F(DynamicBucketTest, FillsTheLowestBucketThenOpensTheNext) {
  auto a = Make(3);
  EXPECT_EQ(Assign(*a, kPart, {11, 12, 13, 14, 15, 16, 17}),
            (std::vector<int32_t>{0, 0, 0, 1, 1, 1, 2}));
  // Known keys keep their bucket and do not count twice.
  EXPECT_EQ(Assign(*a, kPart, {11, 17, 14, 18}), (std::vector<int32_t>{0, 2, 1, 2}));
  // Partitions are independent.
  EXPECT_EQ(Assign(*a, kOther, {11, 99}), (std::vector<int32_t>{0, 0}));
  ASSERT_OK_AND_ASSIGN(auto counts, a->BucketKeyCounts(kPart));
  EXPECT_EQ(counts, (std::map<int32_t, int64_t>{{0, 3}, {1, 3}, {2, 2}}));
}

TEST_F(DynamicBucketTest, MaxBucketsSendsNewKeysToExistingBuckets) {
  auto a = Make(2, 2);
  EXPECT_EQ(Assign(*a, kPart, {1, 2, 3, 4}), (std::vector<int32_t>{0, 0, 1, 1}));
  std::vector<int32_t> over = Assign(*a, kPart, {5, 6, 7, 8, 9, 10});
  for (int32_t b : over) EXPECT_TRUE(b == 0 || b == 1) << b;
  // ... and remembers them.
  EXPECT_EQ(Assign(*a, kPart, {5, 6, 7, 8, 9, 10}), over);
}

TEST_F(DynamicBucketTest, UnboundedBucketsRunOutAt32767) {
  auto a = Make(1);
  for (int32_t h = 0; h < 32767; ++h) {
    ASSERT_OK_AND_ASSIGN(int32_t b, a->Assign(kPart, h));
    ASSERT_EQ(b, h);
  }
  EXPECT_THAT(a->Assign(kPart, -5), IsError(StatusCode::kInvalid, "target-row-num"));
}

TEST_F(DynamicBucketTest, OptionsAreChecked) {
  auto options = [](std::map<std::string, std::string> m) -> Result<DynamicBucketOptions> {
    FJORD_ASSIGN_OR_RAISE(CoreOptions table, CoreOptions::FromMap(m));
    return DynamicBucketOptions::FromOptions(table);
  };
  ASSERT_OK_AND_ASSIGN(DynamicBucketOptions d, options({}));
  EXPECT_EQ(d.target_row_num, 2'000'000);
  EXPECT_EQ(d.max_buckets, -1);
  ASSERT_OK_AND_ASSIGN(
      d, options({{"dynamic-bucket.target-row-num", "5"}, {"dynamic-bucket.max-buckets", "4"}}));
  EXPECT_EQ(d.target_row_num, 5);
  EXPECT_EQ(d.max_buckets, 4);
  EXPECT_THAT(options({{"dynamic-bucket.target-row-num", "0"}}),
              IsError(StatusCode::kInvalid, "target-row-num"));
  EXPECT_THAT(options({{"dynamic-bucket.max-buckets", "0"}}),
              IsError(StatusCode::kInvalid, "max-buckets"));
  EXPECT_FALSE(options({{"dynamic-bucket.max-buckets", "many"}}).ok());
}

TEST_F(DynamicBucketTest, PrepareCommitWritesChangedBucketsOnly) {
  auto a = Make(2);
  Assign(*a, kPart, {1, 2, 3});
  Assign(*a, kOther, {4});
  ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> first, a->PrepareCommit());
  ASSERT_EQ(first.size(), 3u);
  TablePaths paths{dir_.path()};
  std::map<std::pair<std::string, int32_t>, std::vector<int32_t>> files;
  for (const HashIndexChange& c : first) {
    EXPECT_FALSE(c.old_file.has_value());
    EXPECT_EQ(c.new_file.partition, c.partition);
    EXPECT_EQ(c.new_file.bucket, c.bucket);
    ASSERT_OK_AND_ASSIGN(std::vector<int32_t> hashes,
                         ReadHashIndexFile(io_.get(), paths, c.new_file));
    files[std::make_pair(c.partition, c.bucket)] = hashes;
  }
  EXPECT_EQ(files[std::make_pair(kPart, 0)], (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(files[std::make_pair(kPart, 1)], (std::vector<int32_t>{3}));
  EXPECT_EQ(files[std::make_pair(kOther, 0)], (std::vector<int32_t>{4}));
  // Nothing new: no files.
  Assign(*a, kPart, {1, 3});
  ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> none, a->PrepareCommit());
  EXPECT_TRUE(none.empty());
  // A new key in bucket 1: its file is rewritten whole and replaces the previous one.
  EXPECT_EQ(Assign(*a, kPart, {5}), (std::vector<int32_t>{1}));
  ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> second, a->PrepareCommit());
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].bucket, 1);
  ASSERT_TRUE(second[0].old_file.has_value());
  EXPECT_EQ(second[0].old_file->file_name, first[1].new_file.file_name);
  EXPECT_NE(second[0].new_file.file_name, first[1].new_file.file_name);
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> rewritten,
                       ReadHashIndexFile(io_.get(), paths, second[0].new_file));
  EXPECT_EQ(rewritten, (std::vector<int32_t>{3, 5}));
  EXPECT_EQ(second[0].new_file.row_count, 2);
}

TEST_F(DynamicBucketTest, ASecondWriterKeepsKeysInTheirBuckets) {
  std::vector<IndexManifestEntry> live;
  {
    auto a = Make(3);
    Assign(*a, kPart, {1, 2, 3, 4, 5});  // 0,0,0,1,1
    ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> changes, a->PrepareCommit());
    for (const HashIndexChange& c : changes) live.push_back(c.new_file);
  }
  // An entry of another index type is not a hash index and is left alone.
  IndexManifestEntry dv = live[0];
  dv.index_type = "DELETION_VECTORS";
  dv.file_name = "index-not-read";
  live.push_back(dv);
  Publish(1, live);
  auto b = Make(3);
  ASSERT_OK_AND_ASSIGN(auto counts, b->BucketKeyCounts(kPart));
  EXPECT_EQ(counts, (std::map<int32_t, int64_t>{{0, 3}, {1, 2}}));
  // Old keys stay; new ones fill bucket 1, then open bucket 2.
  EXPECT_EQ(Assign(*b, kPart, {5, 1, 6, 7, 4, 8}), (std::vector<int32_t>{1, 0, 1, 2, 1, 2}));
  ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> changes, b->PrepareCommit());
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].bucket, 1);
  ASSERT_TRUE(changes[0].old_file.has_value());
  EXPECT_EQ(changes[0].old_file->file_name, live[1].file_name);
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> hashes,
                       ReadHashIndexFile(io_.get(), TablePaths{dir_.path()}, changes[0].new_file));
  EXPECT_EQ(std::set<int32_t>(hashes.begin(), hashes.end()), (std::set<int32_t>{4, 5, 6}));
  EXPECT_EQ(changes[1].bucket, 2);
  EXPECT_FALSE(changes[1].old_file.has_value());
}

TEST_F(DynamicBucketTest, ACorruptIndexFileIsAnErrorNamingIt) {
  std::vector<IndexManifestEntry> live;
  {
    auto a = Make(3);
    Assign(*a, kPart, {1, 2});
    ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> changes, a->PrepareCommit());
    live.push_back(changes[0].new_file);
  }
  Publish(1, live);
  std::string path = TablePaths{dir_.path()}.IndexFile(live[0].file_name);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "abcdefg";
  }
  auto b = Make(3);
  EXPECT_THAT(b->Assign(kPart, 9), IsError(StatusCode::kCorruption, path));
  // Another partition has no index file and is fine.
  EXPECT_OK(b->Assign(kOther, 9).status());
}

TEST_F(DynamicBucketTest, TwoFilesForOneBucketAreCorruption) {
  auto a = Make(3);
  Assign(*a, kPart, {1});
  ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> one, a->PrepareCommit());
  Assign(*a, kPart, {2});
  ASSERT_OK_AND_ASSIGN(std::vector<HashIndexChange> two, a->PrepareCommit());
  Publish(1, {one[0].new_file, two[0].new_file});
  auto b = Make(3);
  EXPECT_THAT(b->Assign(kPart, 9), IsError(StatusCode::kCorruption, "two hash index files"));
}

}  // namespace
}  // namespace fjord
