#include "fjord/meta/deletion_vector_index.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::map<std::string, std::vector<int64_t>> AllOf(BucketDeletionVectors& b) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const std::string& f : b.DataFiles()) out[f] = b.VectorOf(f)->positions();
  return out;
}

class DeletionVectorIndexTest : public ::testing::TestWithParam<bool> {
 protected:
  TempDir dir_;
  std::shared_ptr<FileIO> io_ = FileIO::Local();
  TablePaths paths_{dir_.path()};
  IndexFileNamer namer_{"u"};
};

TEST_P(DeletionVectorIndexTest, RestoreModifyWriteRestore) {
  const bool bitmap64 = GetParam();
  ASSERT_OK_AND_ASSIGN(auto b, BucketDeletionVectors::Restore(io_, paths_, &namer_, bitmap64, {}));
  ASSERT_OK_AND_ASSIGN(auto nothing, b.WriteIfModified());
  EXPECT_FALSE(nothing.has_value());

  std::mt19937_64 rng(3);
  std::map<std::string, std::set<int64_t>> expected;
  for (int i = 0; i < 20000; ++i) {
    std::string file = "data-" + std::to_string(i % 3) + ".parquet";
    int64_t p = static_cast<int64_t>(rng() % 200000);
    if (bitmap64 && i % 5 == 0) p += int64_t{1} << 32;
    ASSERT_OK(b.NotifyDeletion(file, p));
    expected[file].insert(p);
  }
  ASSERT_OK(b.NotifyVector("data-9.parquet", DeletionVector({4, 5, 6})));
  expected["data-9.parquet"] = {4, 5, 6};
  ASSERT_OK_AND_ASSIGN(auto written, b.WriteIfModified());
  ASSERT_TRUE(written.has_value());
  EXPECT_FALSE(b.modified());
  EXPECT_EQ(written->index_type, "DELETION_VECTORS");
  EXPECT_EQ(written->file_name, "index-u-0");
  EXPECT_EQ(written->row_count, 4);
  const std::string path = dir_.Join("index/index-u-0");
  const std::string bytes = ReadAll(path);
  EXPECT_EQ(written->file_size, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(bytes[0], 1);

  // The ranges follow each other from byte 1 to the end, each decoding to its file's vector.
  ASSERT_TRUE(written->dv_ranges.has_value());
  ASSERT_EQ(written->dv_ranges->size(), 4u);
  int64_t next = 1;
  for (const DeletionVectorMeta& r : *written->dv_ranges) {
    EXPECT_EQ(r.offset, next) << r.data_file_name;
    ASSERT_OK_AND_ASSIGN(DeletionVector dv,
                         DeletionVector::Decode(bytes, r.offset, r.length, path));
    const auto& want = expected.at(r.data_file_name);
    EXPECT_EQ(dv.positions(), std::vector<int64_t>(want.begin(), want.end()));
    EXPECT_EQ(r.cardinality, static_cast<int64_t>(want.size()));
    next = r.offset + r.length + (bitmap64 ? 0 : 8);  // 32-bit: the size and CRC fields
  }
  EXPECT_EQ(next, written->file_size);

  // Restored from the file, the same vectors; deleting one again changes nothing.
  ASSERT_OK_AND_ASSIGN(auto again,
                       BucketDeletionVectors::Restore(io_, paths_, &namer_, bitmap64, {*written}));
  std::map<std::string, std::vector<int64_t>> want;
  for (const auto& [f, s] : expected) want[f] = std::vector<int64_t>(s.begin(), s.end());
  EXPECT_EQ(AllOf(again), want);
  ASSERT_OK(again.NotifyDeletion("data-9.parquet", 5));
  EXPECT_FALSE(again.modified());

  // Modify: a new deletion, a merged vector, a removed file; written as a second file.
  ASSERT_OK(again.NotifyDeletion("data-9.parquet", 70000));
  ASSERT_OK(again.MergeVector("data-0.parquet", DeletionVector({1, 2, 3})));
  again.RemoveVectorOf("data-1.parquet");
  want["data-9.parquet"] = {4, 5, 6, 70000};
  auto& d0 = want["data-0.parquet"];
  d0.insert(d0.end(), {1, 2, 3});
  std::sort(d0.begin(), d0.end());
  d0.erase(std::unique(d0.begin(), d0.end()), d0.end());
  want.erase("data-1.parquet");
  ASSERT_OK_AND_ASSIGN(auto second, again.WriteIfModified());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->file_name, "index-u-1");
  EXPECT_EQ(second->row_count, 3);
  ASSERT_OK_AND_ASSIGN(auto third,
                       BucketDeletionVectors::Restore(io_, paths_, &namer_, bitmap64, {*second}));
  EXPECT_EQ(AllOf(third), want);
}

