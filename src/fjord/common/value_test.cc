#include "fjord/value.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

#include "fjord/common/plain_decimal.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

Decimal Dec(int64_t unscaled, int32_t precision, int32_t scale) {
  Decimal d;
  d.unscaled = unscaled;
  d.precision = precision;
  d.scale = scale;
  return d;
}

std::string Parse(std::string_view text, int32_t precision, int32_t scale) {
  auto d = Decimal::FromString(text, precision, scale);
  return d.ok() ? d->ToString() : "ERROR " + d.status().ToString();
}

std::string Hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

Timestamp Ts(int64_t millis, int32_t nanos = 0) {
  Timestamp t;
  t.millis = millis;
  t.nanos_of_milli = nanos;
  return t;
}

TEST(ValueDecimalTest, ToStringHasExactlyScaleDigits) {
  EXPECT_EQ(Dec(12340, 7, 3).ToString(), "12.340");
  EXPECT_EQ(Dec(-12340, 7, 3).ToString(), "-12.340");
  EXPECT_EQ(Dec(5, 3, 3).ToString(), "0.005");
  EXPECT_EQ(Dec(-5, 3, 3).ToString(), "-0.005");
  EXPECT_EQ(Dec(0, 5, 2).ToString(), "0.00");
  EXPECT_EQ(Dec(0, 5, 0).ToString(), "0");
  EXPECT_EQ(Dec(-42, 5, 0).ToString(), "-42");
  Decimal big;
  big.precision = 38;
  big.scale = 10;
  auto max = Decimal::FromString("9999999999999999999999999999.9999999999", 38, 10);
  ASSERT_OK(max.status());
  EXPECT_EQ(max->ToString(), "9999999999999999999999999999.9999999999");
  big.unscaled = -max->unscaled;
  EXPECT_EQ(big.ToString(), "-9999999999999999999999999999.9999999999");
}

TEST(ValueDecimalTest, FromStringRoundsHalfUp) {
  EXPECT_EQ(Parse("12.345", 10, 2), "12.35");
  EXPECT_EQ(Parse("12.344", 10, 2), "12.34");
  EXPECT_EQ(Parse("-12.345", 10, 2), "-12.35");  // HALF_UP rounds the magnitude
  EXPECT_EQ(Parse("-12.344", 10, 2), "-12.34");
  EXPECT_EQ(Parse("0.005", 3, 2), "0.01");
  EXPECT_EQ(Parse("0.004999", 3, 2), "0.00");
  EXPECT_EQ(Parse("0.0000001", 5, 2), "0.00");
  EXPECT_EQ(Parse("9.995", 4, 2), "10.00");
  EXPECT_EQ(Parse("0.5", 1, 0), "1");
  EXPECT_EQ(Parse("-0.5", 1, 0), "-1");
}

TEST(ValueDecimalTest, FromStringAcceptsJavaSpellings) {
  EXPECT_EQ(Parse("1.5E3", 10, 0), "1500");
  EXPECT_EQ(Parse("1.5e-1", 3, 2), "0.15");
  EXPECT_EQ(Parse("-2.5E+2", 5, 1), "-250.0");
  EXPECT_EQ(Parse("+3", 2, 0), "3");
  EXPECT_EQ(Parse(".5", 2, 1), "0.5");
  EXPECT_EQ(Parse("5.", 2, 1), "5.0");
  EXPECT_EQ(Parse("000123.4500", 5, 2), "123.45");
  EXPECT_EQ(Parse("  7.25 ", 5, 2), "7.25");
  EXPECT_EQ(Parse("0", 1, 0), "0");
  EXPECT_EQ(Parse("0E-50", 5, 2), "0.00");
  EXPECT_EQ(Parse("1E-50", 5, 2), "0.00");
  EXPECT_EQ(Parse("99999999999999999999999999999999999999", 38, 0),
            "99999999999999999999999999999999999999");
}

