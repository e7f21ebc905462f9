// The stream encoders of the ORC writer (rle_encoders.h, out_stream.h) against the decoders of
// the reader (byte_rle.h, int_rle.h, compression.h), and against the byte sequences of the ORC
// specification's examples.
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fjord/format/orc/byte_rle.h"
#include "fjord/format/orc/compression.h"
#include "fjord/format/orc/int_rle.h"
#include "fjord/format/orc/out_stream.h"
#include "fjord/format/orc/rle_encoders.h"
#include "fjord/testing/test_util.h"

namespace fjord::orc {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string out;
  for (int x : b) out.push_back(static_cast<char>(x));
  return out;
}

std::string EncodeInts(const std::vector<int64_t>& values, bool is_signed) {
  std::string out;
  IntRleV2Encoder e(&out, is_signed);
  for (int64_t v : values) e.Add(v);
  e.Flush();
  return out;
}

void ExpectIntRoundTrip(const std::vector<int64_t>& values, bool is_signed,
                        const std::string& what) {
  std::string data = EncodeInts(values, is_signed);
  std::vector<int64_t> out(values.size());
  auto decoder = MakeIntRleDecoder(data, RleVersion::kV2, is_signed);
  Status st = decoder->Next(out.data(), static_cast<int64_t>(out.size()));
  ASSERT_TRUE(st.ok()) << what << ": " << st.ToString();
  EXPECT_EQ(out, values) << what;
  int64_t extra;
  EXPECT_FALSE(decoder->Next(&extra, 1).ok()) << what << ": the stream holds more values";
}

TEST(OrcIntRleV2EncoderTest, SpecExamples) {
  // ORC Specification v1, "Integer Run Length Encoding, version 2".
  EXPECT_EQ(EncodeInts({10000, 10000, 10000, 10000, 10000}, false), Bytes({0x0a, 0x27, 0x10}));
  // The specification's DELTA example packs the primes' deltas in 4 bits; 3 bits hold them.
  EXPECT_EQ(EncodeInts({2, 3, 5, 7, 11, 13, 17, 19, 23, 29}, false),
            Bytes({0xc4, 0x09, 0x02, 0x02, 0x4a, 0x28, 0xa6}));
  // Java's writer stores [1, 2, ..., 10]-like sequences as a fixed delta.
  std::vector<int64_t> ramp;
  for (int i = 1; i <= 100; ++i) ramp.push_back(i);
  EXPECT_EQ(EncodeInts(ramp, false), Bytes({0xc0, 0x63, 0x01, 0x02}));
  // DIRECT of 4 values of 16 bits: 23713, 43806, 57005, 48879.
  EXPECT_EQ(EncodeInts({23713, 43806, 57005, 48879}, false),
            Bytes({0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}));
}

TEST(OrcIntRleV2EncoderTest, RoundTripsEveryShape) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<std::pair<std::string, std::vector<int64_t>>> cases = {
      {"empty", {}},
      {"one", {42}},
      {"two equal", {7, 7}},
      {"three equal", {-7, -7, -7}},
      {"extremes", {kMin, kMax, 0, -1, 1, kMin, kMin, kMin, kMax, kMax, kMax, kMax}},
      {"long run", std::vector<int64_t>(5000, kMin)},
      {"run of 11", std::vector<int64_t>(11, 123456789)},
      {"run of 512 then 513", std::vector<int64_t>(1025, -3)},
      {"decreasing", {}},
      {"zero then up", {5, 5, 6, 9, 100}},
      {"up then zero then down", {1, 2, 2, 1}},
      {"down then flat", {10, 8, 8, 8, 1, 1}},
      {"ramp overflowing int64 deltas", {kMin, kMax, kMin, kMax}},
  };
  for (int i = 0; i < 1000; ++i) cases[8].second.push_back(1000000 - 3 * i);
  std::mt19937_64 rng(7);
  for (int width : {1, 2, 3, 7, 8, 9, 15, 17, 23, 24, 25, 27, 31, 33, 41, 49, 57, 63, 64}) {
    std::vector<int64_t> random;
    for (int i = 0; i < 1500; ++i) {
      uint64_t v = rng();
      if (width < 64) v &= (uint64_t{1} << width) - 1;
      random.push_back(static_cast<int64_t>(v));
      if (i % 97 == 0) random.insert(random.end(), static_cast<size_t>(i % 13), random.back());
    }
    cases.emplace_back("random " + std::to_string(width) + " bits", random);
    std::vector<int64_t> negative;
    for (int64_t v : random) negative.push_back(width < 64 ? -v : v);
    cases.emplace_back("negative random " + std::to_string(width) + " bits", negative);
    std::vector<int64_t> sorted = random;
    std::sort(sorted.begin(), sorted.end());
    cases.emplace_back("sorted " + std::to_string(width) + " bits", sorted);
  }
  for (const auto& [what, values] : cases) {
    ExpectIntRoundTrip(values, true, what + " (signed)");
    bool non_negative = std::all_of(values.begin(), values.end(), [](int64_t v) { return v >= 0; });
    if (non_negative) ExpectIntRoundTrip(values, false, what + " (unsigned)");
  }
}

TEST(OrcIntRleV2EncoderTest, CompactForRunsAndSequences) {
  std::vector<int64_t> sequence;
  for (int i = 0; i < 10000; ++i) sequence.push_back(1700000000 + i);
  EXPECT_LT(EncodeInts(sequence, true).size(), 200u);
  EXPECT_LT(EncodeInts(std::vector<int64_t>(10000, 5), true).size(), 100u);
  std::vector<int64_t> small;
  for (int i = 0; i < 10000; ++i) small.push_back(i % 7);
  EXPECT_LT(EncodeInts(small, false).size(), 10000u * 3 / 8 + 100);
}

