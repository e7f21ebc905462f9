#include "fjord/format/deletion_vector.h"

#include <zlib.h>

#include <map>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

void PutLE16(std::string* s, uint16_t v) { s->append(reinterpret_cast<const char*>(&v), 2); }
void PutLE32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void PutLE64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
void PutBE32(std::string* s, uint32_t v) {
  for (int i = 3; i >= 0; --i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Portable RoaringBitmap of `values` (all < 2^32), one array or bitmap container per 2^16 block,
// optionally a run container for the first block.
std::string Roaring(const std::vector<uint32_t>& values, bool first_as_run = false) {
  std::map<uint16_t, std::vector<uint16_t>> blocks;
  for (uint32_t v : values)
    blocks[static_cast<uint16_t>(v >> 16)].push_back(static_cast<uint16_t>(v));
  std::string out;
  uint32_t n = static_cast<uint32_t>(blocks.size());
  if (first_as_run) {
    PutLE32(&out, 12347u | ((n - 1) << 16));
    std::string flags((n + 7) / 8, '\0');
    flags[0] = 1;
    out += flags;
  } else {
    PutLE32(&out, 12346);
    PutLE32(&out, n);
  }
  for (const auto& [key, vals] : blocks) {
    PutLE16(&out, key);
    PutLE16(&out, static_cast<uint16_t>(vals.size() - 1));
  }
  if (!first_as_run || n >= 4) {
    for (uint32_t i = 0; i < n; ++i) PutLE32(&out, 0);  // offsets, unused by the reader
  }
  bool first = true;
  for (const auto& [key, vals] : blocks) {
    if (first && first_as_run) {
      // Runs of consecutive values: (start, length - 1).
      std::vector<std::pair<uint16_t, uint16_t>> runs;
      for (uint16_t v : vals) {
        if (!runs.empty() && runs.back().first + runs.back().second + 1 == v) {
          ++runs.back().second;
        } else {
          runs.emplace_back(v, 0);
        }
      }
      PutLE16(&out, static_cast<uint16_t>(runs.size()));
      for (auto [s, l] : runs) {
        PutLE16(&out, s);
        PutLE16(&out, l);
      }
    } else if (vals.size() > 4096) {
      std::vector<uint64_t> words(1024, 0);
      for (uint16_t v : vals) words[v / 64] |= uint64_t{1} << (v % 64);
      for (uint64_t w : words) PutLE64(&out, w);
    } else {
      for (uint16_t v : vals) PutLE16(&out, v);
    }
    first = false;
  }
  return out;
}

std::string Vector32(const std::string& bitmap) {
  std::string body;
  PutBE32(&body, 1581511376u);
  body += bitmap;
  std::string out;
  PutBE32(&out, static_cast<uint32_t>(body.size()));
  out += body;
  PutBE32(&out, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                            static_cast<uInt>(body.size()))));
  return out;
}

std::string Vector64(const std::map<uint32_t, std::vector<uint32_t>>& by_high) {
  std::string body;
  PutLE32(&body, 1681511377u);
  PutLE64(&body, by_high.size());
  for (const auto& [high, lows] : by_high) {
    PutLE32(&body, high);
    body += Roaring(lows);
  }
  std::string out;
  PutBE32(&out, static_cast<uint32_t>(body.size()));
  out += body;
  PutBE32(&out, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                            static_cast<uInt>(body.size()))));
  return out;
}

TEST(DeletionVectorTest, ThirtyTwoBitArrayContainers) {
  std::string file = "\x01" + Vector32(Roaring({0, 3, 7, 70000, 70001}));
  ASSERT_OK_AND_ASSIGN(DeletionVector dv,
                       DeletionVector::Decode(file, 1, static_cast<int64_t>(file.size() - 9), "f"));
  EXPECT_EQ(dv.positions(), (std::vector<int64_t>{0, 3, 7, 70000, 70001}));
  EXPECT_TRUE(dv.IsDeleted(3));
  EXPECT_FALSE(dv.IsDeleted(4));
  EXPECT_EQ(dv.cardinality(), 5);
}