TEST(ValueDecimalTest, FromStringRejectsBadTextAndOverflow) {
  for (const char* bad : {"", "-", ".", "abc", "1e", "1.2.3", "1,5", "--1", "1e+", "0x10"}) {
    EXPECT_THAT(Decimal::FromString(bad, 10, 2), IsError(StatusCode::kInvalid, "not a decimal"))
        << bad;
  }
  EXPECT_THAT(Decimal::FromString("1234", 3, 0), IsError(StatusCode::kInvalid, "does not fit"));
  EXPECT_THAT(Decimal::FromString("999.995", 5, 2), IsError(StatusCode::kInvalid, "does not fit"));
  EXPECT_THAT(Decimal::FromString("1E40", 38, 0), IsError(StatusCode::kInvalid, "does not fit"));
  EXPECT_THAT(Decimal::FromString("1E999999999999", 38, 0),
              IsError(StatusCode::kInvalid, "does not fit"));
  EXPECT_THAT(Decimal::FromString("1", 39, 0), IsError(StatusCode::kInvalid, "DECIMAL(39, 0)"));
  EXPECT_THAT(Decimal::FromString("1", 5, 6), IsError(StatusCode::kInvalid, "DECIMAL(5, 6)"));
  EXPECT_THAT(Decimal::FromString("1", 0, 0), IsError(StatusCode::kInvalid, "DECIMAL"));
}

TEST(ValueDecimalTest, UnscaledBytesAreJavaBigIntegerBytes) {
  EXPECT_EQ(Hex(Dec(0, 20, 0).ToUnscaledBytes()), "00");
  EXPECT_EQ(Hex(Dec(1, 20, 0).ToUnscaledBytes()), "01");
  EXPECT_EQ(Hex(Dec(127, 20, 0).ToUnscaledBytes()), "7f");
  EXPECT_EQ(Hex(Dec(128, 20, 0).ToUnscaledBytes()), "0080");
  EXPECT_EQ(Hex(Dec(-1, 20, 0).ToUnscaledBytes()), "ff");
  EXPECT_EQ(Hex(Dec(-128, 20, 0).ToUnscaledBytes()), "80");
  EXPECT_EQ(Hex(Dec(-129, 20, 0).ToUnscaledBytes()), "ff7f");
  EXPECT_EQ(Hex(Dec(-100, 20, 2).ToUnscaledBytes()), "9c");
  EXPECT_EQ(Hex(Dec(65535, 20, 0).ToUnscaledBytes()), "00ffff");
  auto max = Decimal::FromString("99999999999999999999999999999999999999", 38, 0);
  ASSERT_OK(max.status());
  EXPECT_EQ(Hex(max->ToUnscaledBytes()), "4b3b4ca85a86c47a098a223fffffffff");
  Decimal min = *max;
  min.unscaled = -min.unscaled;
  EXPECT_EQ(Hex(min.ToUnscaledBytes()), "b4c4b357a5793b85f675ddc000000001");
  for (const Decimal& d : {Dec(0, 20, 0), Dec(-129, 20, 0), *max, min}) {
    ASSERT_OK_AND_ASSIGN(Decimal back, Decimal::FromUnscaledBytes(d.ToUnscaledBytes(), 38, 0));
    EXPECT_EQ(back.unscaled, d.unscaled);
  }
}

TEST(ValueDecimalTest, FromUnscaledBytesChecksLengthAndPrecision) {
  EXPECT_THAT(Decimal::FromUnscaledBytes("", 20, 0), IsError(StatusCode::kInvalid, "1..16"));
  EXPECT_THAT(Decimal::FromUnscaledBytes(std::string(17, '\1'), 38, 0),
              IsError(StatusCode::kInvalid, "1..16"));
  EXPECT_THAT(Decimal::FromUnscaledBytes(std::string("\x03\xe8", 2), 3, 0),  // 1000
              IsError(StatusCode::kInvalid, "does not fit"));
  ASSERT_OK_AND_ASSIGN(Decimal d, Decimal::FromUnscaledBytes(std::string("\xff\x7f", 2), 5, 2));
  EXPECT_EQ(d.ToString(), "-1.29");
  // Redundant sign bytes are accepted on read.
  ASSERT_OK_AND_ASSIGN(d, Decimal::FromUnscaledBytes(std::string("\xff\xff\xff\x80", 4), 5, 0));
  EXPECT_EQ(d.ToString(), "-128");
}

