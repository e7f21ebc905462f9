#include "fjord/format/binary_row.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "fjord/format/bucket.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

Decimal Dec(std::string_view text, int32_t precision, int32_t scale) {
  auto d = Decimal::FromString(text, precision, scale);
  EXPECT_TRUE(d.ok()) << text;
  return d.ValueOr(Decimal{});
}

Timestamp Ts(int64_t millis, int32_t nanos = 0) {
  Timestamp t;
  t.millis = millis;
  t.nanos_of_milli = nanos;
  return t;
}

Value L(std::initializer_list<Value> items) { return Value::List(ValueList(items)); }

DataField F(int32_t id, const char* name, DataTypePtr type) {
  DataField f;
  f.id = id;
  f.name = name;
  f.type = std::move(type);
  return f;
}

void ExpectRoundTrip(const std::vector<Value>& values, const std::vector<DataTypePtr>& types) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeBinaryRow(values, types));
  EXPECT_EQ(bytes.size() % 8, 0u);
  ASSERT_OK_AND_ASSIGN(std::vector<Value> back, DecodeBinaryRow(bytes, types));
  ASSERT_EQ(back.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(back[i], values[i]) << "field " << i << " (" << types[i]->ToString()
                                  << "): " << ValueToString(back[i], *types[i]) << " vs "
                                  << ValueToString(values[i], *types[i]);
    ASSERT_OK_AND_ASSIGN(Value one, DecodeBinaryRowField(bytes, types, static_cast<int32_t>(i)));
    EXPECT_EQ(one, values[i]) << "field " << i;
  }
  // Canonical: the bytes of the decoded values are the same bytes.
  ASSERT_OK_AND_ASSIGN(std::string again, EncodeBinaryRow(back, types));
  EXPECT_EQ(Hex(again), Hex(bytes));
}

// ---------------------------------------------------------------------------------------------
// spec/format.md §5.2 worked examples (verified there against Java-written manifests).

TEST(BinaryRowSpecTest, EmptyRow) {
  ASSERT_OK_AND_ASSIGN(std::string stored, EncodeStoredBinaryRow({}, {}));
  EXPECT_EQ(Hex(stored),
            "00000000"
            "0000000000000000");
  ASSERT_OK_AND_ASSIGN(auto values, DecodeStoredBinaryRow(stored, {}));
  EXPECT_TRUE(values.empty());
}

TEST(BinaryRowSpecTest, IntPartition) {
  std::vector<DataTypePtr> types = {DataType::Int()};
  ASSERT_OK_AND_ASSIGN(std::string stored, EncodeStoredBinaryRow({Value(int32_t{10})}, types));
  EXPECT_EQ(Hex(stored),
            "00000001"
            "0000000000000000"
            "0a00000000000000");
  ASSERT_OK_AND_ASSIGN(auto values, DecodeStoredBinaryRow(stored, types));
  EXPECT_EQ(values, std::vector<Value>{Value(int32_t{10})});
}

TEST(BinaryRowSpecTest, InlineShortString) {
  std::vector<DataTypePtr> types = {DataType::String(false), DataType::Int(false)};
  ASSERT_OK_AND_ASSIGN(std::string stored,
                       EncodeStoredBinaryRow({Value("Alice"), Value(int32_t{1})}, types));
  EXPECT_EQ(Hex(stored),
            "00000002"
            "0000000000000000"
            "416c696365000085"
            "0100000000000000");
  ASSERT_OK_AND_ASSIGN(auto values, DecodeStoredBinaryRow(stored, types));
  EXPECT_EQ(values[0], Value("Alice"));
}

TEST(BinaryRowSpecTest, LongStringInVariablePart) {
  std::vector<DataTypePtr> types = {DataType::String(false), DataType::Int(false)};
  std::string text(104, 'x');
  for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
  ASSERT_OK_AND_ASSIGN(std::string stored,
                       EncodeStoredBinaryRow({Value(text), Value(int32_t{1})}, types));
  EXPECT_EQ(Hex(stored),
            "00000002"
            "0000000000000000"
            "6800000018000000"
            "0100000000000000" +
                Hex(text));
  ASSERT_OK_AND_ASSIGN(auto values, DecodeStoredBinaryRow(stored, types));
  EXPECT_EQ(values[0], Value(text));
}

TEST(BinaryRowSpecTest, MicrosecondTimestampStats) {
  // TIMESTAMP(6) of 1 µs at slot 2 of a 6-field row.
  std::vector<DataTypePtr> types = {DataType::Int(), DataType::BigInt(), DataType::Timestamp(6),
                                    DataType::Int(), DataType::Int(),    DataType::Int()};
  std::vector<Value> values = {Value(int32_t{1}), Value(int64_t{2}), Value(Ts(0, 1000)),
                               Value(),           Value(),           Value()};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  ASSERT_EQ(row.size(), 64u);
  EXPECT_EQ(Hex(row.substr(8 + 2 * 8, 8)), "e803000038000000");
  EXPECT_EQ(Hex(row.substr(56, 8)), "0000000000000000");
  EXPECT_EQ(Hex(row.substr(0, 8)), "0038000000000000");  // null bits of fields 3..5
  ExpectRoundTrip(values, types);
}

