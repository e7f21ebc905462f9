// The stream decoders against the examples of the ORC specification and hand-made edge cases;
// Arrow-written files exercise them at scale (orc_reader_test.cc).
#include <string>
#include <vector>

#include "fjord/format/orc/byte_rle.h"
#include "fjord/format/orc/compression.h"
#include "fjord/format/orc/int_rle.h"
#include "fjord/testing/test_util.h"

namespace fjord::orc {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string out;
  for (int x : b) out.push_back(static_cast<char>(x));
  return out;
}

Result<std::vector<int64_t>> DecodeInts(const std::string& data, RleVersion v, bool is_signed,
                                        int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  FJORD_RETURN_NOT_OK(MakeIntRleDecoder(data, v, is_signed)->Next(out.data(), n));
  return out;
}

std::vector<int64_t> Range(int64_t from, int64_t to, int64_t step = 1) {
  std::vector<int64_t> out;
  for (int64_t x = from; step > 0 ? x <= to : x >= to; x += step) out.push_back(x);
  return out;
}

TEST(OrcByteRleTest, SpecExamples) {
  // A hundred 0s, then the literals 0x44, 0x45.
  std::string data = Bytes({0x61, 0x00, 0xfe, 0x44, 0x45});
  ByteRleDecoder d(data);
  std::vector<uint8_t> out(102);
  ASSERT_OK(d.Next(out.data(), 40));  // a run split over calls
  ASSERT_OK(d.Next(out.data() + 40, 62));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(out[i], 0);
  EXPECT_EQ(out[100], 0x44);
  EXPECT_EQ(out[101], 0x45);
  uint8_t extra;
  EXPECT_THAT(d.Next(&extra, 1), IsError(StatusCode::kCorruption, "stream ends"));
}

TEST(OrcByteRleTest, TruncatedInput) {
  uint8_t out[8];
  EXPECT_THAT(ByteRleDecoder(Bytes({0x05})).Next(out, 1),
              IsError(StatusCode::kCorruption, "truncated run"));
  EXPECT_THAT(ByteRleDecoder(Bytes({0xfd, 1, 2})).Next(out, 3),
              IsError(StatusCode::kCorruption, "3 literals claimed but only 2"));
}

TEST(OrcBoolRleTest, SpecExampleAndSplits) {
  // [0xff, 0x80]: one true then seven false... preceded by eight trues.
  std::string data = Bytes({0xfe, 0xff, 0x80});
  BoolRleDecoder d(data);
  std::vector<uint8_t> out(16);
  ASSERT_OK(d.Next(out.data(), 3));
  ASSERT_OK(d.Next(out.data() + 3, 13));
  std::vector<uint8_t> expected = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(out, expected);
  uint8_t extra;
  EXPECT_THAT(d.Next(&extra, 1), IsError(StatusCode::kCorruption, "stream ends"));
}

TEST(OrcIntRleV1Test, SpecExamples) {
  EXPECT_THAT(*DecodeInts(Bytes({0x61, 0x00, 0x07}), RleVersion::kV1, false, 100),
              ::testing::Each(7));
  EXPECT_EQ(*DecodeInts(Bytes({0x61, 0xff, 0x64}), RleVersion::kV1, false, 100), Range(100, 1, -1));
  EXPECT_EQ(*DecodeInts(Bytes({0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b}), RleVersion::kV1, false, 5),
            (std::vector<int64_t>{2, 3, 4, 7, 11}));
  // Signed: zigzag varints; a run of -1, -2, -3 (base -1 = zigzag 1, delta -1).
  EXPECT_EQ(*DecodeInts(Bytes({0x00, 0xff, 0x01, 0xfe, 0x03, 0x04}), RleVersion::kV1, true, 5),
            (std::vector<int64_t>{-1, -2, -3, -2, 2}));
  // A 10-byte varint of 2^64 - 1.
  std::string max = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  EXPECT_EQ((*DecodeInts(Bytes({0xff}) + max, RleVersion::kV1, false, 1))[0], -1);
}

TEST(OrcIntRleV1Test, CorruptInput) {
  EXPECT_THAT(DecodeInts(Bytes({0x61, 0x00}), RleVersion::kV1, false, 3),
              IsError(StatusCode::kCorruption, "stream ends"));
  EXPECT_THAT(DecodeInts(Bytes({0xfe, 0x01}), RleVersion::kV1, false, 2),
              IsError(StatusCode::kCorruption, "stream ends"));
  std::string too_long = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02});
  EXPECT_THAT(DecodeInts(too_long, RleVersion::kV1, false, 1),
              IsError(StatusCode::kCorruption, "exceeds 64 bits"));
}

TEST(OrcIntRleV2Test, SpecExamples) {
  // Short repeat: 5 x 10000.
  EXPECT_THAT(*DecodeInts(Bytes({0x0a, 0x27, 0x10}), RleVersion::kV2, false, 5),
              ::testing::Each(10000));
  // Direct: 16-bit values.
  EXPECT_EQ(*DecodeInts(Bytes({0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}),
                        RleVersion::kV2, false, 4),
            (std::vector<int64_t>{23713, 43806, 57005, 48879}));
  // Patched base: one patch for 1000000.
  std::vector<int64_t> patched = {2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
                                  2100, 2110, 2120, 2130,    2140, 2150, 2160, 2170, 2180, 2190};
  EXPECT_EQ(*DecodeInts(Bytes({0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
                               0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82,
                               0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8}),
                        RleVersion::kV2, false, 20),
            patched);
  // Delta: primes.
  EXPECT_EQ(*DecodeInts(Bytes({0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}), RleVersion::kV2,
                        false, 10),
            (std::vector<int64_t>{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}));
}

