// canal-json: expected types and texts reasoned from Java Paimon 1.4.2's CanalRecordParser,
// CanalFieldParser and MySqlTypeUtils, and confirmed by running Java's CanalRecordParser (Paimon
// 1.3.1, whose parser code is the same as 1.4.2's) on these messages.
#include <gtest/gtest.h>

#include <cstdio>

#include "fjord/cdc/cdc_test_util.h"
#include "fjord/cdc/mysql_types.h"

namespace fjord::cdc::testing {
namespace {

const char* kTyped = R"j({"data":[{"id":"1","flag":"1","n":"7","u":"18446744073709551615",
  "price":"9.90","d":"1.5","name":"ann","c":"abc","t":"long","ts":"2024-01-02 03:04:05.678",
  "ts0":"2024-01-02 03:04:05","e":"2","s":"5","blob":"x","bin":"y","f":"1.5","dbl":"2.5",
  "bit1":"1","bits":"3","tm":"10:11:12","yr":"2024","dt":"2024-01-02","js":"{}","ui":"5",
  "sm":"6","gone":null}],"database":"shop","table":"items","pkNames":["id"],"isDdl":false,
  "mysqlType":{"id":"int(11)","flag":"tinyint(1)","n":"tinyint(4)","u":"bigint(20) unsigned",
  "price":"decimal(10,2)","d":"decimal","name":"varchar(32)","c":"char(3)","t":"longtext",
  "ts":"datetime(3)","ts0":"timestamp","e":"enum('a','b','c')","s":"set('x','y','z')",
  "blob":"blob","bin":"varbinary(16)","f":"float","dbl":"double","bit1":"bit(1)",
  "bits":"bit(12)","tm":"time","yr":"year","dt":"date","js":"json","ui":"int(10) unsigned",
  "sm":"smallint(6) unsigned zerofill","gone":"int","missing":"varchar(5)"},
  "sqlType":{"id":4},"type":"INSERT"})j";

TEST(CanalJsonTest, MySqlTypesWithoutOptions) {
  auto records = DecodeOk("canal-json", kTyped);
  ASSERT_EQ(records.size(), 1u);
  const CdcRecord& r = records[0];
  ExpectChange(r, ChangeKind::kInsert, "shop", "items", {"id"});
  // The columns are mysqlType's, in its order.
  ExpectColumns(r, 27, "id", "missing");
  EXPECT_EQ(Type(r, "id"), "INT");
  EXPECT_EQ(Type(r, "flag"), "BOOLEAN");
  EXPECT_EQ(Type(r, "n"), "TINYINT");
  EXPECT_EQ(Type(r, "u"), "DECIMAL(20, 0)");
  EXPECT_EQ(Type(r, "price"), "DECIMAL(10, 2)");
  EXPECT_EQ(Type(r, "d"), "DECIMAL(38, 18)");
  EXPECT_EQ(Type(r, "name"), "VARCHAR(32)");
  EXPECT_EQ(Type(r, "c"), "CHAR(3)");
  EXPECT_EQ(Type(r, "t"), "STRING");
  EXPECT_EQ(Type(r, "ts"), "TIMESTAMP(3)");
  EXPECT_EQ(Type(r, "ts0"), "TIMESTAMP(0)");
  EXPECT_EQ(Type(r, "e"), "STRING");
  EXPECT_EQ(Type(r, "s"), "ARRAY<STRING>");
  EXPECT_EQ(Type(r, "blob"), "BYTES");
  EXPECT_EQ(Type(r, "bin"), "VARBINARY(16)");
  EXPECT_EQ(Type(r, "f"), "FLOAT");
  EXPECT_EQ(Type(r, "dbl"), "DOUBLE");
  EXPECT_EQ(Type(r, "bit1"), "BOOLEAN");
  EXPECT_EQ(Type(r, "bits"), "BINARY(2)");
  EXPECT_EQ(Type(r, "tm"), "TIME(0)");
  EXPECT_EQ(Type(r, "yr"), "INT");
  EXPECT_EQ(Type(r, "dt"), "DATE");
  EXPECT_EQ(Type(r, "js"), "STRING");
  EXPECT_EQ(Type(r, "ui"), "BIGINT");
  EXPECT_EQ(Type(r, "sm"), "INT");
  // Values: enum and set indexes become labels; null and absent values are NULL.
  EXPECT_EQ(Value(r, "price"), "9.90");
  EXPECT_EQ(Value(r, "e"), "b");
  EXPECT_EQ(Value(r, "s"), "[x,z]");
  EXPECT_EQ(Value(r, "gone"), "<NULL>");
  EXPECT_EQ(Value(r, "missing"), "<NULL>");
}