// ---------------------------------------------------------------------------------------------
// Hand-checked layouts of the parts the spec describes only in prose.

TEST(BinaryRowLayoutTest, HeaderGrowsEvery64Bits) {
  EXPECT_EQ(BinaryRowNullBitsSize(0), 8);
  EXPECT_EQ(BinaryRowNullBitsSize(56), 8);
  EXPECT_EQ(BinaryRowNullBitsSize(57), 16);
  EXPECT_EQ(BinaryRowNullBitsSize(120), 16);
  EXPECT_EQ(BinaryRowNullBitsSize(121), 24);
  // Field 56 is bit 64: byte 8, bit 0.
  std::vector<DataTypePtr> types(60, DataType::Int());
  std::vector<Value> values(60, Value(int32_t{7}));
  values[56] = Value();
  values[0] = Value();
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  ASSERT_EQ(row.size(), 16u + 60 * 8);
  EXPECT_EQ(Hex(row.substr(0, 16)),
            "0001000000000000"
            "0100000000000000");
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, FixedWidthSlots) {
  std::vector<DataTypePtr> types = {DataType::Boolean(), DataType::TinyInt(), DataType::SmallInt(),
                                    DataType::BigInt(),  DataType::Float(),   DataType::Double(),
                                    DataType::Date(),    DataType::Time(3)};
  std::vector<Value> values = {
      Value(true), Value(int8_t{-2}), Value(int16_t{-300}), Value(int64_t{-1}),
      Value(1.0f), Value(-2.0),       Value(int32_t{-1}),   Value(int32_t{86399999})};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "0100000000000000"
            "fe00000000000000"
            "d4fe000000000000"
            "ffffffffffffffff"
            "0000803f00000000"
            "00000000000000c0"
            "ffffffff00000000"
            "ff5b260500000000");
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, InlineBoundaryAndPadding) {
  std::vector<DataTypePtr> types = {DataType::String(), DataType::String(), DataType::Bytes(),
                                    DataType::Bytes()};
  std::vector<Value> values = {Value(""), Value("1234567"), Value("12345678"),
                               Value(std::string("\x80\xff\x00", 3))};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "0000000000000080"  // "" inline, length 0
            "3132333435363787"  // 7 bytes inline
            "0800000028000000"  // 8 bytes at offset 40
            "80ff000000000083"  // binary inline, high bytes kept
            "3132333435363738");
  ExpectRoundTrip(values, types);
  // A 9-byte value pads to 16.
  ASSERT_OK_AND_ASSIGN(row, EncodeBinaryRow({Value("123456789")}, {DataType::String()}));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "0900000010000000"
            "3132333435363738"
            "3900000000000000");
}

TEST(BinaryRowLayoutTest, CompactAndWideDecimals) {
  std::vector<DataTypePtr> types = {DataType::Decimal(18, 2), DataType::Decimal(20, 2),
                                    DataType::Decimal(20, 2), DataType::Decimal(5, 2)};
  std::vector<Value> values = {Value(Dec("-1.00", 18, 2)), Value(Dec("-1.00", 20, 2)), Value(),
                               Value()};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "00"
            "0c"
            "000000000000"      // fields 2 and 3 null
            "9cffffffffffffff"  // compact: unscaled -100 as int64
            "0100000028000000"  // 1 byte at 40
            "0000000038000000"  // null wide decimal keeps its 16 bytes at 56
            "0000000000000000"  // null compact decimal: plain zero slot
            "9c00000000000000"
            "0000000000000000"
            "0000000000000000"
            "0000000000000000");
  ExpectRoundTrip(values, types);
}

// decimal_bytes.data (Java-written): every DECIMAL(29, 29) value's 16-byte variable chunk holds
// exactly Java's unscaled bytes, then zeros; the slot holds their length.
TEST(BinaryRowLayoutTest, GoldenWideDecimalBytes) {
  std::ifstream in(testing::FixturesDir() + "/paimon-java/decimal_bytes.data", std::ios::binary);
  ASSERT_TRUE(in) << "missing decimal_bytes.data";
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<DataTypePtr> types = {DataType::Decimal(29, 29)};
  size_t pos = 0;
  auto chunk = [&](std::string* out) {
    if (pos + 4 > data.size()) return false;
    uint32_t len = 0;
    for (int i = 0; i < 4; ++i) len = (len << 8) | static_cast<unsigned char>(data[pos++]);
    if (pos + len > data.size()) return false;
    *out = data.substr(pos, len);
    pos += len;
    return true;
  };
  int matched = 0;
  std::string text, java;
  while (pos < data.size()) {
    ASSERT_TRUE(chunk(&text) && chunk(&java));
    ASSERT_OK_AND_ASSIGN(Decimal unscaled, Decimal::FromString(text, 38, 0));
    Decimal d = unscaled;
    d.precision = 29;
    d.scale = 29;
    ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow({Value(d)}, types));
    ASSERT_EQ(row.size(), 32u);
    EXPECT_EQ(static_cast<unsigned char>(row[8]), java.size());
    EXPECT_EQ(Hex(row.substr(16, java.size())), Hex(java)) << text;
    EXPECT_EQ(row.substr(16 + java.size()), std::string(16 - java.size(), '\0'));
    ASSERT_OK_AND_ASSIGN(auto back, DecodeBinaryRow(row, types));
    EXPECT_EQ(back[0], Value(d));
    matched += !::testing::Test::HasFailure();
  }
  EXPECT_EQ(matched, 2000);
}

