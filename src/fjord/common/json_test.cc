#include "fjord/common/json.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TEST(JsonTest, JacksonLayout) {
  Json j = Json::object();
  j["version"] = 3;
  j["fields"] = Json::array({Json{{"id", 0}, {"name", "a"}}, Json{{"id", 1}, {"name", "b"}}});
  j["keys"] = Json::array({"x", "y"});
  j["empty"] = Json::array();
  j["opts"] = Json::object();
  j["nested"] = Json{{"k", Json{{"z", true}}}};
  EXPECT_EQ(ToJacksonPretty(j),
            "{\n"
            "  \"version\" : 3,\n"
            "  \"fields\" : [ {\n"
            "    \"id\" : 0,\n"
            "    \"name\" : \"a\"\n"
            "  }, {\n"
            "    \"id\" : 1,\n"
            "    \"name\" : \"b\"\n"
            "  } ],\n"
            "  \"keys\" : [ \"x\", \"y\" ],\n"
            "  \"empty\" : [ ],\n"
            "  \"opts\" : { },\n"
            "  \"nested\" : {\n"
            "    \"k\" : {\n"
            "      \"z\" : true\n"
            "    }\n"
            "  }\n"
            "}");
}

TEST(JsonTest, StringEscapes) {
  std::string out;
  AppendJsonString(&out, "a\"b\\c\n\x01/é");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001/é\"");
}

TEST(JsonTest, TypedGettersNameFileAndField) {
  ASSERT_OK_AND_ASSIGN(Json j,
                       ParseJson(R"({"id": "x", "n": 5, "big": 18446744073709551615})", "snap-1"));
  EXPECT_THAT(JsonGetInt(j, "id", "snap-1"),
              IsError(StatusCode::kCorruption, "snap-1: field 'id' must be an integer"));
  EXPECT_THAT(JsonGetInt(j, "missing", "snap-1"),
              IsError(StatusCode::kCorruption, "field 'missing' is missing"));
  EXPECT_THAT(JsonGetInt(j, "big", "snap-1"), IsError(StatusCode::kCorruption, "64-bit"));
  ASSERT_OK_AND_ASSIGN(int64_t n, JsonGetInt(j, "n", "snap-1"));
  EXPECT_EQ(n, 5);
  ASSERT_OK_AND_ASSIGN(auto absent, JsonGetOptionalString(j, "nope", "snap-1"));
  EXPECT_FALSE(absent.has_value());
}

TEST(JsonTest, InvalidJsonNamesSource) {
  EXPECT_THAT(ParseJson("{\"a\": ", "schema/schema-7"),
              IsError(StatusCode::kCorruption, "schema/schema-7: invalid JSON"));
}

}  // namespace
}  // namespace fjord

namespace fjord {
namespace {

TEST(JsonTest, NumberOverflowIsACorruptionNotACrash) {
  // Found by json_fuzz: nlohmann reports 1e400 as out_of_range, not parse_error.
  EXPECT_THAT(ParseJson("{\"id\": 33333333333333333337e344}", "snapshot-1"),
              IsError(StatusCode::kCorruption, "snapshot-1: invalid JSON"));
  EXPECT_THAT(ParseJson("[1e400]", "x"), HasStatusCode(StatusCode::kCorruption));
}

}  // namespace
}  // namespace fjord
