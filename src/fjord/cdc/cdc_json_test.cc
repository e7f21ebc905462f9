// The Java texts of message values: checked against Jackson 2.14 (as shaded in paimon-bundle
// 1.4.2) reading with USE_BIG_DECIMAL_FOR_FLOATS and converting to Map<String, Object>, these
// cases and 20000 random decimal numbers.
#include "fjord/cdc/cdc_json.h"

#include <gtest/gtest.h>

#include <random>

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
  EXPECT_FALSE(ParseCdcJson(" ").ok());
  // As Jackson's readValue: what follows the first value is not read.
  auto first = ParseCdcJson(R"({"a":1} xyz)");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(JavaObjectText(*first), "{a=1}");
  EXPECT_TRUE(IsJavaBigDecimal("-1.5E+3"));
  EXPECT_TRUE(IsJavaBigDecimal(".5"));
  EXPECT_FALSE(IsJavaBigDecimal("AMU="));
  EXPECT_FALSE(IsJavaBigDecimal("1e"));
}

}  // namespace

// Kinds and texts of two trees, member by member.
bool SameTree(const JsonNode& a, const JsonNode& b) {
  if (a.kind != b.kind || a.text != b.text || a.members.size() != b.members.size() ||
      a.items.size() != b.items.size()) {
    return false;
  }
  for (size_t i = 0; i < a.members.size(); ++i) {
    if (a.members[i].first != b.members[i].first ||
        !SameTree(a.members[i].second, b.members[i].second)) {
      return false;
    }
  }
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!SameTree(a.items[i], b.items[i])) return false;
  }
  return true;
}

std::string RandomValue(std::mt19937* rng, int depth) {
  static const std::vector<std::string> kScalars = {"0",
                                                    "-0",
                                                    "12",
                                                    "-7",
                                                    "1.50",
                                                    "1e3",
                                                    "-0.0",
                                                    "100.0",
                                                    "2.5E-10",
                                                    "18446744073709551616",
                                                    "123456789012345678901234567890.5",
                                                    "true",
                                                    "false",
                                                    "null",
                                                    "\"a\"",
                                                    "\"\\u00e9\\n\"",
                                                    "\"\\ud83d\\ude00\"",
                                                    "\"\"",
                                                    "\"x\\\"y\"",
                                                    "01",
                                                    "1.",
                                                    "+1",
                                                    "tru",
                                                    "\"\\ud800\"",
                                                    "\"\t\"",
                                                    "nul",
                                                    "1e",
                                                    "\"\xff\"",
                                                    "-"};
  auto pick = [&](size_t n) { return static_cast<size_t>((*rng)() % n); };
  if (depth > 3 || pick(3) != 0) {
    // Mostly the valid scalars (the first 19).
    return kScalars[pick(10) == 0 ? pick(kScalars.size()) : pick(19)];
  }
  std::string out;
  size_t n = pick(4);
  if (pick(2) == 0) {
    out = "[";
    for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + RandomValue(rng, depth + 1);
    return out + "]";
  }
  out = "{";
  for (size_t i = 0; i < n; ++i) {
    out += std::string(i ? "," : "") + "\"k" + std::to_string(pick(4)) +
           "\":" + RandomValue(rng, depth + 1);
  }
  return out + "}";
}

TEST(CdcJsonTest, SameTreesAsTheReference) {
  std::mt19937 rng(7);
  int valid = 0, invalid = 0;
  for (int n = 0; n < 30000; ++n) {
    std::string text = "{\"before\":" + RandomValue(&rng, 0) +
                       ",\"after\":" + RandomValue(&rng, 0) + ",\"op\":\"u\"}";
    switch (rng() % 12) {
      case 0:
        text = text.substr(0, rng() % text.size());
        break;
      case 1:
        text += " trailing";
        break;
      case 2:
        text += "}";
        break;
      case 3:
        text = "[" + text + "]";
        break;
      case 4:
        text = "  " + text + "\n";
        break;
      default:
        break;
    }
    Result<JsonNode> reference = ParseCdcJsonReference(text);
    Result<JsonNode> fast = ParseCdcJson(text);
    if (!reference.ok()) {
      ++invalid;
      ASSERT_FALSE(fast.ok()) << text << " read as " << JacksonCompactText(*fast);
      ASSERT_EQ(fast.status().ToString(), reference.status().ToString()) << text;
      continue;
    }
    ++valid;
    ASSERT_TRUE(fast.ok()) << text << ": " << fast.status().ToString();
    ASSERT_TRUE(SameTree(*fast, *reference)) << text << "\nfast: " << JacksonCompactText(*fast)
                                             << "\nreference: " << JacksonCompactText(*reference);
  }
  EXPECT_GT(valid, 5000);
  EXPECT_GT(invalid, 3000);
}

}  // namespace fjord::cdc