TEST(BinaryRowLayoutTest, CompactAndWideTimestamps) {
  std::vector<DataTypePtr> types = {DataType::Timestamp(3), DataType::TimestampLtz(9),
                                    DataType::Timestamp(6)};
  std::vector<Value> values = {Value(Ts(-1)), Value(Ts(-2, 999999)), Value()};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0004000000000000"
            "ffffffffffffffff"  // millis inline
            "3f420f0020000000"  // nanos 999999, millis at 32
            "0000000028000000"  // null keeps its 8 bytes at 40
            "feffffffffffffff"
            "0000000000000000");
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, ArrayOfInts) {
  std::vector<DataTypePtr> types = {DataType::Array(DataType::Int())};
  std::vector<Value> values = {L({Value(int32_t{1}), Value(), Value(int32_t{3})})};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "1800000010000000"  // 24 bytes at 16 (fixed part rounded)
            "03000000"
            "02000000"  // size 3, element 1 null
            "01000000"
            "00000000"
            "03000000"    // elements
            "00000000");  // padding
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, ArrayOfStringsHasItsOwnVariablePart) {
  std::vector<DataTypePtr> types = {DataType::Array(DataType::String())};
  std::vector<Value> values = {L({Value("ab"), Value("abcdefghij")})};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "2800000010000000"  // 40 bytes at 16
            "02000000"
            "00000000"
            "6162000000000082"  // inline in the array slot
            "0a00000018000000"  // offset 24 relative to the array
            "6162636465666768"
            "696a000000000000");
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, MapIsKeyArrayThenValueArray) {
  std::vector<DataTypePtr> types = {DataType::Map(DataType::Int(), DataType::SmallInt())};
  std::vector<Value> values = {Value::Map({{Value(int32_t{1}), Value(int16_t{2})}})};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "2400000010000000"  // 36 bytes at 16
            "10000000"          // key array: 16 bytes
            "01000000"
            "00000000"
            "01000000"
            "00000000"
            "01000000"
            "00000000"
            "0200"
            "000000000000"
            "00000000");  // row padding
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, NestedRow) {
  auto inner = DataType::Row({F(1, "a", DataType::Int()), F(2, "b", DataType::String())});
  std::vector<DataTypePtr> types = {inner};
  std::vector<Value> values = {L({Value(int32_t{5}), Value()})};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "1800000010000000"
            "0002000000000000"
            "0500000000000000"
            "0000000000000000");
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, WideValuesInsideArraysReserveNothingWhenNull) {
  std::vector<DataTypePtr> types = {DataType::Array(DataType::Decimal(20, 0)),
                                    DataType::Array(DataType::Timestamp(9))};
  std::vector<Value> values = {L({Value(), Value(Dec("-129", 20, 0))}),
                               L({Value(Ts(1, 2)), Value()})};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0000000000000000"
            "2800000018000000"
            "2000000040000000"
            // decimals: 2 elements, element 0 null, element 1 -> 2 bytes at 24
            "02000000"
            "01000000"
            "0000000000000000"
            "0200000018000000"
            "ff7f000000000000"
            "0000000000000000"
            // timestamps: element 0 nanos 2, millis at 24; element 1 null
            "02000000"
            "02000000"
            "0200000018000000"
            "0000000000000000"
            "0100000000000000");
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowLayoutTest, RowKindByte) {
  std::vector<DataTypePtr> types = {DataType::Int()};
  ASSERT_OK_AND_ASSIGN(std::string row,
                       EncodeBinaryRow({Value(int32_t{1})}, types, kRowKindUpdateAfter));
  EXPECT_EQ(row[0], 2);
  uint8_t kind = 0;
  ASSERT_OK(DecodeBinaryRow(row, types, &kind).status());
  EXPECT_EQ(kind, kRowKindUpdateAfter);
  EXPECT_THAT(EncodeBinaryRow({Value(int32_t{1})}, types, 4),
              IsError(StatusCode::kInvalid, "RowKind"));
}

// ---------------------------------------------------------------------------------------------
// Round trips.