TEST(OrcIntRleV2Test, MoreShapes) {
  // Signed short repeat of -3 (zigzag 5), 3 times, then a signed direct run of 1-bit values.
  EXPECT_EQ(*DecodeInts(Bytes({0x00, 0x05, 0x40, 0x02, 0xa0}), RleVersion::kV2, true, 6),
            (std::vector<int64_t>{-3, -3, -3, -1, 0, -1}));
  // Delta with a fixed delta (width 0): 512 values 10, 7, 4, ... (base 10, delta base -3).
  std::vector<int64_t> fixed =
      *DecodeInts(Bytes({0xc1, 0xff, 0x0a, 0x05}), RleVersion::kV2, false, 512);
  EXPECT_EQ(fixed.front(), 10);
  EXPECT_EQ(fixed[511], 10 - 3 * 511);
  // Delta of a single value still carries a delta base.
  EXPECT_EQ(*DecodeInts(Bytes({0xc0, 0x00, 0x07, 0x00}), RleVersion::kV2, false, 1),
            (std::vector<int64_t>{7}));
  // Decreasing variable delta: 100, 90, 89, 85 (base 100, delta base -10, deltas 1, 4).
  EXPECT_EQ(*DecodeInts(Bytes({0xc6, 0x03, 0x64, 0x13, 0x14}), RleVersion::kV2, false, 4),
            (std::vector<int64_t>{100, 90, 89, 85}));
  // Direct with 64-bit values: INT64_MIN, INT64_MAX (signed, zigzag).
  std::string d64 = Bytes({0x7e, 0x01}) + std::string(15, '\xff') + "\xfe";
  EXPECT_EQ(*DecodeInts(d64, RleVersion::kV2, true, 2),
            (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
}

TEST(OrcIntRleV2Test, PatchedBaseWithLongGap) {
  // 300 values of width 1 from base 0, the last patched to 2 at a gap of 299 = 255 + 44: patch
  // width 1, gap width 8, two patch entries of 9 bits: (255, 0) and (44, 1).
  std::string data = Bytes({0x81, 0x2b, 0x00, 0xe2, 0x00});  // header, 1-byte base 0
  data += std::string(38, '\0');                             // 300 zero bits, padded
  data += Bytes({0xff, 0x16, 0x40});                         // 111111110 001011001, padded
  std::vector<int64_t> out = *DecodeInts(data, RleVersion::kV2, false, 300);
  for (int i = 0; i < 299; ++i) ASSERT_EQ(out[i], 0) << i;
  EXPECT_EQ(out[299], 2);
}

TEST(OrcIntRleV2Test, CorruptInput) {
  EXPECT_THAT(DecodeInts(Bytes({0x5e, 0x03, 0x5c}), RleVersion::kV2, false, 4),
              IsError(StatusCode::kCorruption, "stream ends"));
  EXPECT_THAT(DecodeInts(Bytes({0x0a, 0x27}), RleVersion::kV2, false, 5),
              IsError(StatusCode::kCorruption, "stream ends"));
  EXPECT_THAT(DecodeInts(Bytes({0xc6, 0x09, 0x02}), RleVersion::kV2, false, 10),
              IsError(StatusCode::kCorruption, "stream ends"));
  // A patch past the run: 2 values, gap 3.
  std::string past = Bytes({0x80, 0x01, 0x00, 0x21, 0x00, 0x00, 0xe0});
  EXPECT_THAT(DecodeInts(past, RleVersion::kV2, false, 2),
              IsError(StatusCode::kCorruption, "past the run"));
  // Patch and gap widths summing past 64 bits.
  std::string wide = Bytes({0x80, 0x01, 0x1f, 0xe1, 0x00, 0x00});
  EXPECT_THAT(DecodeInts(wide, RleVersion::kV2, false, 2),
              IsError(StatusCode::kCorruption, "patched base"));
  EXPECT_THAT(DecodeInts("", RleVersion::kV2, false, 1),
              IsError(StatusCode::kCorruption, "stream ends"));
}

TEST(OrcDecompressorTest, FramingErrors) {
  std::string out;
  Decompressor zstd(OrcCompression::kZstd, 1024);
  EXPECT_THAT(zstd.Decompress(Bytes({0x01}), 1 << 20, &out),
              IsError(StatusCode::kCorruption, "truncated compression chunk header"));
  EXPECT_THAT(zstd.Decompress(Bytes({0x0b, 0x00, 0x00, 'a'}), 1 << 20, &out),
              IsError(StatusCode::kCorruption, "claims 5 bytes but only 1 remain"));
  EXPECT_THAT(zstd.Decompress(Bytes({0x0a, 0x00, 0x00, 1, 2, 3, 4, 5}), 1 << 20, &out),
              IsError(StatusCode::kCorruption, "compression chunk 0: invalid zstd data"));
  // Original chunks are copied; the limit holds.
  ASSERT_OK(zstd.Decompress(Bytes({0x07, 0x00, 0x00, 'a', 'b', 'c'}), 1 << 20, &out));
  EXPECT_EQ(out, "abc");
  EXPECT_THAT(zstd.Decompress(Bytes({0x07, 0x00, 0x00, 'a', 'b', 'c'}), 2, &out),
              IsError(StatusCode::kCorruption, "larger than 2 bytes"));
  Decompressor lzo(OrcCompression::kLzo, 1024);
  EXPECT_THAT(lzo.Decompress(Bytes({0x07, 0x00, 0x00, 'a', 'b', 'c'}), 1 << 20, &out),
              HasStatusCode(StatusCode::kNotImplemented));
}

}  // namespace
}  // namespace fjord::orc
