// The Java texts of message values: checked against Jackson 2.14 (as shaded in paimon-bundle
// 1.4.2) reading with USE_BIG_DECIMAL_FOR_FLOATS and converting to Map<String, Object>.
#include "fjord/cdc/cdc_json.h"

#include <gtest/gtest.h>

namespace fjord::cdc {
namespace {

TEST(CdcJsonTest, NumbersKeepJavaTexts) {
  auto node = ParseCdcJson(
      R"({"i":1,"neg0":-0,"l":12345678901,"u":18446744073709551615,
          "bi":123456789012345678901234,"f":1.50,"e":1e3,"s":0.0000001,"z":-0.0,"h":100.0,
          "x":-12.500,"y":123456789.0e-20})");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  auto text = [&](const char* k) { return JavaObjectText(*node->Get(k)); };
  EXPECT_EQ(text("i"), "1");
  EXPECT_EQ(text("neg0"), "0");
  EXPECT_EQ(text("l"), "12345678901");
  EXPECT_EQ(text("u"), "18446744073709551615");
  EXPECT_EQ(text("bi"), "123456789012345678901234");
  EXPECT_EQ(text("f"), "1.5");
  EXPECT_EQ(text("e"), "1E+3");
  EXPECT_EQ(text("s"), "1E-7");
  EXPECT_EQ(text("z"), "0");
  EXPECT_EQ(text("h"), "1E+2");
  EXPECT_EQ(text("x"), "-12.5");
  EXPECT_EQ(text("y"), "1.23456789E-12");
  EXPECT_EQ(NormalizedDecimalText("0.000001"), "0.000001");
}

TEST(CdcJsonTest, NestedTextsAndDuplicateKeys) {
  auto node = ParseCdcJson(R"({"a":1,"o":{"k":[1,"t",null,2.5e10],"q":"x\"y"},"a":2})");
  ASSERT_TRUE(node.ok());
  ASSERT_EQ(node->members.size(), 2u);
  EXPECT_EQ(node->members[0].first, "a");  // replaced in place, as ObjectNode.set
  EXPECT_EQ(JavaObjectText(*node->Get("a")), "2");
  EXPECT_EQ(JavaObjectText(*node->Get("o")), "{k=[1, t, null, 2.5E+10], q=x\"y}");
  EXPECT_EQ(JacksonCompactText(*node->Get("o")), R"({"k":[1,"t",null,2.5E+10],"q":"x\"y"})");
  EXPECT_EQ(JsonAsText(*node->Get("o")), "");
  EXPECT_EQ(node->Get("missing"), nullptr);
  EXPECT_EQ(node->Get("a")->Get("x"), nullptr);
}

TEST(CdcJsonTest, BadJsonIsInvalid) {
  EXPECT_FALSE(ParseCdcJson("{\"a\":").ok());
  EXPECT_FALSE(ParseCdcJson("").ok());
  EXPECT_TRUE(IsJavaBigDecimal("-1.5E+3"));
  EXPECT_TRUE(IsJavaBigDecimal(".5"));
  EXPECT_FALSE(IsJavaBigDecimal("AMU="));
  EXPECT_FALSE(IsJavaBigDecimal("1e"));
}

}  // namespace
}  // namespace fjord::cdc
