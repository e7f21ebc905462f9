#include "fjord/data_type.h"
#include "fjord/common/data_type_json.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::string Roundtrip(const std::string& text) {
  auto t = ParseDataType(text);
  if (!t.ok()) return "ERROR " + t.status().ToString();
  return (*t)->ToString();
}

TEST(DataTypeTest, CanonicalSpellingsRoundTrip) {
  for (const char* s : {"BOOLEAN",
                        "TINYINT",
                        "SMALLINT",
                        "INT",
                        "BIGINT",
                        "FLOAT",
                        "DOUBLE",
                        "DATE",
                        "CHAR(10)",
                        "VARCHAR(64)",
                        "STRING",
                        "BINARY(8)",
                        "VARBINARY(64)",
                        "BYTES",
                        "DECIMAL(10, 2)",
                        "DECIMAL(38, 18)",
                        "TIME(0)",
                        "TIME(3)",
                        "TIMESTAMP(0)",
                        "TIMESTAMP(3)",
                        "TIMESTAMP(9)",
                        "TIMESTAMP(6) WITH LOCAL TIME ZONE",
                        "INT NOT NULL",
                        "TIMESTAMP(6) WITH LOCAL TIME ZONE NOT NULL",
                        "VARIANT",
                        "BLOB",
                        "ARRAY<INT>",
                        "ARRAY<STRING NOT NULL> NOT NULL",
                        "MULTISET<DATE>",
                        "MAP<STRING NOT NULL, BIGINT>",
                        "ROW<`a` INT, `b c` STRING NOT NULL>",
                        "VECTOR<FLOAT, 4>"}) {
    EXPECT_EQ(Roundtrip(s), s);
  }
}

TEST(DataTypeTest, ReadSideAliasesAndDefaults) {
  EXPECT_EQ(Roundtrip("INTEGER"), "INT");
  EXPECT_EQ(Roundtrip("integer not null"), "INT NOT NULL");
  EXPECT_EQ(Roundtrip("NUMERIC(5,1)"), "DECIMAL(5, 1)");
  EXPECT_EQ(Roundtrip("DEC"), "DECIMAL(10, 0)");
  EXPECT_EQ(Roundtrip("DECIMAL"), "DECIMAL(10, 0)");
  EXPECT_EQ(Roundtrip("DECIMAL(7)"), "DECIMAL(7, 0)");
  EXPECT_EQ(Roundtrip("DOUBLE PRECISION"), "DOUBLE");
  EXPECT_EQ(Roundtrip("CHAR"), "CHAR(1)");
  EXPECT_EQ(Roundtrip("VARCHAR"), "VARCHAR(1)");
  EXPECT_EQ(Roundtrip("BINARY"), "BINARY(1)");
  EXPECT_EQ(Roundtrip("VARCHAR(2147483647)"), "STRING");
  EXPECT_EQ(Roundtrip("VARBINARY(2147483647)"), "BYTES");
  EXPECT_EQ(Roundtrip("TIMESTAMP"), "TIMESTAMP(6)");
  EXPECT_EQ(Roundtrip("TIMESTAMP(3) WITHOUT TIME ZONE"), "TIMESTAMP(3)");
  EXPECT_EQ(Roundtrip("TIME"), "TIME(0)");
  EXPECT_EQ(Roundtrip("TIMESTAMP_LTZ(3)"), "TIMESTAMP(3) WITH LOCAL TIME ZONE");
  EXPECT_EQ(Roundtrip("ROW(a INT, b STRING)"), "ROW<`a` INT, `b` STRING>");
  EXPECT_EQ(Roundtrip("INT NULL"), "INT");
}

TEST(DataTypeTest, AttributesOfParsedTypes) {
  ASSERT_OK_AND_ASSIGN(DataTypePtr d, ParseDataType("DECIMAL(30, 20) NOT NULL"));
  EXPECT_EQ(d->root(), TypeRoot::kDecimal);
  EXPECT_EQ(d->precision(), 30);
  EXPECT_EQ(d->scale(), 20);
  EXPECT_FALSE(d->nullable());
  ASSERT_OK_AND_ASSIGN(DataTypePtr m, ParseDataType("MAP<INT, ARRAY<TIMESTAMP(3)>>"));
  EXPECT_EQ(m->key()->root(), TypeRoot::kInt);
  EXPECT_EQ(m->value()->element()->precision(), 3);
  ASSERT_OK_AND_ASSIGN(DataTypePtr ltz, ParseDataType("TIMESTAMP_LTZ(9)"));
  EXPECT_EQ(ltz->root(), TypeRoot::kTimestampLtz);
  EXPECT_EQ(ltz->precision(), 9);
}