TEST(BinaryRowRoundTripTest, EveryAtomicType) {
  std::vector<DataTypePtr> types = {
      DataType::Boolean(),       DataType::TinyInt(),       DataType::SmallInt(),
      DataType::Int(),           DataType::BigInt(),        DataType::Float(),
      DataType::Double(),        DataType::Decimal(10, 3),  DataType::Decimal(38, 10),
      DataType::Char(3),         DataType::VarChar(100),    DataType::Binary(2),
      DataType::VarBinary(100),  DataType::Date(),          DataType::Time(3),
      DataType::Timestamp(0),    DataType::Timestamp(3),    DataType::Timestamp(6),
      DataType::Timestamp(9),    DataType::TimestampLtz(3), DataType::TimestampLtz(9),
      DataType::Decimal(19, 19), DataType::String()};
  std::vector<Value> values = {
      Value(false),
      Value(int8_t{-128}),
      Value(int16_t{32767}),
      Value(int32_t{-2147483647 - 1}),
      Value(int64_t{9223372036854775807}),
      Value(-3.25f),
      Value(1e300),
      Value(Dec("-1234567.891", 10, 3)),
      Value(Dec("-9999999999999999999999999999.9999999999", 38, 10)),
      Value("abc"),
      Value("a string long enough for the variable part, with UTF-8: \xc3\xa9\xe2\x82\xac"),
      Value(std::string("\x00\xff", 2)),
      Value(std::string(33, '\x80')),
      Value(int32_t{-719528}),
      Value(int32_t{0}),
      Value(Ts(-62135596800000)),
      Value(Ts(-1)),
      Value(Ts(-86400001, 999000)),
      Value(Ts(-1, 1)),  // 1969-12-31 23:59:59.999000001
      Value(Ts(253402300799999)),
      Value(Ts(1700000000123, 456789)),
      Value(Dec("-0.1234567890123456789", 19, 19)),
      Value("")};
  ExpectRoundTrip(values, types);
  // And all null.
  ExpectRoundTrip(std::vector<Value>(types.size()), types);
}

TEST(BinaryRowRoundTripTest, Nested) {
  auto point = DataType::Row({F(10, "x", DataType::Double()), F(11, "label", DataType::String()),
                              F(12, "ts", DataType::Timestamp(9))});
  auto deep = DataType::Row(
      {F(20, "id", DataType::BigInt()), F(21, "pts", DataType::Array(point)),
       F(22, "tags", DataType::Map(DataType::String(), DataType::Array(DataType::Int())))});
  std::vector<DataTypePtr> types = {
      DataType::Array(DataType::Boolean()),
      DataType::Array(DataType::TinyInt()),
      DataType::Array(DataType::SmallInt()),
      DataType::Array(DataType::Float()),
      DataType::Array(DataType::Double()),
      DataType::Array(DataType::Date()),
      DataType::Array(DataType::String()),
      DataType::Array(DataType::Decimal(30, 5)),
      DataType::Array(DataType::Decimal(9, 2)),
      DataType::Array(DataType::Array(DataType::BigInt())),
      DataType::Map(DataType::String(), DataType::Decimal(25, 0)),
      DataType::Map(DataType::Int(), DataType::Map(DataType::String(), DataType::Bytes())),
      DataType::Multiset(DataType::String()),
      point,
      deep,
      DataType::Array(DataType::Int()),
      DataType::Map(DataType::Int(), DataType::Int()),
  };
  Value pt1 = L({Value(1.5), Value("first point label"), Value(Ts(-5, 7))});
  Value pt2 = L({Value(), Value("p2"), Value()});
  std::vector<Value> values = {
      L({Value(true), Value(), Value(false)}),
      L({Value(int8_t{-1}), Value(int8_t{127})}),
      L({Value(int16_t{-1}), Value(), Value(int16_t{2})}),
      L({Value(1.25f), Value()}),
      L({Value(), Value(-0.0)}),
      L({Value(int32_t{-1}), Value(int32_t{20000})}),
      L({Value("short"), Value(), Value("a longer string here"), Value("")}),
      L({Value(Dec("-12345678901234567890.12345", 30, 5)), Value(), Value(Dec("0", 30, 5))}),
      L({Value(Dec("-1.5", 9, 2)), Value()}),
      L({L({Value(int64_t{1}), Value(int64_t{2})}), Value(), L({})}),
      Value::Map({{Value("k1"), Value(Dec("-1", 25, 0))}, {Value("k2"), Value()}}),
      Value::Map({{Value(int32_t{1}), Value::Map({{Value("x"), Value(std::string("\x01\x02"))}})},
                  {Value(int32_t{2}), Value::Map({})}}),
      L({Value("dup"), Value("dup"), Value("once, and longer than seven")}),
      pt1,
      L({Value(int64_t{99}), L({pt1, pt2, Value()}),
         Value::Map({{Value("t"), L({Value(int32_t{1}), Value()})}})}),
      L({}),
      Value::Map({}),
  };
  ExpectRoundTrip(values, types);
}

TEST(BinaryRowRoundTripTest, MultisetCountsEqualElements) {
  std::vector<DataTypePtr> types = {DataType::Multiset(DataType::Int())};
  Value v = L({Value(int32_t{3}), Value(int32_t{1}), Value(int32_t{3}), Value(), Value()});
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow({v}, types));
  // Same bytes as the equivalent element -> count map.
  ASSERT_OK_AND_ASSIGN(std::string as_map,
                       EncodeBinaryRow({Value::Map({{Value(int32_t{3}), Value(int32_t{2})},
                                                    {Value(int32_t{1}), Value(int32_t{1})},
                                                    {Value(), Value(int32_t{2})}})},
                                       types));
  EXPECT_EQ(Hex(row), Hex(as_map));
  ASSERT_OK_AND_ASSIGN(auto back, DecodeBinaryRow(row, types));
  EXPECT_EQ(back[0],
            L({Value(int32_t{3}), Value(int32_t{3}), Value(int32_t{1}), Value(), Value()}));
}

