#include "fjord/format/avro/binary.h"

#include <cmath>
#include <limits>
#include <string>

#include "fjord/testing/test_util.h"

namespace fjord::avro {
namespace {

std::shared_ptr<const Schema> MustParse(std::string_view json) {
  auto r = Schema::Parse(json);
  EXPECT_TRUE(r.ok()) << json << ": " << r.status().ToString();
  return *r;
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    out += buf;
  }
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::string Encode(const Schema& s, const Datum& d) {
  std::string out;
  Status st = EncodeDatum(s.root(), d, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST(AvroBinaryTest, ZigZagVarints) {
  const std::pair<int64_t, const char*> cases[] = {
      {0, "00"},
      {-1, "01"},
      {1, "02"},
      {-2, "03"},
      {63, "7e"},
      {-64, "7f"},
      {64, "8001"},
      {std::numeric_limits<int32_t>::max(), "feffffff0f"},
      {std::numeric_limits<int32_t>::min(), "ffffffff0f"},
      {std::numeric_limits<int64_t>::max(), "feffffffffffffffff01"},
      {std::numeric_limits<int64_t>::min(), "ffffffffffffffffff01"},
  };
  for (const auto& [value, hex] : cases) {
    std::string out;
    AppendLong(value, &out);
    EXPECT_EQ(Hex(out), hex) << value;
    BinaryDecoder d(out);
    int64_t back;
    ASSERT_OK(d.ReadLong(&back));
    EXPECT_EQ(back, value);
    EXPECT_TRUE(d.at_end());
  }
}

// The examples of the specification's "Binary Encoding" section.
TEST(AvroBinaryTest, SpecificationExamples) {
  EXPECT_EQ(Hex(Encode(*MustParse(R"("string")"), Datum::String("foo"))), "06666f6f");
  EXPECT_EQ(Hex(Encode(*MustParse(R"({"type":"array","items":"long"})"),
                       Datum::Array({Datum::Long(3), Datum::Long(27)}))),
            "04063600");
  auto u = MustParse(R"(["null","string"])");
  EXPECT_EQ(Hex(Encode(*u, Datum::Null())), "00");
  EXPECT_EQ(Hex(Encode(*u, Datum::Union(1, Datum::String("a")))), "020261");
  auto rec = MustParse(
      R"({"type":"record","name":"test","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]})");
  EXPECT_EQ(Hex(Encode(*rec, Datum::Record({Datum::Long(27), Datum::String("foo")}))),
            "3606666f6f");
}

constexpr std::string_view kAllTypes = R"({"type":"record","name":"All","namespace":"t","fields":[
    {"name":"n","type":"null"},
    {"name":"b","type":"boolean"},
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"f","type":"float"},
    {"name":"d","type":"double"},
    {"name":"by","type":"bytes"},
    {"name":"s","type":"string"},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y","Z"]}},
    {"name":"fx","type":{"type":"fixed","name":"F","size":3}},
    {"name":"a","type":{"type":"array","items":["null","long"]}},
    {"name":"m","type":{"type":"map","values":{"type":"array","items":"string"}}},
    {"name":"u","type":["null","string","E",{"type":"record","name":"Sub","fields":[{"name":"x","type":"int"}]}]},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
    {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
    {"name":"list","type":["null",{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}]}
  ]})";

Datum AllTypesDatum(int seed) {
  std::vector<Datum> list_tail;
  Datum list = Datum::Null();
  for (int k = 0; k < seed % 4; ++k) {
    list = Datum::Union(1, Datum::Record({Datum::Int(k), std::move(list)}));
  }
  Datum m = Datum::Map({{"one", Datum::Array({Datum::String("x")})},
                        {"", Datum::Array({})},
                        {"three", Datum::Array({Datum::String(""), Datum::String("zz")})}});
  Datum u;
  switch (seed % 4) {
    case 0:
      u = Datum::Null();
      break;
    case 1:
      u = Datum::Union(1, Datum::String("str" + std::to_string(seed)));
      break;
    case 2:
      u = Datum::Union(2, Datum::Enum(2));
      break;
    default:
      u = Datum::Union(3, Datum::Record({Datum::Int(-seed)}));
  }
  return Datum::Record({
      Datum::Null(),
      Datum::Boolean(seed % 2 == 0),
      Datum::Int(seed % 3 == 0 ? std::numeric_limits<int32_t>::min() : seed * 1000),
      Datum::Long(seed % 5 == 0 ? std::numeric_limits<int64_t>::max() : -seed * 100000000LL),
      Datum::Float(seed % 7 == 0 ? std::numeric_limits<float>::quiet_NaN() : 1.5f * seed),
      Datum::Double(seed % 11 == 0 ? -0.0 : 1e300 / (seed + 1)),
      Datum::Bytes(std::string("\x00\xff\x01", 3) + std::string(seed % 50, 'b')),
      Datum::String("h\xc3\xa9llo " + std::to_string(seed)),
      Datum::Enum(seed % 3),
      Datum::Fixed(std::string("\x01\x02", 2) + static_cast<char>(seed)),
      Datum::Array({Datum::Null(), Datum::Union(1, Datum::Long(seed)), Datum::Null()}),
      std::move(m),
      std::move(u),
      Datum::Long(1700000000000000LL + seed),
      Datum::Bytes(std::string("\x04\xd2", 2)),
      std::move(list),
  });
}

