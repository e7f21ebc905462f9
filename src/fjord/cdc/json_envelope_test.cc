#include "fjord/cdc/json_envelope.h"

#include <gtest/gtest.h>

namespace fjord::cdc {
namespace {

TEST(JsonEnvelopeTest, SplitsTopLevelMembers) {
  auto members = TopLevelMembers(
      R"( {"schema" : {"a":[1,{"b":"}"}]}, "payload":{"x":"\"{[", "y":null},"n":-1.5e3 ,"s":"q\"}"} )");
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 4u);
  EXPECT_EQ((*members)[0].first, "schema");
  EXPECT_EQ((*members)[0].second, R"({"a":[1,{"b":"}"}]})");
  EXPECT_EQ((*members)[1].second, R"({"x":"\"{[", "y":null})");
  EXPECT_EQ((*members)[2].second, "-1.5e3");
  EXPECT_EQ((*members)[3].second, R"("q\"}")");
  auto empty = TopLevelMembers(" {} ");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

TEST(JsonEnvelopeTest, LeavesWhatItCannotSplitToTheParser) {
  for (const char* text :
       {"", "[1]", "null", "{\"a\":1", "{\"a\":{\"b\":1}", "{\"a\" 1}", "{\"a\":1,}", "{\"a\":1} x",
        "{\"\\u0061\":1}", "{\"a\":\"x}", "{a:1}"}) {
    EXPECT_FALSE(TopLevelMembers(text).has_value()) << text;
  }
}

}  // namespace
}  // namespace fjord::cdc
