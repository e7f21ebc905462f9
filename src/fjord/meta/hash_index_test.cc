#include "fjord/meta/hash_index.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

// Java's hash of the one-column INT key rows 0 and 1 (spec/format.md §6.1 test vectors).
int32_t IntKeyHash(int32_t v) {
  BinaryRowWriter w(1);
  w.Reset();
  w.WriteInt(0, v);
  return HashBinaryRow(w.data());
}

TEST(HashIndexTest, EncodesBigEndianInts) {
  ASSERT_EQ(static_cast<uint32_t>(IntKeyHash(0)), 0xee18d2a5u);
  ASSERT_EQ(static_cast<uint32_t>(IntKeyHash(1)), 0x5759f99eu);
  std::string bytes = EncodeHashIndex({IntKeyHash(0), IntKeyHash(1), -1, 7});
  EXPECT_EQ(bytes,
            std::string("\xee\x18\xd2\xa5\x57\x59\xf9\x9e\xff\xff\xff\xff\x00\x00\x00\x07", 16));
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> back, DecodeHashIndex(bytes, "f"));
  EXPECT_EQ(back, (std::vector<int32_t>{IntKeyHash(0), IntKeyHash(1), -1, 7}));
  EXPECT_EQ(EncodeHashIndex({}), "");
}

// The bytes of a hash index file Java Paimon 1.4.2 wrote (its HashBucketAssigner, as the Java
// oracle's `write` uses it) for one bucket of a table with primary key (p, id), partition p,
// holding the keys id = 1, 2, 4, 5, 7: Java's hashes of the trimmed key rows (id), in Java's
// IntHashSet order. Fjord's hashes of the same rows must be exactly these.
TEST(HashIndexTest, ReadsAJavaWrittenFile) {
  const std::string java(
      "\x57\x59\xf9\x9e\x0f\x82\x48\xf4\xeb\x3f\x5e\x0d\x56\x47\x70\xca\x4f\xe4\xbb\xf0", 20);
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> hashes, DecodeHashIndex(java, "java"));
  EXPECT_EQ(EncodeHashIndex(hashes), java);
  std::vector<int32_t> fjord;
  for (int32_t id : {1, 2, 4, 5, 7}) fjord.push_back(IntKeyHash(id));
  std::sort(hashes.begin(), hashes.end());
  std::sort(fjord.begin(), fjord.end());
  EXPECT_EQ(hashes, fjord);
}

TEST(HashIndexTest, TruncatedBytesNameTheFile) {
  EXPECT_THAT(DecodeHashIndex(std::string("\x01\x02\x03\x04\x05", 5), "index-x-0"),
              IsError(StatusCode::kCorruption, "index-x-0"));
}

TEST(HashIndexTest, WriteThenReadThroughTheManifestEntry) {
  TempDir dir;
  auto io = FileIO::Local();
  TablePaths paths{dir.path()};
  std::vector<int32_t> hashes = {5, INT32_MIN, INT32_MAX, 0, -42};
  std::string partition("\x00\x00\x00\x01xxxxxxxx", 12);
  ASSERT_OK_AND_ASSIGN(IndexManifestEntry e,
                       WriteHashIndexFile(io.get(), paths, "index-u-0", partition, 3, hashes));
  EXPECT_EQ(e.kind, FileKind::kAdd);
  EXPECT_EQ(e.partition, partition);
  EXPECT_EQ(e.bucket, 3);
  EXPECT_EQ(e.index_type, "HASH");
  EXPECT_EQ(e.file_name, "index-u-0");
  EXPECT_EQ(e.row_count, 5);
  EXPECT_EQ(e.file_size, 20);
  EXPECT_EQ(std::filesystem::file_size(dir.Join("index/index-u-0")), 20u);
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> back, ReadHashIndexFile(io.get(), paths, e));
  EXPECT_EQ(back, hashes);
  // Never overwritten in place.
  EXPECT_THAT(WriteHashIndexFile(io.get(), paths, "index-u-0", partition, 3, {1}),
              HasStatusCode(StatusCode::kAlreadyExists));
}

TEST(HashIndexTest, CorruptOrMissingFilesAreClearErrors) {
  TempDir dir;
  auto io = FileIO::Local();
  TablePaths paths{dir.path()};
  ASSERT_OK_AND_ASSIGN(IndexManifestEntry e,
                       WriteHashIndexFile(io.get(), paths, "index-u-1", "", 0, {1, 2, 3}));
  {
    std::ofstream out(dir.Join("index/index-u-1"), std::ios::binary | std::ios::trunc);
    out << "garbage";  // 7 bytes
  }
  EXPECT_THAT(ReadHashIndexFile(io.get(), paths, e),
              IsError(StatusCode::kCorruption, dir.Join("index/index-u-1")));
  IndexManifestEntry wrong_count = e;
  wrong_count.file_size = 7;
  wrong_count.row_count = 1;
  EXPECT_THAT(ReadHashIndexFile(io.get(), paths, wrong_count),
              IsError(StatusCode::kCorruption, "_ROW_COUNT"));
  IndexManifestEntry dv = e;
  dv.index_type = "DELETION_VECTORS";
  EXPECT_THAT(ReadHashIndexFile(io.get(), paths, dv), IsError(StatusCode::kInvalid, "index-u-1"));
  IndexManifestEntry missing = e;
  missing.file_name = "index-gone-0";
  Status st = ReadHashIndexFile(io.get(), paths, missing).status();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("index-gone-0"), std::string::npos) << st.ToString();
  IndexManifestEntry external = e;
  external.external_path = dir.Join("elsewhere/index-u-1");
  EXPECT_EQ(IndexFilePath(paths, external), dir.Join("elsewhere/index-u-1"));
}

}  // namespace
}  // namespace fjord