TEST(BinaryRowRoundTripTest, IntegerColumnsAcceptOtherWidthsThatFit) {
  std::vector<DataTypePtr> types = {DataType::BigInt(), DataType::TinyInt()};
  ASSERT_OK_AND_ASSIGN(std::string a,
                       EncodeBinaryRow({Value(int32_t{5}), Value(int32_t{-3})}, types));
  ASSERT_OK_AND_ASSIGN(std::string b,
                       EncodeBinaryRow({Value(int64_t{5}), Value(int8_t{-3})}, types));
  EXPECT_EQ(Hex(a), Hex(b));
  EXPECT_THAT(EncodeBinaryRow({Value(int32_t{5}), Value(int32_t{300})}, types),
              IsError(StatusCode::kInvalid, "field 1"));
}

TEST(BinaryRowRoundTripTest, RandomRowsAreCanonical) {
  std::mt19937_64 rng(7);
  std::vector<DataTypePtr> types = {DataType::String(), DataType::Decimal(38, 6),
                                    DataType::Timestamp(6), DataType::Array(DataType::String()),
                                    DataType::Int()};
  for (int iter = 0; iter < 500; ++iter) {
    std::vector<Value> values;
    auto maybe_null = [&](Value v) { return rng() % 5 == 0 ? Value() : v; };
    values.push_back(maybe_null(Value(std::string(rng() % 20, static_cast<char>(rng())))));
    Decimal d;
    d.precision = 38;
    d.scale = 6;
    __extension__ typedef __int128 I128;
    d.unscaled = (static_cast<I128>(static_cast<int64_t>(rng())) << 40) /
                 static_cast<int64_t>((rng() % 1000) + 1);
    values.push_back(maybe_null(Value(d)));
    values.push_back(
        maybe_null(Value(Ts(static_cast<int64_t>(rng() % 4000000000000) - 2000000000000,
                            static_cast<int32_t>(rng() % 1000) * 1000))));
    ValueList items;
    for (size_t i = rng() % 4; i > 0; --i) {
      items.push_back(maybe_null(Value(std::string(rng() % 12, 'q'))));
    }
    values.push_back(maybe_null(Value::List(items)));
    values.push_back(maybe_null(Value(static_cast<int32_t>(rng()))));
    ExpectRoundTrip(values, types);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(BinaryRowWriterTest, TypedWritesMatchEncoder) {
  std::vector<DataTypePtr> types = {
      DataType::Boolean(),      DataType::TinyInt(),      DataType::SmallInt(),
      DataType::Int(),          DataType::BigInt(),       DataType::Float(),
      DataType::Double(),       DataType::String(),       DataType::Decimal(30, 2),
      DataType::Timestamp(9),   DataType::Decimal(30, 2), DataType::Timestamp(6),
      DataType::Decimal(10, 2), DataType::Timestamp(3)};
  std::vector<Value> values = {Value(true),
                               Value(int8_t{-3}),
                               Value(int16_t{1000}),
                               Value(int32_t{-7}),
                               Value(int64_t{1} << 50),
                               Value(0.5f),
                               Value(-0.25),
                               Value("more than seven bytes"),
                               Value(Dec("-12345678901234567890.55", 30, 2)),
                               Value(Ts(-1000, 5)),
                               Value(),
                               Value(),
                               Value(Dec("12.34", 10, 2)),
                               Value(Ts(42))};
  ASSERT_OK_AND_ASSIGN(std::string expected, EncodeBinaryRow(values, types));
  BinaryRowWriter w(static_cast<int32_t>(types.size()));
  for (int round = 0; round < 2; ++round) {  // the second round reuses the buffer
    w.Reset();
    w.WriteBoolean(0, true);
    w.WriteByte(1, -3);
    w.WriteShort(2, 1000);
    w.WriteInt(3, -7);
    w.WriteLong(4, int64_t{1} << 50);
    w.WriteFloat(5, 0.5f);
    w.WriteDouble(6, -0.25);
    w.WriteBytes(7, "more than seven bytes");
    w.WriteDecimal(8, Dec("-12345678901234567890.55", 30, 2), 30);
    w.WriteTimestamp(9, Ts(-1000, 5), 9);
    w.SetNullAt(10, *types[10]);
    w.SetNullAt(11, *types[11]);
    w.WriteDecimal(12, Dec("12.34", 10, 2), 10);
    w.WriteTimestamp(13, Ts(42), 3);
    EXPECT_EQ(Hex(w.data()), Hex(expected));
  }
  w.Reset();
  for (size_t i = 0; i < types.size(); ++i) {
    ASSERT_OK(w.WriteValue(static_cast<int32_t>(i), values[i], *types[i]));
  }
  EXPECT_EQ(Hex(w.data()), Hex(expected));
  EXPECT_THAT(w.WriteValue(14, Value(), *types[0]), IsError(StatusCode::kInvalid, "out of range"));
}

TEST(BinaryRowRoundTripTest, NullsOfTypesWithoutAnEncoding) {
  // Stats rows carry nulls for columns Java keeps no stats for.
  std::vector<DataTypePtr> types = {DataType::Variant(), DataType::Int(), DataType::Blob()};
  std::vector<Value> values = {Value(), Value(int32_t{3}), Value()};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(values, types));
  EXPECT_EQ(Hex(row),
            "0005000000000000"
            "0000000000000000"
            "0300000000000000"
            "0000000000000000");
  ExpectRoundTrip(values, types);
  row[1] = 0x04;  // field 0 no longer null
  EXPECT_THAT(DecodeBinaryRow(row, types), HasStatusCode(StatusCode::kNotImplemented));
}

// ---------------------------------------------------------------------------------------------
// Encoder errors.

TEST(BinaryRowEncodeTest, RejectsValuesThatDoNotMatch) {
  EXPECT_THAT(EncodeBinaryRow({Value(int32_t{1})}, {}), IsError(StatusCode::kInvalid, "1 values"));
  EXPECT_THAT(EncodeBinaryRow({Value("x")}, {DataType::Int()}),
              IsError(StatusCode::kInvalid, "cannot hold a bytes value"));
  EXPECT_THAT(EncodeBinaryRow({Value(1.0)}, {DataType::Float()}),
              IsError(StatusCode::kInvalid, "field 0"));
  EXPECT_THAT(EncodeBinaryRow({Value(Dec("1.5", 5, 1))}, {DataType::Decimal(5, 2)}),
              IsError(StatusCode::kInvalid, "scale"));
  Decimal too_big = Dec("123456", 6, 0);
  EXPECT_THAT(EncodeBinaryRow({Value(too_big)}, {DataType::Decimal(5, 0)}),
              IsError(StatusCode::kInvalid, "does not fit"));
  EXPECT_THAT(EncodeBinaryRow({Value(Ts(0, 1000000))}, {DataType::Timestamp(9)}),
              IsError(StatusCode::kInvalid, "nanos"));
  EXPECT_THAT(
      EncodeBinaryRow({L({Value(int32_t{1})})},
                      {DataType::Row({F(1, "a", DataType::Int()), F(2, "b", DataType::Int())})}),
      IsError(StatusCode::kInvalid, "fields"));
  EXPECT_THAT(EncodeBinaryRow({L({Value("x")})}, {DataType::Array(DataType::Int())}),
              IsError(StatusCode::kInvalid, "element 0"));
  EXPECT_THAT(EncodeBinaryRow({Value("x")}, {DataType::Variant()}),
              HasStatusCode(StatusCode::kNotImplemented));
  EXPECT_THAT(EncodeBinaryRow({L({})}, {DataType::Array(DataType::Blob())}),
              HasStatusCode(StatusCode::kNotImplemented));
  EXPECT_THAT(EncodeBinaryRow({Value(int32_t{1})}, {nullptr}),
              IsError(StatusCode::kInvalid, "no type"));
}

// ---------------------------------------------------------------------------------------------
// Decoder robustness: every inconsistency is a Corruption, never a crash.

std::vector<DataTypePtr> MixedTypes() {
  return {DataType::String(),
          DataType::Decimal(30, 2),
          DataType::Timestamp(9),
          DataType::Array(DataType::String()),
          DataType::Map(DataType::Int(), DataType::Multiset(DataType::String())),
          DataType::Row({F(1, "a", DataType::BigInt()), F(2, "b", DataType::Bytes())})};
}

std::vector<Value> MixedValues() {
  return {Value("a string of some length"),
          Value(Dec("-123.45", 30, 2)),
          Value(Ts(-12345, 678)),
          L({Value("x"), Value(), Value("longer element string")}),
          Value::Map({{Value(int32_t{1}), L({Value("m"), Value("m"), Value("n")})}}),
          L({Value(int64_t{-9}), Value(std::string(20, '\xee'))})};
}

TEST(BinaryRowCorruptionTest, TruncatedRows) {
  auto types = MixedTypes();
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(MixedValues(), types));
  for (size_t len = 0; len < row.size(); ++len) {
    auto r = DecodeBinaryRow(std::string_view(row).substr(0, len), types);
    // Only padding may be cut off without losing data.
    if (r.ok()) {
      EXPECT_EQ(*r, MixedValues()) << "length " << len;
    } else {
      EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    }
  }
  EXPECT_THAT(DecodeBinaryRow(std::string_view(row).substr(0, 40), types),
              IsError(StatusCode::kCorruption, "needs at least 56 bytes, got 40"));
  EXPECT_THAT(DecodeBinaryRow(std::string_view(row).substr(0, row.size() - 8), types),
              IsError(StatusCode::kCorruption, "field 5"));
  EXPECT_THAT(DecodeBinaryRow("", {}), IsError(StatusCode::kCorruption, "at least 8 bytes"));
}

