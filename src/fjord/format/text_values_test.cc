#include "fjord/format/text_values.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fjord/format/json_values.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

Value Parse(std::string_view text, const DataTypePtr& type) {
  Result<Value> v = ValueFromText(text, *type);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : Value();
}

std::string Error(std::string_view text, const DataTypePtr& type) {
  Result<Value> v = ValueFromText(text, *type);
  EXPECT_FALSE(v.ok()) << text << " parsed as " << (v.ok() ? ValueToString(*v, *type) : "");
  EXPECT_TRUE(v.ok() || v.status().IsInvalid()) << v.status().ToString();
  return v.ok() ? "" : v.status().message();
}

std::string DecimalText(std::string_view text, int32_t p, int32_t s) {
  return ValueToString(Parse(text, DataType::Decimal(p, s)), *DataType::Decimal(p, s));
}

TEST(TextValues, StringsStayByteForByte) {
  EXPECT_EQ(Parse("007", DataType::String()).get<std::string>(), "007");
  EXPECT_EQ(Parse("1e5", DataType::String()).get<std::string>(), "1e5");
  EXPECT_EQ(Parse(" a ", DataType::String()).get<std::string>(), " a ");
  EXPECT_EQ(Parse("héé", DataType::Char(3)).get<std::string>(), "héé");  // 3 characters
  EXPECT_NE(Error("héél", DataType::Char(3)).find("4 characters, more than CHAR(3)"),
            std::string::npos);
  EXPECT_NE(Error("\xff", DataType::String()).find("not valid UTF-8"), std::string::npos);
}

TEST(TextValues, Integers) {
  EXPECT_EQ(Parse("-128", DataType::TinyInt()).get<int8_t>(), -128);
  EXPECT_EQ(Parse("+7", DataType::Int()).get<int32_t>(), 7);
  EXPECT_EQ(Parse("007", DataType::Int()).get<int32_t>(), 7);
  EXPECT_EQ(Parse("-9223372036854775808", DataType::BigInt()).get<int64_t>(), INT64_MIN);
  EXPECT_NE(Error("3000000000", DataType::Int()).find("out of range for INT"), std::string::npos);
  EXPECT_NE(Error("128", DataType::TinyInt()).find("out of range"), std::string::npos);
  EXPECT_NE(Error("9223372036854775808", DataType::BigInt()).find("out of range"),
            std::string::npos);
  for (const char* bad : {"1e5", "1.0", "", "-", "+-1", "0x10", "1_000"}) {
    EXPECT_NE(Error(bad, DataType::Int()).find("is not an integer"), std::string::npos) << bad;
  }
  EXPECT_NE(Error(" 1", DataType::Int()).find("blanks"), std::string::npos);
}

TEST(TextValues, Floats) {
  EXPECT_EQ(Parse("1.5", DataType::Double()).get<double>(), 1.5);
  EXPECT_EQ(Parse("+1e-3", DataType::Double()).get<double>(), 1e-3);
  EXPECT_EQ(Parse(".5", DataType::Float()).get<float>(), 0.5f);
  EXPECT_TRUE(std::isnan(Parse("NaN", DataType::Double()).get<double>()));
  EXPECT_EQ(Parse("-Infinity", DataType::Float()).get<float>(), -INFINITY);
  EXPECT_EQ(Parse("3.4028235e38", DataType::Float()).get<float>(), 3.4028235e38f);
  EXPECT_EQ(Parse("1e-50", DataType::Float()).get<float>(), 0.0f);  // underflow, as Java
  EXPECT_NE(Error("1e39", DataType::Float()).find("out of range for FLOAT"), std::string::npos);
  EXPECT_NE(Error("1e309", DataType::Double()).find("out of range for DOUBLE"), std::string::npos);
  for (const char* bad : {"inf", "nan", "1.2.3", "1e", "e5", "0x1p3", "1,5"}) {
    EXPECT_NE(Error(bad, DataType::Double()).find("is not a number"), std::string::npos) << bad;
  }
  EXPECT_EQ(*NarrowToFloat(3.40282350e38), 3.4028235e38f);
  EXPECT_FALSE(NarrowToFloat(3.5e38).ok());
}

TEST(TextValues, DecimalsRoundHalfUpAndRefuseOverflow) {
  EXPECT_EQ(DecimalText("1.005", 10, 2), "1.01");
  EXPECT_EQ(DecimalText("-1.005", 10, 2), "-1.01");
  EXPECT_EQ(DecimalText("1.004999", 10, 2), "1.00");
  EXPECT_EQ(DecimalText("99999999.994", 10, 2), "99999999.99");
  EXPECT_EQ(DecimalText("12345678901234567890.1234567891", 38, 10),
            "12345678901234567890.1234567891");
  EXPECT_EQ(DecimalText("1E+2", 10, 2), "100.00");
  EXPECT_NE(Error("99999999.995", DataType::Decimal(10, 2)).find("does not fit"),
            std::string::npos);  // rounds up to 9 integer digits
  EXPECT_NE(Error("123456789", DataType::Decimal(10, 2)).find("does not fit DECIMAL(10, 2)"),
            std::string::npos);
  EXPECT_NE(Error("1.2.3", DataType::Decimal(10, 2)).find("not a decimal number"),
            std::string::npos);
}

