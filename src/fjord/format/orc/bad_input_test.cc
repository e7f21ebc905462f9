// Bad ORC input ends in a Status naming the file, and for column data the column and the stream;
// never a crash: hand-made corruptions of each kind, then random mutations of real files.
#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/memory.h>

#include <random>

#include "fjord/format/orc/orc_reader.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/format/orc/orc_test_file.h"
#include "fjord/testing/test_util.h"

namespace fjord::orc {
namespace {

using K = OrcTypeKind;
using orc::testing::BoolRle;
using orc::testing::BuildOrcFile;
using orc::testing::IntRleV1;
using orc::testing::TestStripe;
using orc::testing::TestType;
constexpr uint32_t kPresent = 0, kData = 1, kLength = 2, kDictionaryData = 3, kSecondary = 5;

Result<std::shared_ptr<arrow::Table>> Read(const std::string& bytes,
                                           const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(OrcTail tail, ReadOrcTail(bytes, "bad.orc"));
  OrcReadAt read_at = [&](uint64_t o, uint64_t n) -> Result<std::string> {
    if (o > bytes.size() || n > bytes.size() - o) return Status::IOError("read past the end");
    return bytes.substr(o, n);
  };
  return ReadOrcFile(tail, bytes.size(), read_at, "bad.orc", fields);
}

// One column `c` of `kind` read as `type`, with the given streams over `rows` rows.
Result<std::shared_ptr<arrow::Table>> ReadOne(TestType type, DataTypePtr paimon,
                                              std::vector<orc::testing::TestStream> streams,
                                              uint64_t rows = 3, uint32_t encoding = 0,
                                              uint32_t dictionary_size = 0) {
  std::vector<TestType> types = {{K::kStruct, {1}, {"c"}}, type};
  TestStripe s;
  s.rows = rows;
  s.streams = std::move(streams);
  s.encodings = {0, encoding};
  s.dictionary_sizes = {0, dictionary_size};
  return Read(BuildOrcFile(types, {s}), {{0, "c", paimon, {}, {}}});
}

TEST(OrcBadInputTest, CorruptStreamsNameTheFileColumnAndStream) {
  // Integer RLE claiming three literals with two present.
  EXPECT_THAT(
      ReadOne({K::kInt}, DataType::Int(), {{1, kData, std::string("\xfd\x02\x04", 3)}}),
      IsError(StatusCode::kCorruption,
              "bad.orc: ORC column 'c' (id 1, INT): DATA stream: integer RLE: stream ends"));
  // A truncated PRESENT stream.
  EXPECT_THAT(ReadOne({K::kInt}, DataType::Int(), {{1, kPresent, std::string("\xff", 1)}}),
              IsError(StatusCode::kCorruption, "'c' (id 1, INT): PRESENT stream: byte RLE"));
  // No DATA stream for values that exist.
  EXPECT_THAT(ReadOne({K::kLong}, DataType::BigInt(), {}),
              IsError(StatusCode::kCorruption, "'c' (id 1, LONG): the stripe has no DATA stream"));
  // A dictionary index past the dictionary.
  EXPECT_THAT(ReadOne({K::kString}, DataType::String(),
                      {{1, kData, IntRleV1({0, 1, 2}, false)},
                       {1, kDictionaryData, "ab"},
                       {1, kLength, IntRleV1({1, 1}, false)}},
                      3, 1, 2),
              IsError(StatusCode::kCorruption, "dictionary index 2 out of range"));
  // String lengths past the DATA stream.
  EXPECT_THAT(ReadOne({K::kString}, DataType::String(),
                      {{1, kData, "abc"}, {1, kLength, IntRleV1({1, 1, 5}, false)}}),
              IsError(StatusCode::kCorruption, "LENGTH stream: lengths exceed the 3 bytes"));
  // A truncated decimal varint, and a scale out of range.
  EXPECT_THAT(ReadOne({K::kDecimal, {}, {}, 20, 2}, DataType::Decimal(20, 2),
                      {{1, kData, std::string("\x02\x04\x86", 3)},
                       {1, kSecondary, IntRleV1({2, 2, 2}, true)}}),
              IsError(StatusCode::kCorruption, "'c' (id 1, DECIMAL): DATA stream: truncated"));
  EXPECT_THAT(ReadOne({K::kDecimal, {}, {}, 20, 2}, DataType::Decimal(20, 2),
                      {{1, kData, std::string("\x02\x04\x06", 3)},
                       {1, kSecondary, IntRleV1({2, 2, 99}, true)}}),
              IsError(StatusCode::kCorruption, "scale 99 out of range"));
  // Nanoseconds past a second.
  EXPECT_THAT(ReadOne({K::kTimestamp}, DataType::Timestamp(9),
                      {{1, kData, IntRleV1({0, 0, 0}, true)},
                       {1, kSecondary, IntRleV1({0, 0, int64_t{1000000000} << 3}, false)}}),
              IsError(StatusCode::kCorruption, "SECONDARY stream: nanoseconds"));
  // A billion rows claimed by a stream of a few bytes: refused before allocating.
  EXPECT_THAT(
      ReadOne({K::kInt}, DataType::Int(), {{1, kData, IntRleV1({1, 2, 3}, true)}}, 1000000000),
      IsError(StatusCode::kCorruption, "cannot hold 1000000000 values"));
  // A LIST whose lengths sum past 2^31.
  std::vector<TestType> list_types = {{K::kStruct, {1}, {"l"}}, {K::kList, {2}}, {K::kInt}};
  TestStripe s;
  s.rows = 2;
  s.streams = {{1, kLength, IntRleV1({int64_t{1} << 30, int64_t{1} << 30}, false)}};
  EXPECT_THAT(
      Read(BuildOrcFile(list_types, {s}), {{0, "l", DataType::Array(DataType::Int()), {}, {}}}),
      IsError(StatusCode::kCorruption, "'l' (id 1, LIST): LENGTH stream: child values"));
  // A type the Paimon field cannot take.
  EXPECT_THAT(ReadOne({K::kString}, DataType::Int(), {}),
              IsError(StatusCode::kNotImplemented, "'c' (id 1, STRING): cannot be read as INT"));
}

TEST(OrcBadInputTest, BadStripesNameTheFileAndStripe) {
  std::vector<TestType> types = {{K::kStruct, {1}, {"c"}}, {K::kInt}};
  std::vector<DataField> fields = {{0, "c", DataType::Int(), {}, {}}};
  TestStripe s;
  s.rows = 3;
  s.streams = {{1, kData, IntRleV1({1, 2, 3}, true)}};
  std::string good = BuildOrcFile(types, {s});
  ASSERT_OK(Read(good, fields).status());
  // Bytes cut from the middle of the stripe: its recorded extent no longer matches the file.
  std::string cut = good;
  cut.erase(3 + 2, 4);
  EXPECT_THAT(Read(cut, fields), HasStatusCode(StatusCode::kCorruption));
  // Stripes holding fewer rows than the footer says.
  TestStripe short_stripe = s;
  std::string bytes = BuildOrcFile(types, {s, short_stripe});
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, "bad.orc"));
  tail.rows = 7;
  OrcReadAt read_at = [&](uint64_t o, uint64_t n) -> Result<std::string> {
    return bytes.substr(o, n);
  };
  EXPECT_THAT(ReadOrcFile(tail, bytes.size(), read_at, "bad.orc", fields),
              IsError(StatusCode::kCorruption, "bad.orc: ORC stripes hold 6 rows"));
  tail.rows = 6;
  tail.stripes[1].offset = bytes.size() - 2;
  EXPECT_THAT(ReadOrcFile(tail, bytes.size(), read_at, "bad.orc", fields),
              IsError(StatusCode::kCorruption, "bad.orc: ORC stripe 1: extent"));
  tail.stripes[1] = tail.stripes[0];
  tail.stripes[1].data_length += 1;  // the footer now starts one byte late
  EXPECT_THAT(ReadOrcFile(tail, bytes.size(), read_at, "bad.orc", fields),
              HasStatusCode(StatusCode::kCorruption));
  // A corrupt zstd stream: the stripe's first stream starts at offset 3; its chunk header takes
  // 3 bytes, then comes the zstd frame's magic number.
  std::string zstd = BuildOrcFile(types, {s}, {}, OrcCompression::kZstd);
  ASSERT_OK(Read(zstd, fields).status());
  zstd.replace(6, 4, "nope");
  EXPECT_THAT(Read(zstd, fields),
              IsError(StatusCode::kCorruption,
                      "bad.orc: ORC stripe 0: column 1 DATA stream: compression chunk 0: invalid "
                      "zstd data"));
}