TEST(BinaryRowCorruptionTest, OffsetsOutOfRange) {
  std::vector<DataTypePtr> types = {DataType::String()};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow({Value("0123456789")}, types));
  std::string bad = row;
  bad[12] = static_cast<char>(0xf0);  // offset 0xf0
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "outside"));
  bad = row;
  bad[8] = 17;  // length 17 from offset 16 in a 32-byte row
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "field 0: string"));
  bad = row;
  bad[15] = 0x7f;  // offset near 2^31
  EXPECT_THAT(DecodeBinaryRow(bad, types), HasStatusCode(StatusCode::kCorruption));
  bad = row;
  std::memset(bad.data() + 8, 0xff, 4);  // length 2^32-1
  EXPECT_THAT(DecodeBinaryRow(bad, types), HasStatusCode(StatusCode::kCorruption));
  // Inline length above 7.
  ASSERT_OK_AND_ASSIGN(row, EncodeBinaryRow({Value("abc")}, types));
  bad = row;
  bad[15] = static_cast<char>(0x88);
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "inline"));
}

TEST(BinaryRowCorruptionTest, BadHeaderAndWideValues) {
  std::vector<DataTypePtr> types = {DataType::Decimal(20, 0), DataType::Timestamp(6)};
  ASSERT_OK_AND_ASSIGN(std::string row,
                       EncodeBinaryRow({Value(Dec("5", 20, 0)), Value(Ts(1, 2))}, types));
  std::string bad = row;
  bad[0] = 9;
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "RowKind"));
  bad = row;
  bad[8] = 0;  // decimal of 0 bytes
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "field 0"));
  bad = row;
  bad[8] = 16;  // 16 bytes of 0x05 00 .. : too many digits for DECIMAL(20, 0)
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "does not fit"));
  bad = row;
  bad[8] = 17;
  EXPECT_THAT(DecodeBinaryRow(bad, types), HasStatusCode(StatusCode::kCorruption));
  bad = row;
  std::memset(bad.data() + 16, 0xff, 3);  // nanos of milli 0xffffff
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "nanos"));
  bad = row;
  bad[20] = 60;  // millis 8 bytes at 60 in a 56-byte row
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "timestamp"));
  // Compact decimal out of its precision.
  std::string compact(16, '\0');
  compact[8] = static_cast<char>(0xe8);
  compact[9] = 0x03;  // 1000
  EXPECT_THAT(DecodeBinaryRow(compact, {DataType::Decimal(3, 0)}),
              IsError(StatusCode::kCorruption, "does not fit"));
}