TEST(DeletionVectorTest, RunAndBitmapContainers) {
  std::vector<uint32_t> values;
  for (uint32_t v = 10; v < 20; ++v) values.push_back(v);               // a run in block 0
  for (uint32_t v = 65536; v < 65536 + 5000; ++v) values.push_back(v);  // bitmap in block 1
  std::string v = Vector32(Roaring(values, /*first_as_run=*/true));
  std::string file = "\x01" + v;
  ASSERT_OK_AND_ASSIGN(DeletionVector dv,
                       DeletionVector::Decode(file, 1, static_cast<int64_t>(v.size() - 8), "f"));
  std::vector<int64_t> expected(values.begin(), values.end());
  EXPECT_EQ(dv.positions(), expected);
}

TEST(DeletionVectorTest, SixtyFourBitLayout) {
  std::string v = Vector64({{0, {1, 2, 5}}, {2, {9}}});
  std::string file = "\x01" + v;
  // For the 64-bit layout the entry's length covers the size and CRC fields too.
  ASSERT_OK_AND_ASSIGN(DeletionVector dv,
                       DeletionVector::Decode(file, 1, static_cast<int64_t>(v.size()), "f"));
  EXPECT_EQ(dv.positions(), (std::vector<int64_t>{1, 2, 5, (int64_t{2} << 32) + 9}));
}

TEST(DeletionVectorTest, SeveralVectorsInOneFile) {
  std::string a = Vector32(Roaring({1}));
  std::string b = Vector32(Roaring({2, 4}));
  std::string file = "\x01" + a + b;
  ASSERT_OK_AND_ASSIGN(DeletionVector second,
                       DeletionVector::Decode(file, static_cast<int64_t>(1 + a.size()),
                                              static_cast<int64_t>(b.size() - 8), "f"));
  EXPECT_EQ(second.positions(), (std::vector<int64_t>{2, 4}));
}

TEST(DeletionVectorTest, CorruptionIsReported) {
  std::string good = "\x01" + Vector32(Roaring({1, 2, 3}));
  const int64_t len = static_cast<int64_t>(good.size() - 9);
  std::string bad_crc = good;
  bad_crc[bad_crc.size() - 6] ^= 0x55;
  EXPECT_THAT(
      DeletionVector::Decode(bad_crc, 1, len, "index-1"),
      IsError(StatusCode::kCorruption, "index-1: deletion vector at offset 1: CRC mismatch"));
  EXPECT_THAT(DeletionVector::Decode(good.substr(0, good.size() - 3), 1, len, "index-1"),
              IsError(StatusCode::kCorruption, "exceeds the file"));
  EXPECT_THAT(DeletionVector::Decode(good, 100, len, "index-1"),
              IsError(StatusCode::kCorruption, "outside the file"));
  std::string bad_magic = "\x01" + Vector32(Roaring({1}));
  bad_magic[5] ^= 0x01;
  // Recompute nothing: the CRC catches it first.
  EXPECT_THAT(DeletionVector::Decode(bad_magic, 1, len, "f"),
              HasStatusCode(StatusCode::kCorruption));
}

TEST(DeletionVectorTest, TruncatedRoaringIsCorruption) {
  std::string bitmap = Roaring({1, 2, 3});
  std::vector<int64_t> out;
  size_t consumed = 0;
  for (size_t cut = 0; cut < bitmap.size(); ++cut) {
    out.clear();
    EXPECT_FALSE(DecodePortableRoaring(bitmap.substr(0, cut), 0, &out, &consumed).ok()) << cut;
  }
  EXPECT_OK(DecodePortableRoaring(bitmap, 0, &out, &consumed));
  EXPECT_EQ(consumed, bitmap.size());
}

}  // namespace
}  // namespace fjord