TEST(TextValues, DatesAndTimesAreReal) {
  EXPECT_EQ(Parse("1970-01-02", DataType::Date()).get<int32_t>(), 1);
  EXPECT_EQ(Parse("2024-02-29", DataType::Date()).get<int32_t>(), 19782);
  EXPECT_NE(Error("2026-02-30", DataType::Date()).find("2026-02 has 28 days"), std::string::npos);
  EXPECT_NE(Error("1900-02-29", DataType::Date()).find("1900-02 has 28 days"), std::string::npos);
  EXPECT_NE(Error("2026-00-01", DataType::Date()).find("no month 0"), std::string::npos);
  EXPECT_NE(Error("2026-1-01", DataType::Date()).find("not a date"), std::string::npos);
  EXPECT_EQ(Parse("23:59:59.999", DataType::Time(3)).get<int32_t>(), 86399999);
  EXPECT_EQ(Parse("01:00:00.500000", DataType::Time(6)).get<int32_t>(), 3600500);
  EXPECT_NE(Error("01:00:00.5000001", DataType::Time(6)).find("more fraction digits"),
            std::string::npos);
  EXPECT_NE(Error("24:00:00", DataType::Time(0)).find("not a time of day"), std::string::npos);
  EXPECT_NE(Error("12:00:60", DataType::Time(0)).find("not a time of day"), std::string::npos);
  EXPECT_NE(Error("12:00:00.5", DataType::Time(0)).find("more fraction digits than TIME(0)"),
            std::string::npos);
  Timestamp ts = Parse("1969-12-31 23:59:59.999999", DataType::Timestamp(6)).get<Timestamp>();
  EXPECT_EQ(ts.millis, -1);
  EXPECT_EQ(ts.nanos_of_milli, 999000);
  EXPECT_EQ(Parse("2026-01-01", DataType::Timestamp(3)).get<Timestamp>().millis, 1767225600000);
  EXPECT_EQ(Parse("2026-01-01T00:00:00.100Z", DataType::TimestampLtz(1)).get<Timestamp>().millis,
            1767225600100);
  EXPECT_NE(Error("2262-04-12 00:00:00", DataType::Timestamp(9)).find("out of range"),
            std::string::npos);
  EXPECT_NE(Error("2026-01-01 00:00:00", DataType::TimestampLtz(3)).find("ending in Z"),
            std::string::npos);
}

TEST(TextValues, Base64IsStrict) {
  EXPECT_EQ(Parse("AAEC", DataType::Bytes()).get<std::string>(), std::string("\0\1\2", 3));
  EXPECT_EQ(Parse("/w==", DataType::Bytes()).get<std::string>(), "\xff");
  EXPECT_EQ(Parse("", DataType::Bytes()).get<std::string>(), "");
  for (const char* bad : {"AAE", "A===", "AA=A", "/x==", "AA AA", "AA-_"}) {
    EXPECT_NE(Error(bad, DataType::Bytes()).find("is not base64"), std::string::npos) << bad;
  }
  EXPECT_NE(Error("AAAAAAAA", DataType::Binary(4)).find("6 bytes is longer than BINARY(4)"),
            std::string::npos);
}

TEST(TextValues, BooleansAsJavaCasts) {
  for (const char* t : {"true", "TRUE", "t", "yes", "Y", "1"}) {
    EXPECT_TRUE(Parse(t, DataType::Boolean()).get<bool>()) << t;
  }
  for (const char* f : {"false", "F", "no", "n", "0"}) {
    EXPECT_FALSE(Parse(f, DataType::Boolean()).get<bool>()) << f;
  }
  EXPECT_NE(Error("2", DataType::Boolean()).find("is not a BOOLEAN"), std::string::npos);
}

TEST(JsonValues, NumbersKeepTheirDigits) {
  EXPECT_TRUE(ParseExactJson("[1e400]", "x").status().IsInvalid());
  auto j = ParseExactJson("[12345678901234567890.1234567891, 1e300, 7]", "x");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  std::string buffer;
  ASSERT_NE(JsonNumberText((*j)[0], &buffer), nullptr);
  EXPECT_EQ(buffer, "12345678901234567890.1234567891");
  EXPECT_EQ(*JsonNumberText((*j)[1], &buffer), "1e300");
  EXPECT_EQ(JsonNumberText((*j)[2], &buffer), nullptr);
  auto v = ValueFromJson((*j)[0], *DataType::Decimal(38, 10));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ValueToString(*v, *DataType::Decimal(38, 10)), "12345678901234567890.1234567891");
  auto bad = ParseExactJson("{\"a\": 1,", "f.jsonl line 3");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalid());
  EXPECT_NE(bad.status().message().find("f.jsonl line 3: invalid JSON"), std::string::npos);
  EXPECT_FALSE(ParseExactJson("{\"a\": 1, \"a\": 2}", "").ok());
}

}  // namespace
}  // namespace fjord