TEST(OrcByteRleEncoderTest, SpecExampleAndRoundTrips) {
  std::string out;
  ByteRleEncoder e(&out);
  for (int i = 0; i < 100; ++i) e.Add(0);
  e.Add(0x44);
  e.Add(0x45);
  e.Flush();
  EXPECT_EQ(out, Bytes({0x61, 0x00, 0xfe, 0x44, 0x45}));

  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    std::vector<uint8_t> values;
    int n = static_cast<int>(rng() % 3000);
    while (static_cast<int>(values.size()) < n) {
      auto b = static_cast<uint8_t>(rng() % (round % 5 == 0 ? 2 : 256));
      values.insert(values.end(), rng() % 4 == 0 ? rng() % 300 : 1, b);
    }
    std::string data;
    ByteRleEncoder enc(&data);
    for (uint8_t b : values) enc.Add(b);
    enc.Flush();
    std::vector<uint8_t> decoded(values.size());
    ByteRleDecoder dec(data);
    ASSERT_OK(dec.Next(decoded.data(), static_cast<int64_t>(decoded.size())));
    EXPECT_EQ(decoded, values) << "round " << round;
    uint8_t extra;
    EXPECT_FALSE(dec.Next(&extra, 1).ok());
  }
}

TEST(OrcBoolRleEncoderTest, RoundTrips) {
  std::mt19937 rng(5);
  for (int round = 0; round < 50; ++round) {
    std::vector<uint8_t> values;
    std::string data;
    BoolRleEncoder enc(&data);
    int n = static_cast<int>(rng() % 5000);
    while (static_cast<int>(values.size()) < n) {
      bool v = rng() % 3 == 0;
      if (rng() % 5 == 0) {
        int64_t k = rng() % 200;
        enc.AddRepeated(v, k);
        values.insert(values.end(), static_cast<size_t>(k), v ? 1 : 0);
      } else {
        enc.Add(v);
        values.push_back(v ? 1 : 0);
      }
    }
    enc.Flush();
    EXPECT_LE(data.size(), values.size() / 8 + values.size() / 1024 + 2);
    std::vector<uint8_t> decoded(values.size());
    ASSERT_OK(BoolRleDecoder(data).Next(decoded.data(), static_cast<int64_t>(decoded.size())));
    EXPECT_EQ(decoded, values) << "round " << round;
  }
}

TEST(OrcOutStreamTest, ChunksRoundTripThroughTheDecompressor) {
  std::string text;
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    text.push_back(static_cast<char>(i % 1000 < 700 ? 'a' + i % 7 : static_cast<char>(rng())));
  }
  for (OrcCompression c : {OrcCompression::kNone, OrcCompression::kZlib, OrcCompression::kSnappy,
                           OrcCompression::kLz4, OrcCompression::kZstd}) {
    std::unique_ptr<Compressor> compressor;
    if (c != OrcCompression::kNone) {
      ASSERT_OK_AND_ASSIGN(compressor, Compressor::Make(c, c == OrcCompression::kZlib ? -1 : 3));
    }
    const uint64_t block = 4096;
    OutStream stream(compressor.get(), block);
    // Appended in uneven pieces, spilled between them.
    for (size_t pos = 0; pos < text.size();) {
      size_t n = std::min<size_t>(text.size() - pos, 1 + rng() % 9000);
      stream.buffer()->append(text, pos, n);
      pos += n;
      ASSERT_OK(stream.Spill());
      if (c != OrcCompression::kNone) {
        EXPECT_LT(stream.buffer()->size(), block);
      }
    }
    ASSERT_OK(stream.Finish());
    if (c != OrcCompression::kNone) {
      EXPECT_LT(stream.output().size(), text.size());
    }
    Decompressor d(c, block);
    std::string back;
    ASSERT_OK(d.Decompress(stream.output(), 1 << 30, &back));
    EXPECT_EQ(back, text) << OrcCompressionName(c);
  }
}

TEST(OrcOutStreamTest, IncompressibleBlocksAreStoredAsTheyAre) {
  std::string noise;
  std::mt19937 rng(13);
  for (int i = 0; i < 10000; ++i) noise.push_back(static_cast<char>(rng()));
  ASSERT_OK_AND_ASSIGN(auto compressor, Compressor::Make(OrcCompression::kZstd, 1));
  OutStream stream(compressor.get(), 1 << 20);
  stream.buffer()->assign(noise);
  ASSERT_OK(stream.Finish());
  ASSERT_EQ(stream.output().size(), noise.size() + 3);
  EXPECT_EQ(static_cast<uint8_t>(stream.output()[0]) & 1, 1);  // isOriginal
  EXPECT_EQ(stream.output().substr(3), noise);
}

TEST(OrcCompressorTest, RejectsBadLevelsAndLzo) {
  EXPECT_THAT(Compressor::Make(OrcCompression::kZstd, 99), IsError(StatusCode::kInvalid, "zstd"));
  EXPECT_THAT(Compressor::Make(OrcCompression::kZlib, 10), IsError(StatusCode::kInvalid, "zlib"));
  EXPECT_THAT(Compressor::Make(OrcCompression::kLzo, 0),
              IsError(StatusCode::kNotImplemented, "LZO"));
}

}  // namespace
}  // namespace fjord::orc