TEST(CanalJsonTest, MySqlTypeOptions) {
  auto mapping = TypeMapping::Parse({"tinyint1-not-bool", "char-to-string", "longtext-to-bytes",
                                     "bigint-unsigned-to-bigint", "to-nullable"});
  ASSERT_TRUE(mapping.ok());
  auto records = DecodeOk("canal-json", kTyped, *mapping);
  ASSERT_EQ(records.size(), 1u);
  const CdcRecord& r = records[0];
  EXPECT_EQ(Type(r, "flag"), "TINYINT");
  EXPECT_EQ(Type(r, "u"), "BIGINT");
  EXPECT_EQ(Type(r, "name"), "STRING");
  EXPECT_EQ(Type(r, "c"), "STRING");
  EXPECT_EQ(Type(r, "t"), "BYTES");
  EXPECT_EQ(Type(r, "price"), "DECIMAL(10, 2)");

  auto to_string = TypeMapping::Parse({"to-string"});
  records = DecodeOk("canal-json", kTyped, *to_string);
  ASSERT_EQ(records.size(), 1u);
  for (const CdcColumn& c : records[0].columns) EXPECT_EQ(c.type->ToString(), "STRING") << c.name;
  EXPECT_EQ(Value(records[0], "e"), "b");  // the value transform does not depend on the mapping
}

TEST(CanalJsonTest, MySqlTypeNames) {
  auto info = ParseMySqlType("decimal(12, 4) unsigned zerofill");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->short_type, "DECIMAL UNSIGNED ZEROFILL");
  EXPECT_EQ(info->length, 12);
  EXPECT_EQ(info->scale, 4);
  TypeMapping none;
  EXPECT_EQ((*MySqlToDataType(*info, none))->ToString(), "DECIMAL(12, 4)");
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("decimal(65,2)"), none))->ToString(), "STRING");
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("datetime(23)"), none))->ToString(), "TIMESTAMP(3)");
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("timestamp(19)"), none))->ToString(), "TIMESTAMP(0)");
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("datetime(6)"), none))->ToString(), "TIMESTAMP(6)");
  EXPECT_FALSE(MySqlToDataType(*ParseMySqlType("datetime(12)"), none).ok());
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("varbinary"), none))->ToString(), "VARBINARY(1)");
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("varchar"), none))->ToString(), "STRING");
  EXPECT_EQ((*MySqlToDataType(*ParseMySqlType("serial"), none))->ToString(), "DECIMAL(20, 0)");
  EXPECT_FALSE(MySqlToDataType(*ParseMySqlType("vector(3)"), none).ok());
  EXPECT_FALSE(ParseMySqlType("int(x)").ok());
}

TEST(CanalJsonTest, UpdateMergesOldPerRowAndDelete) {
  auto records = DecodeOk("canal-json", R"({"data":[{"id":"1","name":"b"},{"id":"2","name":"c"}],
    "old":[{"name":"a"},{"name":"z"}],"database":"d","table":"t","pkNames":["id"],
    "type":"UPDATE","isDdl":false})");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].kind, ChangeKind::kDelete);
  EXPECT_EQ(Value(records[0], "id"), "1");
  EXPECT_EQ(Value(records[0], "name"), "a");
  EXPECT_EQ(records[1].kind, ChangeKind::kInsert);
  EXPECT_EQ(Value(records[1], "name"), "b");
  EXPECT_EQ(records[2].kind, ChangeKind::kDelete);
  EXPECT_EQ(Value(records[2], "name"), "z");
  EXPECT_EQ(Value(records[3], "name"), "c");
  for (const CdcRecord& r : records) EXPECT_EQ(Type(r, "id"), "STRING");

  records = DecodeOk("canal-json", R"({"data":[{"id":"3","note":null,"o":{"k":1}}],
    "type":"DELETE"})");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, ChangeKind::kDelete);
  EXPECT_EQ(Value(records[0], "note"), "<NULL>");  // canal keeps null (Objects.toString(v, null))
  EXPECT_EQ(Value(records[0], "o"), "{k=1}");
  EXPECT_TRUE(records[0].primary_keys.empty());
  EXPECT_FALSE(records[0].database.has_value());
}

