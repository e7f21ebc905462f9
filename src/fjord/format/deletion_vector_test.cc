#include "fjord/format/deletion_vector.h"

#include <zlib.h>

#include <cstring>
#include <map>
#include <random>
#include <set>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

void PutLE16(std::string* s, uint16_t v) { s->append(reinterpret_cast<const char*>(&v), 2); }
void PutLE32(std::string* s, uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }
void PutLE64(std::string* s, uint64_t v) { s->append(reinterpret_cast<const char*>(&v), 8); }
uint32_t ReadLE32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
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

// Encode → Decode of `positions` in the given layout, through an index file that starts with the
// version byte as Java's DeletionFileWriter writes it.
std::vector<int64_t> RoundTrip(const std::vector<int64_t>& positions, bool bitmap64) {
  std::string entry = *DeletionVector(positions).Encode(bitmap64);
  std::string file = "\x01" + entry;
  auto dv = DeletionVector::Decode(file, 1, DeletionVectorRangeLength(entry.size(), bitmap64), "f");
  EXPECT_OK(dv.status());
  return dv.ok() ? dv->positions() : std::vector<int64_t>{};
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

// The bitmap part (after size and magic, before the CRC) of an encoded entry.
std::string BitmapOf(const std::string& entry) { return entry.substr(8, entry.size() - 12); }

TEST(DeletionVectorEncodeTest, EmptyVectorsAsJavaWritesThem) {
  // An empty RoaringBitmap: no run container, so the no-run cookie 12346 and a count of 0.
  std::string e32 = *DeletionVector().Encode(false);
  EXPECT_EQ(e32.substr(0, 16),
            Bytes({0, 0, 0, 12, 0x5E, 0x43, 0xF2, 0xD0, 0x3A, 0x30, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(e32.size(), 20u);
  uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(e32.data() + 4), static_cast<uInt>(12)));
  std::string crc_be;
  PutBE32(&crc_be, crc);
  EXPECT_EQ(e32.substr(16), crc_be);
  // An empty OptimizedRoaringBitmap64 holds no 32-bit bitmaps: magic (LE) and a zero count.
  std::string e64 = *DeletionVector().Encode(true);
  EXPECT_EQ(e64.substr(0, 16),
            Bytes({0, 0, 0, 12, 0xD1, 0xD3, 0x39, 0x64, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(RoundTrip({}, false), std::vector<int64_t>{});
  EXPECT_EQ(RoundTrip({}, true), std::vector<int64_t>{});
  EXPECT_EQ(DeletionVectorRangeLength(e32.size(), false), 12);
  EXPECT_EQ(DeletionVectorRangeLength(e64.size(), true), 20);
}

TEST(DeletionVectorEncodeTest, ContainerChoiceFollowsRunOptimize) {
  // One value: an array container (2 bytes) beats a run (2 + 4 bytes); offsets follow the
  // no-run header of 8 + 8 × 1 bytes.
  EXPECT_EQ(BitmapOf(*DeletionVector({5}).Encode(false)),
            Bytes({0x3A, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 5, 0}));
  // Ten consecutive values: one run (6 bytes) beats an array (20): the run cookie 12347 with
  // container count - 1 in the high half, the run flags, no offsets below 4 containers.
  std::vector<int64_t> run;
  for (int64_t v = 10; v < 20; ++v) run.push_back(v);
  EXPECT_EQ(BitmapOf(*DeletionVector(run).Encode(false)),
            Bytes({0x3B, 0x30, 0, 0, 1, 0, 0, 9, 0, 1, 0, 10, 0, 9, 0}));
  // A tie stays an array: {0, 1, 5} is 6 bytes as an array and 10 as two runs; {0, 1, 2, 3, 4,
  // 9} is 12 bytes as an array and 10 as two runs, so it becomes runs.
  EXPECT_EQ(BitmapOf(*DeletionVector({0, 1, 5}).Encode(false))[0], 0x3A);
  EXPECT_EQ(BitmapOf(*DeletionVector({0, 1, 2, 3, 4, 9}).Encode(false))[0], 0x3B);
  std::vector<int64_t> card5_runs2 = {0, 1, 2, 7, 8};  // array 10 bytes, runs 10 bytes: array
  EXPECT_EQ(BitmapOf(*DeletionVector(card5_runs2).Encode(false))[0], 0x3A);
  // Every other value of a block, 10000 of them: a bitset (8192 bytes) beats 10000 runs.
  std::vector<int64_t> alternate;
  for (int64_t v = 0; v < 20000; v += 2) alternate.push_back(v);
  std::string bitmap = BitmapOf(*DeletionVector(alternate).Encode(false));
  EXPECT_EQ(bitmap.size(), 16u + 8192u);
  EXPECT_EQ(bitmap.substr(0, 8), Bytes({0x3A, 0x30, 0, 0, 1, 0, 0, 0}));
}

TEST(DeletionVectorEncodeTest, OffsetsPointAtTheContainers) {
  // Four containers with a run among them: the run header with offsets (4 or more containers).
  std::vector<int64_t> positions;
  for (int64_t v = 0; v < 100; ++v) positions.push_back(v);                   // run
  positions.push_back((1 << 16) + 3);                                         // array
  for (int64_t v = 0; v < 5000; ++v) positions.push_back((2 << 16) + 3 * v);  // bitset
  positions.push_back((7 << 16) + 1);                                         // array
  std::string bitmap = BitmapOf(*DeletionVector(positions).Encode(false));
  ASSERT_EQ(ReadLE32(bitmap.data()), 12347u | (3u << 16));
  EXPECT_EQ(bitmap[4], 0x01);  // only the first container is a run
  const size_t header = 4 + 1 + 4 * 4 + 4 * 4;
  const std::vector<uint32_t> sizes = {2 + 4, 2, 8192, 2};
  uint32_t expected = header;
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(ReadLE32(bitmap.data() + 5 + 16 + 4 * k), expected) << k;
    expected += sizes[k];
  }
  EXPECT_EQ(bitmap.size(), expected);
  EXPECT_EQ(RoundTrip(positions, false), positions);
}

TEST(DeletionVectorEncodeTest, SixtyFourBitWritesEveryHighHalfUpToTheLargest) {
  const int64_t big = (int64_t{2} << 32) + 9;
  std::string bitmap = BitmapOf(*DeletionVector({1, big}).Encode(true));
  // Count 3, then key 0 with {1}, key 1 empty, key 2 with {9}.
  std::string expected = Bytes({3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  expected += Roaring({1});
  expected += Bytes({1, 0, 0, 0, 0x3A, 0x30, 0, 0, 0, 0, 0, 0});
  expected += Bytes({2, 0, 0, 0});
  expected += Roaring({9});
  // Roaring() writes zero offsets; Java's are the container starts (16 for one container).
  std::string fixed = expected;
  fixed.replace(12 + 12, 4, Bytes({16, 0, 0, 0}));
  fixed.replace(12 + 18 + 12 + 4 + 12, 4, Bytes({16, 0, 0, 0}));
  EXPECT_EQ(bitmap, fixed);
  EXPECT_EQ(RoundTrip({1, big}, true), (std::vector<int64_t>{1, big}));
}

TEST(DeletionVectorEncodeTest, RoundTripsManyShapes) {
  std::mt19937_64 rng(19);
  std::vector<std::vector<int64_t>> cases;
  cases.push_back({0});
  cases.push_back({kMaxDeletionPosition32});
  cases.push_back(
      {kMaxDeletionPosition32 - 70000, kMaxDeletionPosition32 - 1, kMaxDeletionPosition32});
  std::vector<int64_t> dense;  // more than 4096 per block, over three blocks, some full
  for (int64_t v = 60000; v < 3 * 65536 + 100; ++v) {
    if (v % 7 != 0 || v > 65536 * 2) dense.push_back(v);
  }
  cases.push_back(dense);
  std::set<int64_t> sparse;
  while (sparse.size() < 3000) sparse.insert(static_cast<int64_t>(rng() % 50'000'000));
  cases.emplace_back(sparse.begin(), sparse.end());
  for (const auto& c : cases) {
    EXPECT_EQ(RoundTrip(c, false), c);
    EXPECT_EQ(RoundTrip(c, true), c);
  }
  std::vector<int64_t> wide = {3, (int64_t{1} << 32) - 1, int64_t{1} << 32,
                               (int64_t{5} << 32) + 65536 * 3 + 7};
  EXPECT_EQ(RoundTrip(wide, true), wide);
  // The largest position would need 2^31 - 1 empty bitmaps before it (as in Java): over 2 GB.
  EXPECT_THAT(DeletionVector({kMaxDeletionPosition64}).Encode(true),
              IsError(StatusCode::kInvalid, "larger than 2 GB"));
}

TEST(DeletionVectorEncodeTest, PositionsOutsideTheLayoutAreRefused) {
  EXPECT_THAT(DeletionVector({kMaxDeletionPosition32 + 1}).Encode(false),
              IsError(StatusCode::kInvalid, "outside the 32-bit layout's range"));
  EXPECT_THAT(DeletionVector({-1}).Encode(true),
              IsError(StatusCode::kInvalid, "position -1 is outside the 64-bit"));
  EXPECT_THAT(DeletionVector({kMaxDeletionPosition64 + 1}).Encode(true),
              IsError(StatusCode::kInvalid, "64-bit"));
}

TEST(DeletionVectorDecodeTest, RangeLengthMustMatchTheSizeField) {
  std::string entry = *DeletionVector({1, 2}).Encode(false);
  std::string file = "\x01" + entry;
  EXPECT_THAT(DeletionVector::Decode(file, 1, static_cast<int64_t>(entry.size()), "idx"),
              IsError(StatusCode::kCorruption, "idx: deletion vector at offset 1: range length"));
  std::string e64 = *DeletionVector({1, 2}).Encode(true);
  std::string f64 = "\x01" + e64;
  EXPECT_THAT(DeletionVector::Decode(f64, 1, static_cast<int64_t>(e64.size() - 8), "idx"),
              IsError(StatusCode::kCorruption, "range length"));
}

TEST(DeletionBitmapTest, CheckedDeleteMergeAndSnapshot) {
  std::mt19937_64 rng(7);
  DeletionBitmap bitmap;
  std::set<int64_t> reference;
  // Random order over a few blocks, dense enough that some turn into bitsets.
  for (int i = 0; i < 40000; ++i) {
    int64_t p = static_cast<int64_t>(rng() % (4 * 65536)) + (i % 2 ? 0 : (int64_t{3} << 32));
    EXPECT_EQ(bitmap.Delete(p), reference.insert(p).second) << p;
  }
  EXPECT_EQ(bitmap.cardinality(), static_cast<int64_t>(reference.size()));
  for (int i = 0; i < 2000; ++i) {
    int64_t p = static_cast<int64_t>(rng() % (4 * 65536));
    EXPECT_EQ(bitmap.IsDeleted(p), reference.count(p) == 1) << p;
  }
  DeletionVector snap = bitmap.Snapshot();
  EXPECT_EQ(snap.positions(), std::vector<int64_t>(reference.begin(), reference.end()));
  EXPECT_TRUE(snap.IsDeleted(*reference.begin()));

  DeletionBitmap other;
  EXPECT_TRUE(other.Delete(1));
  EXPECT_FALSE(other.Delete(1));
  EXPECT_TRUE(other.Delete(int64_t{9} << 32));
  bitmap.Merge(other);
  reference.insert(1);
  reference.insert(int64_t{9} << 32);
  EXPECT_EQ(bitmap.Snapshot().positions(),
            std::vector<int64_t>(reference.begin(), reference.end()));
  DeletionBitmap copy(snap);
  copy.Merge(DeletionVector({1, int64_t{9} << 32}));
  EXPECT_EQ(copy.Snapshot().positions(), bitmap.Snapshot().positions());
  EXPECT_TRUE(DeletionBitmap().empty());
}

TEST(DeletionBitmapTest, EncodingMatchesTheVectorBuiltAtOnce) {
  // The bytes depend on the positions only, not on the order they were deleted in.
  DeletionBitmap bitmap;
  std::vector<int64_t> positions;
  for (int64_t v = 0; v < 70000; v += 3) positions.push_back(v);
  for (auto it = positions.rbegin(); it != positions.rend(); ++it) bitmap.Delete(*it);
  EXPECT_EQ(*bitmap.Snapshot().Encode(false), *DeletionVector(positions).Encode(false));
}

}  // namespace
}  // namespace fjord