// decimal_bytes.data: 2000 DECIMAL(29, 29) values as [len][unscaled digits][len][Java bytes].
TEST(ValueDecimalTest, GoldenJavaUnscaledBytes) {
  std::ifstream in(testing::FixturesDir() + "/paimon-java/decimal_bytes.data", std::ios::binary);
  ASSERT_TRUE(in) << "missing decimal_bytes.data";
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  auto read_chunk = [&](std::string* out) {
    if (pos + 4 > data.size()) return false;
    uint32_t len = 0;
    for (int i = 0; i < 4; ++i) len = (len << 8) | static_cast<unsigned char>(data[pos++]);
    if (pos + len > data.size()) return false;
    *out = data.substr(pos, len);
    pos += len;
    return true;
  };
  int records = 0;
  int negatives = 0;
  std::string text, java;
  while (pos < data.size()) {
    ASSERT_TRUE(read_chunk(&text) && read_chunk(&java)) << "truncated at record " << records;
    ++records;
    // The text is the unscaled integer; the value is text * 10^-29.
    ASSERT_OK_AND_ASSIGN(Decimal unscaled, Decimal::FromString(text, 38, 0));
    bool negative = text[0] == '-';
    negatives += negative;
    std::string digits = text.substr(negative ? 1 : 0);
    ASSERT_LE(digits.size(), 29u);
    std::string plain = (negative ? "-0." : "0.") + std::string(29 - digits.size(), '0') + digits;
    ASSERT_OK_AND_ASSIGN(Decimal d, Decimal::FromString(plain, 29, 29));
    ASSERT_EQ(d.unscaled, unscaled.unscaled) << plain;
    ASSERT_EQ(d.ToString(), plain);
    ASSERT_EQ(Hex(d.ToUnscaledBytes()), Hex(java)) << "record " << records << ": " << plain;
    ASSERT_OK_AND_ASSIGN(Decimal back, Decimal::FromUnscaledBytes(java, 29, 29));
    ASSERT_EQ(back, d);
  }
  EXPECT_EQ(records, 2000);
  EXPECT_GT(negatives, 0);
}

TEST(ValueTest, AsInt64) {
  EXPECT_EQ(Value(true).AsInt64(), 1);
  EXPECT_EQ(Value(int8_t{-5}).AsInt64(), -5);
  EXPECT_EQ(Value(int16_t{300}).AsInt64(), 300);
  EXPECT_EQ(Value(int32_t{-70000}).AsInt64(), -70000);
  EXPECT_EQ(Value(int64_t{1} << 40).AsInt64(), int64_t{1} << 40);
  EXPECT_EQ(Value(1.5).AsInt64(), 0);
  EXPECT_EQ(Value("7").AsInt64(), 0);
  EXPECT_EQ(Value().AsInt64(), 0);
}

TEST(ValueTest, EqualityIsDeep) {
  EXPECT_EQ(Value(), Value::Null());
  EXPECT_EQ(Value(int32_t{5}), Value(int32_t{5}));
  EXPECT_NE(Value(int32_t{5}), Value(int64_t{5}));  // representation is part of the value
  EXPECT_NE(Value(int32_t{5}), Value());
  EXPECT_EQ(Value("ab"), Value(std::string("ab")));
  EXPECT_EQ(Value(Dec(15, 3, 1)), Value(Dec(15, 3, 1)));
  EXPECT_NE(Value(Dec(15, 3, 1)), Value(Dec(150, 4, 2)));
  EXPECT_EQ(Value(Ts(5, 7)), Value(Ts(5, 7)));
  EXPECT_NE(Value(Ts(5, 7)), Value(Ts(5, 8)));
  // Like Java's Float.equals.
  EXPECT_EQ(Value(std::nan("")), Value(std::nan("")));
  EXPECT_NE(Value(0.0), Value(-0.0));
  EXPECT_EQ(Value(std::nanf("")), Value(-std::nanf("")));

  Value a = Value::List({Value(int32_t{1}), Value::List({Value("x"), Value()})});
  Value b = Value::List({Value(int32_t{1}), Value::List({Value("x"), Value()})});
  Value c = Value::List({Value(int32_t{1}), Value::List({Value("y"), Value()})});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, Value::List({Value(int32_t{1})}));
  Value m1 = Value::Map({{Value("k"), Value::List({Value(int32_t{1})})}});
  Value m2 = Value::Map({{Value("k"), Value::List({Value(int32_t{1})})}});
  Value m3 = Value::Map({{Value("k"), Value::List({Value(int32_t{2})})}});
  EXPECT_EQ(m1, m2);
  EXPECT_NE(m1, m3);
  EXPECT_NE(Value::List({}), Value::Map({}));
}

TEST(ValueCompareTest, NullsFirst) {
  auto t = DataType::Int();
  EXPECT_EQ(CompareValues(Value(), Value(), *t), 0);
  EXPECT_LT(CompareValues(Value(), Value(int32_t{-5}), *t), 0);
  EXPECT_GT(CompareValues(Value(int32_t{-5}), Value(), *t), 0);
}