INSTANTIATE_TEST_SUITE_P(Layouts, DeletionVectorIndexTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Bitmap64" : "Bitmap32"; });

TEST_F(DeletionVectorIndexTest, SnapshotsStayWhileTheVectorChanges) {
  ASSERT_OK_AND_ASSIGN(auto b, BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {}));
  EXPECT_EQ(b.VectorOf("f"), nullptr);
  ASSERT_OK(b.NotifyDeletion("f", 7));
  auto held = b.VectorOf("f");
  EXPECT_EQ(held, b.VectorOf("f"));  // cached until the next change
  ASSERT_OK(b.NotifyDeletion("f", 3));
  EXPECT_EQ(held->positions(), std::vector<int64_t>{7});
  EXPECT_EQ(b.VectorOf("f")->positions(), (std::vector<int64_t>{3, 7}));
  b.RemoveVectorOf("f");
  EXPECT_EQ(held->positions(), std::vector<int64_t>{7});
  EXPECT_EQ(b.VectorOf("f"), nullptr);
}

TEST_F(DeletionVectorIndexTest, AllRemovedWritesTheVersionByteAlone) {
  ASSERT_OK_AND_ASSIGN(auto b, BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {}));
  ASSERT_OK(b.NotifyDeletion("f", 1));
  ASSERT_OK_AND_ASSIGN(auto first, b.WriteIfModified());
  ASSERT_OK_AND_ASSIGN(auto restored,
                       BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {*first}));
  restored.RemoveVectorOf("absent");
  EXPECT_FALSE(restored.modified());
  restored.RemoveVectorOf("f");
  EXPECT_TRUE(restored.modified());
  ASSERT_OK_AND_ASSIGN(auto empty, restored.WriteIfModified());
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->file_size, 1);
  EXPECT_EQ(empty->row_count, 0);
  ASSERT_TRUE(empty->dv_ranges.has_value());
  EXPECT_TRUE(empty->dv_ranges->empty());
  EXPECT_EQ(ReadAll(dir_.Join("index/" + empty->file_name)), std::string(1, '\x01'));
  ASSERT_OK_AND_ASSIGN(auto none,
                       BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {*empty}));
  EXPECT_TRUE(none.DataFiles().empty());
}

TEST_F(DeletionVectorIndexTest, LaterRestoredFileWins) {
  ASSERT_OK_AND_ASSIGN(IndexFileMeta a,
                       WriteDeletionVectorsIndexFile(
                           io_.get(), paths_, "index-a-0",
                           {{"f", std::make_shared<const DeletionVector>(std::vector<int64_t>{1})},
                            {"g", std::make_shared<const DeletionVector>(std::vector<int64_t>{2})}},
                           false));
  ASSERT_OK_AND_ASSIGN(
      IndexFileMeta c,
      WriteDeletionVectorsIndexFile(
          io_.get(), paths_, "index-a-1",
          {{"f", std::make_shared<const DeletionVector>(std::vector<int64_t>{9})}}, false));
  ASSERT_OK_AND_ASSIGN(auto b, BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {a, c}));
  EXPECT_EQ(AllOf(b), (std::map<std::string, std::vector<int64_t>>{{"f", {9}}, {"g", {2}}}));
  EXPECT_FALSE(b.modified());
}

TEST_F(DeletionVectorIndexTest, BadInputNamesTheFile) {
  ASSERT_OK_AND_ASSIGN(auto b, BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {}));
  EXPECT_THAT(b.NotifyDeletion("data-1.orc", int64_t{1} << 31),
              IsError(StatusCode::kInvalid, "position 2147483648 of data file data-1.orc"));
  EXPECT_THAT(b.NotifyDeletion("data-1.orc", -1), HasStatusCode(StatusCode::kInvalid));
  ASSERT_OK(b.NotifyDeletion("data-1.orc", 100));
  ASSERT_OK_AND_ASSIGN(auto meta, b.WriteIfModified());
  const std::string path = dir_.Join("index/" + meta->file_name);
  const std::string good = ReadAll(path);

  std::string flipped = good;
  flipped[flipped.size() - 6] ^= 0x10;  // inside the bitmap: the CRC no longer matches
  WriteAll(path, flipped);
  EXPECT_THAT(BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {*meta}),
              IsError(StatusCode::kCorruption, path + ": deletion vector at offset 1: CRC"));
  std::string version = good;
  version[0] = 2;
  WriteAll(path, version);
  EXPECT_THAT(BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {*meta}),
              IsError(StatusCode::kCorruption, path + ": version 2, expected 1"));
  WriteAll(path, good.substr(0, 10));
  EXPECT_THAT(BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {*meta}),
              IsError(StatusCode::kCorruption, path));
  IndexFileMeta no_ranges = *meta;
  no_ranges.dv_ranges.reset();
  EXPECT_THAT(BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {no_ranges}),
              IsError(StatusCode::kCorruption, path));
  IndexFileMeta hash = *meta;
  hash.index_type = "HASH";
  EXPECT_THAT(BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {hash}),
              IsError(StatusCode::kInvalid, path));
  IndexFileMeta missing = *meta;
  missing.file_name = "index-gone-0";
  EXPECT_THAT(BucketDeletionVectors::Restore(io_, paths_, &namer_, false, {missing}),
              IsError(StatusCode::kNotFound, "index-gone-0"));
  // Written files are new: a taken name is an error, never an overwrite.
  WriteAll(dir_.Join("index/index-u-1"), "x");
  ASSERT_OK(b.NotifyDeletion("data-1.orc", 5));
  EXPECT_THAT(b.WriteIfModified(), HasStatusCode(StatusCode::kAlreadyExists));
}

}  // namespace
}  // namespace fjord