TEST(AvroBinaryTest, RoundTripEveryType) {
  auto s = MustParse(kAllTypes);
  Datum reused;
  for (int seed = 0; seed < 40; ++seed) {
    Datum d = AllTypesDatum(seed);
    std::string bytes = Encode(*s, d);
    ASSERT_OK_AND_ASSIGN(Datum back, DecodeDatum(s->root(), bytes));
    EXPECT_EQ(back, d) << back.ToString() << "\nvs\n" << d.ToString();
    // Decoding into the same Datum again and again gives the same values.
    BinaryDecoder decoder(bytes);
    ASSERT_OK(decoder.ReadDatum(s->root(), &reused));
    EXPECT_EQ(reused, d);
    EXPECT_TRUE(decoder.at_end());
  }
}

TEST(AvroBinaryTest, DatumAccessors) {
  Datum m = Datum::Map({{"k", Datum::Int(1)}, {"j", Datum::Int(2)}});
  EXPECT_EQ(m.type(), Type::kMap);
  ASSERT_EQ(m.map_size(), 2u);
  EXPECT_EQ(m.map_key(1), "j");
  EXPECT_EQ(m.map_value(1).int_value(), 2);
  m.AddMapEntry("z", Datum::Int(3));
  EXPECT_EQ(m.map_size(), 3u);
  Datum u = Datum::Union(1, Datum::Long(5));
  EXPECT_EQ(u.branch(), 1);
  EXPECT_EQ(u.long_value(), 5);
  EXPECT_NE(u, Datum::Long(5));  // the branch is part of the value
  EXPECT_EQ(Datum::Double(std::nan("")), Datum::Double(std::nan("")));
  EXPECT_NE(Datum::Double(0.0), Datum::Double(-0.0));
  EXPECT_EQ(Datum::Record({Datum::Int(1), Datum::String("a"), Datum::Bytes("\x01")}).ToString(),
            R"({1, "a", b"\x01"})");
}

TEST(AvroBinaryTest, DecoderReusesStorageAcrossShapes) {
  auto s =
      MustParse(R"({"type":"array","items":["null","string",{"type":"array","items":"int"}]})");
  Datum d;
  for (int round = 0; round < 3; ++round) {
    Datum a = Datum::Array({Datum::Union(1, Datum::String("x")), Datum::Null(),
                            Datum::Union(2, Datum::Array({Datum::Int(1), Datum::Int(round)}))});
    Datum b = Datum::Array({Datum::Union(2, Datum::Array({})), Datum::Union(1, Datum::String(""))});
    for (const Datum* want : {&a, &b}) {
      std::string bytes = Encode(*s, *want);
      BinaryDecoder decoder(bytes);
      ASSERT_OK(decoder.ReadDatum(s->root(), &d));
      EXPECT_EQ(d, *want);
    }
  }
}

TEST(AvroBinaryTest, NegativeBlockCountsWithByteSizes) {
  auto s = MustParse(R"({"type":"map","values":"long"})");
  // Two blocks: -1 entries (with byte size 3) "a"->1, then 1 entry "b"->2, then end.
  std::string bytes = Unhex(
      "01"
      "06"
      "0261"
      "02"
      "02"
      "0262"
      "04"
      "00");
  ASSERT_OK_AND_ASSIGN(Datum d, DecodeDatum(s->root(), bytes));
  ASSERT_EQ(d.map_size(), 2u);
  EXPECT_EQ(d.map_key(0), "a");
  EXPECT_EQ(d.map_value(1).long_value(), 2);
  // A byte size that does not match what the block holds.
  EXPECT_THAT(DecodeDatum(s->root(), Unhex("01"
                                           "08"
                                           "0261"
                                           "02"
                                           "00"
                                           "00")),
              IsError(StatusCode::kCorruption, "declared 4 bytes but used 3"));
}