TEST(ValueCompareTest, Numbers) {
  EXPECT_LT(CompareValues(Value(int32_t{-3}), Value(int32_t{2}), *DataType::Int()), 0);
  EXPECT_GT(CompareValues(Value(int64_t{1} << 40), Value(int64_t{7}), *DataType::BigInt()), 0);
  EXPECT_EQ(CompareValues(Value(int8_t{7}), Value(int8_t{7}), *DataType::TinyInt()), 0);
  EXPECT_LT(CompareValues(Value(int16_t{-300}), Value(int16_t{2}), *DataType::SmallInt()), 0);
  // Mixed widths compare numerically.
  EXPECT_EQ(CompareValues(Value(int32_t{7}), Value(int64_t{7}), *DataType::BigInt()), 0);
  EXPECT_LT(CompareValues(Value(int32_t{7}), Value(int64_t{8}), *DataType::BigInt()), 0);
  EXPECT_LT(CompareValues(Value(false), Value(true), *DataType::Boolean()), 0);
  EXPECT_EQ(CompareValues(Value(true), Value(true), *DataType::Boolean()), 0);
  EXPECT_LT(CompareValues(Value(int32_t{-1}), Value(int32_t{0}), *DataType::Date()), 0);
}

TEST(ValueCompareTest, FloatsLikeJavaCompare) {
  auto f = DataType::Float();
  auto d = DataType::Double();
  float fnan = std::numeric_limits<float>::quiet_NaN();
  float finf = std::numeric_limits<float>::infinity();
  EXPECT_LT(CompareValues(Value(-0.0f), Value(0.0f), *f), 0);
  EXPECT_GT(CompareValues(Value(0.0f), Value(-0.0f), *f), 0);
  EXPECT_GT(CompareValues(Value(fnan), Value(finf), *f), 0);
  EXPECT_EQ(CompareValues(Value(fnan), Value(-fnan), *f), 0);
  EXPECT_LT(CompareValues(Value(-finf), Value(-1.0f), *f), 0);
  EXPECT_LT(CompareValues(Value(1.5f), Value(2.5f), *f), 0);
  double dnan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_LT(CompareValues(Value(-0.0), Value(0.0), *d), 0);
  EXPECT_GT(CompareValues(Value(dnan), Value(1e308), *d), 0);
  EXPECT_EQ(CompareValues(Value(dnan), Value(dnan), *d), 0);
  EXPECT_LT(CompareValues(Value(-1e308), Value(-1e-308), *d), 0);
}

TEST(ValueCompareTest, StringsAndBinariesAsUnsignedBytes) {
  auto s = DataType::String();
  EXPECT_LT(CompareValues(Value("a"), Value("b"), *s), 0);
  EXPECT_LT(CompareValues(Value("ab"), Value("abc"), *s), 0);  // prefix first
  EXPECT_LT(CompareValues(Value(""), Value("a"), *s), 0);
  EXPECT_EQ(CompareValues(Value("abc"), Value("abc"), *s), 0);
  // UTF-8 "é" (0xC3 0xA9) sorts after ASCII: bytes compare unsigned.
  EXPECT_GT(CompareValues(Value("\xc3\xa9"), Value("z"), *s), 0);
  auto b = DataType::Bytes();
  EXPECT_GT(CompareValues(Value(std::string("\x80", 1)), Value(std::string("\x7f", 1)), *b), 0);
  EXPECT_GT(CompareValues(Value(std::string("\xff", 1)), Value(std::string("\x00\x01", 2)), *b), 0);
}

TEST(ValueCompareTest, DecimalsByValueAcrossScales) {
  auto t = DataType::Decimal(38, 10);
  EXPECT_EQ(CompareValues(Value(Dec(15, 2, 1)), Value(Dec(150, 3, 2)), *t), 0);
  EXPECT_GT(CompareValues(Value(Dec(15, 2, 1)), Value(Dec(149, 3, 2)), *t), 0);
  EXPECT_LT(CompareValues(Value(Dec(-15, 2, 1)), Value(Dec(-149, 3, 2)), *t), 0);
  EXPECT_LT(CompareValues(Value(Dec(-5, 2, 1)), Value(Dec(3, 3, 2)), *t), 0);
  EXPECT_GT(CompareValues(Value(Dec(-5, 2, 1)), Value(Dec(-100, 3, 2)), *t), 0);
  EXPECT_LT(CompareValues(Value(Dec(1, 2, 0)), Value(Dec(101, 3, 2)), *t), 0);
  // Extremes that would overflow if rescaled to a common scale.
  auto big = Decimal::FromString("99999999999999999999999999999999999999", 38, 0);
  auto tiny = Decimal::FromString("0.99999999999999999999999999999999999999", 38, 38);
  ASSERT_OK(big.status());
  ASSERT_OK(tiny.status());
  EXPECT_GT(CompareValues(Value(*big), Value(*tiny), *t), 0);
  EXPECT_LT(CompareValues(Value(*tiny), Value(*big), *t), 0);
  Decimal neg_big = *big;
  neg_big.unscaled = -neg_big.unscaled;
  EXPECT_LT(CompareValues(Value(neg_big), Value(*tiny), *t), 0);
  EXPECT_LT(CompareValues(Value(Dec(0, 1, 0)), Value(*tiny), *t), 0);
}