TEST(BinaryRowCorruptionTest, BadNestedStructures) {
  std::vector<DataTypePtr> arr = {DataType::Array(DataType::Int())};
  ASSERT_OK_AND_ASSIGN(std::string row,
                       EncodeBinaryRow({L({Value(int32_t{1}), Value(int32_t{2})})}, arr));
  std::string bad = row;
  bad[16] = static_cast<char>(0xff);
  bad[19] = static_cast<char>(0xff);  // size -1
  EXPECT_THAT(DecodeBinaryRow(bad, arr), IsError(StatusCode::kCorruption, "negative array"));
  bad = row;
  bad[16] = 100;  // 100 elements in 16 bytes
  EXPECT_THAT(DecodeBinaryRow(bad, arr), IsError(StatusCode::kCorruption, "100 elements"));
  bad = row;
  bad[8] = 3;  // array chunk of 3 bytes
  EXPECT_THAT(DecodeBinaryRow(bad, arr), IsError(StatusCode::kCorruption, "no size"));

  std::vector<DataTypePtr> map = {DataType::Map(DataType::Int(), DataType::Int())};
  ASSERT_OK_AND_ASSIGN(
      row, EncodeBinaryRow(
               {Value::Map({{Value(int32_t{1}), Value(int32_t{2})}, {Value(int32_t{3}), Value()}})},
               map));
  bad = row;
  bad[16] = 0x7f;  // key array larger than the map
  EXPECT_THAT(DecodeBinaryRow(bad, map), IsError(StatusCode::kCorruption, "key array"));
  bad = row;
  bad[20] = 1;  // one key, two values
  EXPECT_THAT(DecodeBinaryRow(bad, map), IsError(StatusCode::kCorruption, "keys but"));

  std::vector<DataTypePtr> row_type = {DataType::Row({F(1, "a", DataType::Int())})};
  ASSERT_OK_AND_ASSIGN(row, EncodeBinaryRow({L({Value(int32_t{1})})}, row_type));
  bad = row;
  bad[8] = 8;  // nested row cut to 8 bytes
  EXPECT_THAT(DecodeBinaryRow(bad, row_type), IsError(StatusCode::kCorruption, "needs at least"));
}