TEST(AvroBinaryTest, HardenedDecoder) {
  struct Case {
    const char* schema;
    std::string hex;
    const char* message;
  };
  const Case cases[] = {
      {R"("long")", "", "at offset 0: truncated varint"},
      {R"("long")", "8080", "truncated varint"},
      {R"("long")", "ffffffffffffffffff7f", "varint overflows 64 bits"},
      {R"("long")", "8080808080808080808000", "varint overflows 64 bits"},
      {R"("int")", "ffffffff7f", "int out of range"},
      {R"("int")", "808080808000", "varint longer than 5 bytes"},
      {R"("boolean")", "02", "invalid boolean byte 2"},
      {R"("double")", "0000", "truncated double"},
      {R"("string")", "01", "negative length -1"},
      {R"("string")", "0a6162", "length 5 exceeds the 2 bytes that remain"},
      {R"("bytes")", "feffffffffffffffff01", "exceeds the 0 bytes that remain"},
      {R"({"type":"fixed","name":"F","size":4})", "010203", "fixed of 4 bytes"},
      {R"({"type":"enum","name":"E","symbols":["A"]})", "02", "enum index 1 out of range"},
      {R"(["null","int"])", "04", "union branch 2 out of range"},
      {R"(["null","int"])", "01", "union branch -1 out of range"},
      // 2^62 longs claimed in 1 byte: rejected before allocating anything.
      {R"({"type":"array","items":"long"})", "feffffffffffffff7f00",
       "cannot fit in the 1 bytes that remain"},
      {R"({"type":"array","items":"null"})", "feffffffffffffff7f", "may take no bytes"},
      {R"({"type":"map","values":"null"})", "20", "cannot fit in the 0 bytes"},
      {R"({"type":"array","items":"long"})", "ffffffffffffffffff01", "invalid block count"},
      {R"({"type":"array","items":"long"})", "0180808080808080808001", "block byte size"},
      {R"({"type":"array","items":"long"})", "0204", "truncated varint"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]})",
       "0208", "field 'b': at offset 1: length 4 exceeds"},
  };
  for (const Case& c : cases) {
    auto s = MustParse(c.schema);
    EXPECT_THAT(DecodeDatum(s->root(), Unhex(c.hex)), IsError(StatusCode::kCorruption, c.message))
        << c.schema << " " << c.hex;
  }
  auto s = MustParse(R"("int")");
  EXPECT_THAT(DecodeDatum(s->root(), Unhex("0202")), IsError(StatusCode::kCorruption, "left over"));
}

TEST(AvroBinaryTest, ZeroSizeBudgetIsShared) {
  auto s = MustParse(R"({"type":"array","items":"null"})");
  std::string bytes;
  AppendLong(600000, &bytes);
  AppendLong(0, &bytes);
  BinaryDecoder ok(bytes);
  Datum d;
  ASSERT_OK(ok.ReadDatum(s->root(), &d));
  EXPECT_EQ(d.size(), 600000u);
  std::string twice = bytes + bytes;
  BinaryDecoder decoder(twice);
  ASSERT_OK(decoder.ReadDatum(s->root(), &d));
  EXPECT_THAT(decoder.ReadDatum(s->root(), &d), IsError(StatusCode::kCorruption, "may take no"));
}

TEST(AvroBinaryTest, NestingDepthIsBounded) {
  auto s =
      MustParse(R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})");
  // 300 levels of "branch 1", then null.
  std::string deep(300, '\x02');
  deep.push_back('\x00');
  EXPECT_THAT(DecodeDatum(s->root(), deep), IsError(StatusCode::kCorruption, "nested deeper"));
  std::string shallow(100, '\x02');
  shallow.push_back('\x00');
  EXPECT_OK(DecodeDatum(s->root(), shallow).status());
}

TEST(AvroBinaryTest, EncoderChecksTheDatumAgainstTheSchema) {
  auto s = MustParse(R"({"type":"record","name":"r","fields":[
      {"name":"a","type":"long"},
      {"name":"b","type":{"type":"array","items":["null",{"type":"fixed","name":"F","size":2}]}},
      {"name":"c","type":{"type":"enum","name":"E","symbols":["X"]}}]})");
  std::string out;
  auto record = [](Datum a, Datum b, Datum c) {
    return Datum::Record({std::move(a), std::move(b), std::move(c)});
  };
  EXPECT_THAT(EncodeDatum(s->root(), record(Datum::Int(1), Datum::Array({}), Datum::Enum(0)), &out),
              IsError(StatusCode::kInvalid, "field 'a': expected a value of type long, got int"));
  EXPECT_THAT(
      EncodeDatum(s->root(),
                  record(Datum::Long(1), Datum::Array({Datum::Union(1, Datum::Fixed("abc"))}),
                         Datum::Enum(0)),
                  &out),
      IsError(StatusCode::kInvalid, "field 'b': element 0: fixed F needs 2 bytes, got 3"));
  EXPECT_THAT(EncodeDatum(s->root(),
                          record(Datum::Long(1), Datum::Array({Datum::Union(2, Datum::Null())}),
                                 Datum::Enum(0)),
                          &out),
              IsError(StatusCode::kInvalid, "union branch 2 out of range"));
  EXPECT_THAT(
      EncodeDatum(s->root(), record(Datum::Long(1), Datum::Array({}), Datum::Enum(1)), &out),
      IsError(StatusCode::kInvalid, "enum index 1 out of range"));
  EXPECT_THAT(EncodeDatum(s->root(), Datum::Record({Datum::Long(1)}), &out),
              IsError(StatusCode::kInvalid, "has 3 fields, the value has 1"));
  // The null branch of a union must be chosen explicitly: the branch index is the datum's.
  EXPECT_THAT(
      EncodeDatum(s->root(),
                  record(Datum::Long(1), Datum::Array({Datum::Union(0, Datum::Fixed("ab"))}),
                         Datum::Enum(0)),
                  &out),
      IsError(StatusCode::kInvalid, "expected a value of type null, got fixed"));
}

}  // namespace
}  // namespace fjord::avro