TEST(ValueCompareTest, TimestampsByMillisThenNanos) {
  auto t = DataType::Timestamp(9);
  EXPECT_LT(CompareValues(Value(Ts(-1, 999999)), Value(Ts(0, 0)), *t), 0);
  EXPECT_LT(CompareValues(Value(Ts(5, 1)), Value(Ts(5, 2)), *t), 0);
  EXPECT_GT(CompareValues(Value(Ts(6, 0)), Value(Ts(5, 999999)), *t), 0);
  EXPECT_EQ(CompareValues(Value(Ts(5, 3)), Value(Ts(5, 3)), *t), 0);
}

TEST(ValueCompareTest, NestedElementWise) {
  auto arr = DataType::Array(DataType::Int());
  auto l = [](std::initializer_list<Value> v) { return Value::List(ValueList(v)); };
  EXPECT_LT(CompareValues(l({Value(int32_t{1}), Value(int32_t{2})}),
                          l({Value(int32_t{1}), Value(int32_t{3})}), *arr),
            0);
  EXPECT_LT(CompareValues(l({Value(int32_t{1})}), l({Value(int32_t{1}), Value(int32_t{0})}), *arr),
            0);
  EXPECT_LT(CompareValues(l({Value()}), l({Value(int32_t{-9})}), *arr), 0);  // null element first
  EXPECT_EQ(CompareValues(l({}), l({}), *arr), 0);

  auto row =
      DataType::Row({DataField{0, "a", DataType::String()}, DataField{1, "b", DataType::Double()}});
  EXPECT_GT(CompareValues(l({Value("x"), Value(2.0)}), l({Value("x"), Value(1.0)}), *row), 0);
  EXPECT_LT(CompareValues(l({Value("w"), Value(2.0)}), l({Value("x"), Value(1.0)}), *row), 0);

  auto map = DataType::Map(DataType::String(), DataType::Int());
  Value m1 = Value::Map({{Value("a"), Value(int32_t{1})}});
  Value m2 = Value::Map({{Value("a"), Value(int32_t{2})}});
  Value m3 = Value::Map({{Value("a"), Value(int32_t{1})}, {Value("b"), Value(int32_t{0})}});
  EXPECT_LT(CompareValues(m1, m2, *map), 0);
  EXPECT_LT(CompareValues(m1, m3, *map), 0);
  EXPECT_EQ(CompareValues(m1, m1, *map), 0);
}