TEST(DataTypeTest, BadTypesGiveClearErrors) {
  EXPECT_THAT(ParseDataType("INTEGRAL"), IsError(StatusCode::kInvalid, "unknown type 'INTEGRAL'"));
  EXPECT_THAT(ParseDataType("DECIMAL(39, 2)"), IsError(StatusCode::kInvalid, "precision"));
  EXPECT_THAT(ParseDataType("DECIMAL(5, 6)"), IsError(StatusCode::kInvalid, "scale"));
  EXPECT_THAT(ParseDataType("TIMESTAMP(10)"), IsError(StatusCode::kInvalid, "precision"));
  EXPECT_THAT(ParseDataType("CHAR(0)"), IsError(StatusCode::kInvalid, "length"));
  EXPECT_THAT(ParseDataType("ARRAY<INT"), IsError(StatusCode::kInvalid, "expected '>'"));
  EXPECT_THAT(ParseDataType("INT INT"), IsError(StatusCode::kInvalid, "unexpected 'INT'"));
  EXPECT_THAT(ParseDataType(""), IsError(StatusCode::kInvalid, "expected a type name"));
  EXPECT_THAT(ParseDataType("ROW<`a INT>"), IsError(StatusCode::kInvalid, "unterminated"));
}

TEST(DataTypeTest, ColumnListAssignsIdsAsJava) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<DataField> fields,
      ParseColumnList("id INT NOT NULL, r ROW<x INT, y ARRAY<ROW<z STRING>>>, m MAP<INT, INT>"));
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].id, 0);
  EXPECT_EQ(fields[1].id, 1);
  EXPECT_EQ(fields[1].type->fields()[0].id, 2);
  // Java's ReassignFieldId: y takes its id after z, the field inside its type.
  EXPECT_EQ(fields[1].type->fields()[1].type->element()->fields()[0].id, 3);
  EXPECT_EQ(fields[1].type->fields()[1].id, 4);
  EXPECT_EQ(fields[2].id, 5);
  EXPECT_EQ(HighestFieldId(fields), 5);
  EXPECT_THAT(ParseColumnList(""), IsError(StatusCode::kInvalid, "no columns"));
  EXPECT_THAT(ParseColumnList("a INT,"), IsError(StatusCode::kInvalid, "field name"));
}

TEST(DataTypeTest, EqualityAndNullability) {
  ASSERT_OK_AND_ASSIGN(DataTypePtr a, ParseDataType("ARRAY<INT NOT NULL>"));
  ASSERT_OK_AND_ASSIGN(DataTypePtr b, ParseDataType("ARRAY<INT> NOT NULL"));
  EXPECT_FALSE(a->Equals(*b));
  EXPECT_TRUE(a->EqualsIgnoreNullable(*b));
  EXPECT_TRUE(a->WithNullable(false)->nullable() == false);
  EXPECT_TRUE(a->Equals(*a->WithNullable(true)));
}

TEST(DataTypeJsonTest, NestedTypesAsObjects) {
  std::string text = R"({"type":"ROW NOT NULL","fields":[{"id":5,"name":"f0","type":"STRING"},
      {"id":6,"name":"f1","type":{"type":"MAP","key":"INT NOT NULL","value":{"type":"ARRAY",
      "element":"DOUBLE"}},"description":"d"}]})";
  ASSERT_OK_AND_ASSIGN(Json j, ParseJson(text, "t"));
  ASSERT_OK_AND_ASSIGN(DataTypePtr t, DataTypeFromJson(j, "t"));
  EXPECT_EQ(t->ToString(), "ROW<`f0` STRING, `f1` MAP<INT NOT NULL, ARRAY<DOUBLE>> 'd'> NOT NULL");
  EXPECT_EQ(DataTypeToJson(*t), j);
}

TEST(DataTypeJsonTest, CorruptTypesNameTheField) {
  ASSERT_OK_AND_ASSIGN(Json j, ParseJson(R"({"id":1,"name":"price","type":"MONEY"})", "f"));
  EXPECT_THAT(DataFieldFromJson(j, "schema-0"),
              IsError(StatusCode::kCorruption, "schema-0 (field 'price').type"));
  ASSERT_OK_AND_ASSIGN(Json k, ParseJson(R"({"id":"1","name":"x","type":"INT"})", "f"));
  EXPECT_THAT(DataFieldFromJson(k, "schema-0"),
              IsError(StatusCode::kCorruption, "field 'id' must be an integer"));
  ASSERT_OK_AND_ASSIGN(Json m, ParseJson(R"({"type":"MAP","key":"INT"})", "f"));
  EXPECT_THAT(DataTypeFromJson(m, "s"), IsError(StatusCode::kCorruption, "MAP needs"));
  ASSERT_OK_AND_ASSIGN(Json n, ParseJson(R"("ARRAY<INT>")", "f"));
  EXPECT_THAT(DataTypeFromJson(n, "s"), IsError(StatusCode::kCorruption, "JSON object"));
}

}  // namespace
}  // namespace fjord