TEST(BinaryRowCorruptionTest, MultisetCountBomb) {
  std::vector<DataTypePtr> types = {DataType::Multiset(DataType::String())};
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow({L({Value("abc")})}, types));
  // The count lives in the value array: row 16 + map 4 + key array 16 + size/null bits 8.
  std::string bad = row;
  std::memset(bad.data() + 16 + 4 + 16 + 8, 0xff, 3);
  bad[16 + 4 + 16 + 8 + 3] = 0x7f;  // INT_MAX copies
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "exceeds"));
  bad[16 + 4 + 16 + 8 + 3] = static_cast<char>(0xff);  // -1
  EXPECT_THAT(DecodeBinaryRow(bad, types), IsError(StatusCode::kCorruption, "count"));
}

// An ARRAY<ARRAY<ARRAY<INT>>> whose slots all point at the same chunks: 20 KB that would decode
// to 10^9 values. The decoder must stop early.
TEST(BinaryRowCorruptionTest, AliasedOffsetsBomb) {
  const int32_t n = 1000;
  const size_t header = 4 + (n + 31) / 32 * 4;
  auto put32 = [](std::string& s, size_t pos, uint32_t v) { std::memcpy(&s[pos], &v, 4); };
  auto put64 = [](std::string& s, size_t pos, uint64_t v) { std::memcpy(&s[pos], &v, 8); };
  const size_t slotted = (header + 8 * n + 7) / 8 * 8;  // an array of n offset slots
  const size_t ints = header + 4 * n;                   // the innermost ARRAY<INT>
  std::string outer(slotted + slotted + ints, '\0');
  // Outer at 0, its elements all -> middle at `slotted`; middle's all -> inner after it.
  put32(outer, 0, n);
  put32(outer, slotted, n);
  put32(outer, 2 * slotted, n);
  for (int32_t i = 0; i < n; ++i) {
    put64(outer, header + 8 * i, (uint64_t{slotted} << 32) | (slotted + ints));
    put64(outer, slotted + header + 8 * i, (uint64_t{slotted} << 32) | ints);
  }
  std::string row(16, '\0');
  put64(row, 8, (uint64_t{16} << 32) | outer.size());
  row += outer;
  std::vector<DataTypePtr> types = {
      DataType::Array(DataType::Array(DataType::Array(DataType::Int())))};
  EXPECT_THAT(DecodeBinaryRow(row, types), IsError(StatusCode::kCorruption, "exceeds"));
}

TEST(BinaryRowCorruptionTest, StoredArityPrefix) {
  std::vector<DataTypePtr> types = {DataType::Int(), DataType::Int(), DataType::Int()};
  ASSERT_OK_AND_ASSIGN(
      std::string row,
      EncodeBinaryRow({Value(int32_t{1}), Value(int32_t{2}), Value(int32_t{3})}, types));
  std::string stored = WithArityPrefix(row, 3);
  EXPECT_EQ(Hex(stored.substr(0, 4)), "00000003");
  ASSERT_OK_AND_ASSIGN(auto split, SplitArityPrefix(stored));
  EXPECT_EQ(split.first, 3);
  EXPECT_EQ(split.second, row);
  ASSERT_OK(DecodeStoredBinaryRow(stored, types).status());
  EXPECT_THAT(DecodeStoredBinaryRow(WithArityPrefix(row, 2), types),
              IsError(StatusCode::kCorruption, "arity 2, expected 3"));
  EXPECT_THAT(DecodeStoredBinaryRow(WithArityPrefix(row, -1), types),
              IsError(StatusCode::kCorruption, "negative arity"));
  EXPECT_THAT(SplitArityPrefix("\x00\x00"), IsError(StatusCode::kCorruption, "too short"));
  // Decoding with fewer types than the row has only sees the first fields.
  EXPECT_THAT(
      DecodeBinaryRow(row, {DataType::Int(), DataType::Int(), DataType::Int(), DataType::Int()}),
      IsError(StatusCode::kCorruption, "needs at least"));
}

TEST(BinaryRowFieldTest, DecodesOneField) {
  auto types = MixedTypes();
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(MixedValues(), types));
  for (int32_t i = 0; i < static_cast<int32_t>(types.size()); ++i) {
    ASSERT_OK_AND_ASSIGN(Value v, DecodeBinaryRowField(row, types, i));
    EXPECT_EQ(v, MixedValues()[static_cast<size_t>(i)]);
  }
  EXPECT_THAT(DecodeBinaryRowField(row, types, 6), IsError(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(DecodeBinaryRowField(row, types, -1), IsError(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(DecodeBinaryRowField(std::string_view(row).substr(0, 8), types, 0),
              IsError(StatusCode::kCorruption, "needs at least"));
}

// Fuzz-like sweep: flipping any byte of a valid row never crashes the decoder.
TEST(BinaryRowCorruptionTest, ByteFlipsNeverCrash) {
  auto types = MixedTypes();
  ASSERT_OK_AND_ASSIGN(std::string row, EncodeBinaryRow(MixedValues(), types));
  std::mt19937 rng(1);
  for (size_t i = 0; i < row.size(); ++i) {
    for (int k = 0; k < 8; ++k) {
      std::string bad = row;
      bad[i] = static_cast<char>(rng());
      auto r = DecodeBinaryRow(bad, types);
      if (!r.ok()) {
        EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
      }
    }
  }
}

}  // namespace
}  // namespace fjord