TEST(ValueToStringTest, ShortForms) {
  EXPECT_EQ(ValueToString(Value(), *DataType::Int()), "NULL");
  EXPECT_EQ(ValueToString(Value(int32_t{42}), *DataType::Int()), "42");
  EXPECT_EQ(ValueToString(Value(int64_t{-7}), *DataType::BigInt()), "-7");
  EXPECT_EQ(ValueToString(Value(int8_t{-7}), *DataType::TinyInt()), "-7");
  EXPECT_EQ(ValueToString(Value(true), *DataType::Boolean()), "true");
  EXPECT_EQ(ValueToString(Value(1.5), *DataType::Double()), "1.5");
  EXPECT_EQ(ValueToString(Value(0.1f), *DataType::Float()), "0.1");
  EXPECT_EQ(ValueToString(Value(std::nan("")), *DataType::Double()), "NaN");
  EXPECT_EQ(ValueToString(Value("it's"), *DataType::String()), "'it''s'");
  EXPECT_EQ(ValueToString(Value(std::string("\x0a\xff", 2)), *DataType::Bytes()), "X'0AFF'");
  EXPECT_EQ(ValueToString(Value(Dec(-12340, 7, 3)), *DataType::Decimal(7, 3)), "-12.340");
  EXPECT_EQ(ValueToString(Value(int32_t{19723}), *DataType::Date()), "2024-01-01");
  EXPECT_EQ(ValueToString(Value(int32_t{-1}), *DataType::Date()), "1969-12-31");
  EXPECT_EQ(ValueToString(Value(int32_t{-719528}), *DataType::Date()), "0000-01-01");
  EXPECT_EQ(ValueToString(Value(int32_t{45296789}), *DataType::Time(3)), "12:34:56.789");
  EXPECT_EQ(ValueToString(Value(int32_t{45296000}), *DataType::Time(0)), "12:34:56");
  EXPECT_EQ(ValueToString(Value(Ts(1704067200000)), *DataType::Timestamp(0)),
            "2024-01-01 00:00:00");
  EXPECT_EQ(ValueToString(Value(Ts(1704067200123, 456000)), *DataType::Timestamp(6)),
            "2024-01-01 00:00:00.123456");
  EXPECT_EQ(ValueToString(Value(Ts(1704067200000)), *DataType::Timestamp(3)),
            "2024-01-01 00:00:00.000");
  // Before 1970: -1 ms plus 1 ns is 1969-12-31 23:59:59.999000001.
  EXPECT_EQ(ValueToString(Value(Ts(-1, 1)), *DataType::Timestamp(9)),
            "1969-12-31 23:59:59.999000001");
  EXPECT_EQ(
      ValueToString(Value::List({Value(int32_t{1}), Value()}), *DataType::Array(DataType::Int())),
      "[1, NULL]");
  EXPECT_EQ(ValueToString(Value::Map({{Value("a"), Value(int32_t{1})}}),
                          *DataType::Map(DataType::String(), DataType::Int())),
            "{'a': 1}");
  auto row =
      DataType::Row({DataField{0, "a", DataType::Int()}, DataField{1, "b", DataType::Date()}});
  EXPECT_EQ(ValueToString(Value::List({Value(int32_t{1}), Value(int32_t{0})}), *row),
            "(1, 1970-01-01)");
}

// The one-pass reading of the common form gives the general reading's value for every text it
// takes (a leading blank sends a text to the general reading, which trims it) and takes the
// plain texts that fit.
TEST(ValueDecimalTest, PlainDecimalAsTheGeneralReading) {
  std::mt19937_64 rng(20261206);
  int taken = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    switch (rng() % 4) {
      case 0:
        text += '-';
        break;
      case 1:
        if (rng() % 4 == 0) text += '+';
        break;
      default:
        break;
    }
    const int integer = static_cast<int>(rng() % 12);
    for (int k = 0; k < integer; ++k) text += static_cast<char>('0' + rng() % (k == 0 ? 3 : 10));
    if (rng() % 3 != 0) {
      text += '.';
      const int fraction = static_cast<int>(rng() % 10);
      for (int k = 0; k < fraction; ++k) text += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 40 == 0) text += 'x';
    const int32_t precision = 1 + static_cast<int32_t>(rng() % 38);
    const int32_t scale = static_cast<int32_t>(rng() % (precision + 1));
    Int128 plain = 0;
    const bool took = PlainDecimal(text, precision, scale, &plain);
    Result<Decimal> general = Decimal::FromString(" " + text, precision, scale);
    if (!took) continue;
    ++taken;
    ASSERT_TRUE(general.ok()) << text << " (" << precision << ", " << scale << ")";
    ASSERT_TRUE(general->unscaled == plain) << text << " (" << precision << ", " << scale << ")";
  }
  EXPECT_GT(taken, 5000);
  Int128 v = 0;
  EXPECT_TRUE(PlainDecimal("-0012.50", 10, 3, &v));
  EXPECT_TRUE(v == -12500);
  EXPECT_TRUE(PlainDecimal("123456789012345678", 38, 20, &v));  // scaled past 10^18
  EXPECT_TRUE(v == static_cast<Int128>(123456789012345678) * 1000000000000000000 * 100);
  EXPECT_FALSE(PlainDecimal("1234567890123456789", 38, 0, &v));  // 19 digits
  EXPECT_FALSE(PlainDecimal("100", 4, 2, &v));                   // 3 integer digits of 2
  EXPECT_FALSE(PlainDecimal("1.234", 10, 2, &v));                // rounding: the general path's
}

}  // namespace
}  // namespace fjord