// Every byte of the stripes of Arrow-written files flipped at random, many times: the read
// succeeds or fails with a Status that names the file.
TEST(OrcBadInputTest, RandomMutationsNeverCrash) {
  arrow::Int64Builder ints;
  arrow::StringBuilder strings;
  arrow::MapBuilder maps(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>(),
                         std::make_shared<arrow::DoubleBuilder>());
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE((i % 9 == 0 ? ints.AppendNull() : ints.Append(i * 37 % 1000)).ok());
    ASSERT_TRUE(strings.Append(std::to_string(i % 13)).ok());
    ASSERT_TRUE(maps.Append().ok());
    for (int k = i % 3; k > 0; --k) {
      ASSERT_TRUE(static_cast<arrow::StringBuilder*>(maps.key_builder())->Append("k").ok());
      ASSERT_TRUE(static_cast<arrow::DoubleBuilder*>(maps.item_builder())->Append(k).ok());
    }
  }
  std::shared_ptr<arrow::Array> a, b, m;
  ASSERT_TRUE(ints.Finish(&a).ok() && strings.Finish(&b).ok() && maps.Finish(&m).ok());
  auto table =
      arrow::Table::Make(arrow::schema({arrow::field("i", a->type()), arrow::field("s", b->type()),
                                        arrow::field("m", m->type())}),
                         {a, b, m});
  std::vector<DataField> fields = {
      {0, "i", DataType::BigInt(), {}, {}},
      {1, "s", DataType::String(), {}, {}},
      {2, "m", DataType::Map(DataType::String(false), DataType::Double()), {}, {}}};
  int failures = 0, successes = 0;
  for (auto codec : {arrow::Compression::UNCOMPRESSED, arrow::Compression::ZSTD}) {
    for (double dictionary : {0.0, 1.0}) {
      arrow::adapters::orc::WriteOptions options;
      options.compression = codec;
      options.dictionary_key_size_threshold = dictionary;
      auto sink = *arrow::io::BufferOutputStream::Create();
      auto writer = *arrow::adapters::orc::ORCFileWriter::Open(sink.get(), options);
      ASSERT_TRUE(writer->Write(*table).ok());
      ASSERT_TRUE(writer->Close().ok());
      std::string bytes = (*sink->Finish())->ToString();
      ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, "bad.orc"));
      ASSERT_OK(Read(bytes, fields).status());
      uint64_t body = tail.stripes.back().offset + tail.stripes.back().index_length +
                      tail.stripes.back().data_length + tail.stripes.back().footer_length;
      for (int round = 0; round < 1500; ++round) {
        std::string mutated = bytes;
        for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
          size_t at = 3 + rng() % (body - 3);
          mutated[at] =
              static_cast<char>(round % 3 == 0 ? rng() : mutated[at] ^ (1 << (rng() % 8)));
        }
        Result<std::shared_ptr<arrow::Table>> read = Read(mutated, fields);
        if (read.ok()) {
          ++successes;
          EXPECT_TRUE((*read)->Validate().ok());
        } else {
          ++failures;
          EXPECT_EQ(read.status().message().rfind("bad.orc", 0), 0u) << read.status().ToString();
        }
      }
    }
  }
  EXPECT_GT(failures, 100);
  EXPECT_GT(successes, 100);
}

}  // namespace
}  // namespace fjord::orc