TEST(CanalJsonTest, DdlAndTombstonesGiveNothing) {
  EXPECT_TRUE(DecodeOk("canal-json", R"({"data":null,"database":"d","table":"t",
    "isDdl":true,"sql":"ALTER TABLE t ADD c INT","type":"ALTER"})")
                  .empty());
  EXPECT_TRUE(DecodeOk("canal-json", "null").empty());
  EXPECT_TRUE(DecodeOk("canal-json", R"({"data":[],"type":"INSERT"})").empty());
  EXPECT_EQ(DecodeOk("canal-json", R"({"data":[{"a":"1"}],"type":"ROW"})").size(), 1u);
}

TEST(CanalJsonTest, EnumAndSetLabels) {
  auto records = DecodeOk("canal-json", R"j({"data":[{"s":"7","e":"2","n":5}],
    "mysqlType":{"s":"set('a', 'b' ,'c')","e":"enum('p','q','')","n":"int"},"type":"INSERT"})j");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(Value(records[0], "s"), "[a,b,c]");
  EXPECT_EQ(Value(records[0], "e"), "q");
  EXPECT_EQ(Value(records[0], "n"), "5");
  // Java's String.split drops the trailing empty label, so index 3 is out of range.
  EXPECT_TRUE(DecodeError("canal-json", R"j({"data":[{"e":"3"}],
    "mysqlType":{"e":"enum('p','q','')"},"type":"INSERT"})j")
                  .IsInvalid());
  EXPECT_TRUE(DecodeError("canal-json", R"j({"data":[{"s":"8"}],
    "mysqlType":{"s":"set('a','b','c')"},"type":"INSERT"})j")
                  .IsInvalid());
  // BIT without a length would be BINARY(0), which Paimon refuses.
  EXPECT_TRUE(DecodeError("canal-json", R"j({"data":[{"b":"1"}],"mysqlType":{"b":"bit"},
    "type":"INSERT"})j")
                  .IsInvalid());
}

// MySQL geometry values come as MySQL's internal bytes (a 4-byte SRID, then WKB) read as
// ISO-8859-1 text; Java turns them into GeoJSON text, and fails on a non-zero SRID.
TEST(CanalJsonTest, GeometryValuesBecomeJavasGeoJsonText) {
  auto latin1_json = [](const std::string& bytes) {
    std::string out;
    char buf[8];
    for (unsigned char c : bytes) {
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    }
    return out;
  };
  // POINT (1 2), little-endian WKB.
  const std::string wkb(
      "\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00"
      "\x00\x00\x00\x40",
      21);
  const std::string srid0(4, '\0');
  const std::string srid4326("\xe6\x10\x00\x00", 4);
  auto message = [&](const std::string& value) {
    return R"({"data":[{"id":"1","g":")" + latin1_json(value) +
           R"("}],"mysqlType":{"id":"int","g":"point"},"pkNames":["id"],"type":"INSERT",)"
           R"("database":"db","table":"t"})";
  };
  auto records = DecodeOk("canal-json", message(srid0 + wkb));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(Type(records[0], "g"), "STRING");
  EXPECT_EQ(Value(records[0], "g"), R"({"coordinates":[1,2],"type":"Point","srid":0})");
  Status st = DecodeError("canal-json", message(srid4326 + wkb));
  EXPECT_NE(st.message().find("column 'g': the MySQL geometry value is not one Java reads"),
            std::string::npos)
      << st.message();
}

TEST(CanalJsonTest, Errors) {
  Status st = DecodeError("canal-json", R"({"type":"INSERT"})");
  EXPECT_EQ(st.message(), "file in.jsonl line 3: Invalid canal-json format: missing 'data' field.");
  st = DecodeError("canal-json", R"({"data":[{"a":"1"}]})");
  EXPECT_EQ(st.message(), "file in.jsonl line 3: Invalid canal-json format: missing 'type' field.");
  st = DecodeError("canal-json", R"({"data":[{"a":"1"}],"type":"UPDATE"})");
  EXPECT_NE(st.message().find("missing 'old' field when 'type' is 'UPDATE'"), std::string::npos);
  st = DecodeError("canal-json", R"({"data":[{"a":"1"}],"type":"TRUNCATE"})");
  EXPECT_NE(st.message().find("unknown record operation 'TRUNCATE'"), std::string::npos);
  st = DecodeError("canal-json",
                   R"j({"data":[{"e":"x"}],"mysqlType":{"e":"enum('x','y')"},"type":"INSERT"})j");
  EXPECT_NE(st.message().find("column 'e'"), std::string::npos) << st.message();
  st = DecodeError("canal-json",
                   R"({"data":[{"e":"1"}],"mysqlType":{"e":"geometry"},"type":"INSERT"})");
  EXPECT_NE(st.message().find("geometry"), std::string::npos);
}

}  // namespace
}  // namespace fjord::cdc::testing
