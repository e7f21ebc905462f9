#include "fjord/common/strings.h"

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TEST(StringsTest, CaseMappingIsAsciiOnly) {
  EXPECT_EQ(Lower("Merge-ENGINE_1"), "merge-engine_1");
  EXPECT_EQ(Upper("zstd lz4"), "ZSTD LZ4");
  // UTF-8 bytes pass through unchanged.
  const std::string upper_a_umlaut = "\xC3\x84";  // UTF-8 for U+00C4
  EXPECT_EQ(Lower(upper_a_umlaut + "Bc"), upper_a_umlaut + "bc");
  EXPECT_EQ(Upper("\xC3\xA4x"), "\xC3\xA4X");
  EXPECT_EQ(Lower(""), "");
}

TEST(StringsTest, EqualsIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("NaN", "nan"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("true", "truee"));
  EXPECT_FALSE(EqualsIgnoreCase("a-b", "a_b"));
}

TEST(StringsTest, TrimDefaultsToCWhiteSpace) {
  EXPECT_EQ(Trim("  a b \t\n"), "a b");
  EXPECT_EQ(Trim("\v\f\rx\v"), "x");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("abc"), "abc");
}

TEST(StringsTest, TrimGivenCharacters) {
  EXPECT_EQ(Trim(" \tv1 \n", " \t"), "v1 \n");
  EXPECT_EQ(Trim("--x--", "-"), "x");
  EXPECT_EQ(Trim("\va\v", " \t\n\r\f"), "\va\v");
}

TEST(StringsTest, SplitCommaList) {
  EXPECT_EQ(SplitCommaList("a, b,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(SplitCommaList(""), std::vector<std::string>{});
  EXPECT_EQ(SplitCommaList(" , "), std::vector<std::string>{});
  EXPECT_EQ(SplitCommaList("one"), std::vector<std::string>{"one"});
}

}  // namespace
}  // namespace fjord
