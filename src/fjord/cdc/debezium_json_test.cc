// debezium-json: expected values reasoned from Java Paimon 1.4.2's DebeziumJsonRecordParser and
// DebeziumSchemaUtils, and confirmed by running Java's parser (Paimon 1.3.1, whose parser code is
// the same as 1.4.2's) on these messages on JDK 17; the edge texts of DebeziumTypesTest against
// the JDK and Paimon's DateTimeUtils.
#include <gtest/gtest.h>

#include "fjord/cdc/cdc_test_util.h"
#include "fjord/cdc/debezium_types.h"

namespace fjord::cdc::testing {
namespace {

constexpr const char* kOrigin = "kafka t p 0 offset 7";

std::vector<CdcRecord> DecodeOk(const std::string& json, const TypeMapping& mapping = {}) {
  return cdc::testing::DecodeOk("debezium-json", json, mapping, kOrigin);
}

Status DecodeError(const std::string& json) {
  return cdc::testing::DecodeError("debezium-json", json, kOrigin);
}

TEST(DebeziumJsonTest, InsertWithoutSchemaIsAllStringWithJavaTexts) {
  auto records = DecodeOk(R"({"before":null,"after":{"id":1,"big":12345678901234567890123,
    "price":1.50,"e":1e3,"tiny":0.0000001,"ok":true,"note":null,"name":"a\"b",
    "tags":{"k":[1,"x",null,2.0]}},"source":{"db":"shop","table":"orders"},"op":"c",
    "pkNames":["id"]})");
  ASSERT_EQ(records.size(), 1u);
  const CdcRecord& r = records[0];
  ExpectChange(r, ChangeKind::kInsert, "shop", "orders", {"id"});
  ExpectColumns(r, 9, "id", "tags");
  for (const CdcColumn& c : r.columns) EXPECT_EQ(c.type->ToString(), "STRING") << c.name;
  EXPECT_EQ(Value(r, "id"), "1");
  EXPECT_EQ(Value(r, "big"), "12345678901234567890123");  // BigInteger
  // Floats are read as BigDecimal and normalized by Jackson's node factory.
  EXPECT_EQ(Value(r, "price"), "1.5");
  EXPECT_EQ(Value(r, "e"), "1E+3");
  EXPECT_EQ(Value(r, "tiny"), "1E-7");
  EXPECT_EQ(Value(r, "ok"), "true");
  // Java's Objects.toString(null): the text "null", not NULL.
  EXPECT_EQ(Value(r, "note"), "null");
  EXPECT_EQ(Value(r, "name"), "a\"b");
  EXPECT_EQ(Value(r, "tags"), R"({"k":[1,"x",null,2]})");
}

TEST(DebeziumJsonTest, ReadOpIsInsert) {
  auto records = DecodeOk(R"({"after":{"id":2},"op":"r"})");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, ChangeKind::kInsert);
  EXPECT_FALSE(records[0].database.has_value());
  EXPECT_FALSE(records[0].table.has_value());
  EXPECT_TRUE(records[0].primary_keys.empty());
}

TEST(DebeziumJsonTest, UpdateDeletesBeforeMergedOverAfterThenInsertsAfter) {
  auto records = DecodeOk(R"({"before":{"id":1,"name":"old","gone":"x"},
    "after":{"id":1,"name":"new","extra":5},"source":{"db":"d","table":"t"},"op":"u"})");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, ChangeKind::kDelete);
  ASSERT_EQ(records[0].columns.size(), 4u);
  EXPECT_EQ(records[0].columns[2].name, "extra");
  EXPECT_EQ(records[0].columns[3].name, "gone");
  EXPECT_EQ(Value(records[0], "name"), "old");
  EXPECT_EQ(Value(records[0], "extra"), "5");
  EXPECT_EQ(Value(records[0], "gone"), "x");
  EXPECT_EQ(records[1].kind, ChangeKind::kInsert);
  ASSERT_EQ(records[1].columns.size(), 3u);
  EXPECT_EQ(Value(records[1], "name"), "new");
}

TEST(DebeziumJsonTest, UpdateWithNonObjectBeforeMergesNothing) {
  auto records = DecodeOk(R"({"op":"u","after":{"a":1},"before":"x"})");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, ChangeKind::kDelete);
  EXPECT_EQ(Value(records[0], "a"), "1");
  EXPECT_EQ(records[1].kind, ChangeKind::kInsert);
  EXPECT_TRUE(DecodeError(R"({"op":"c","after":"str"})").IsInvalid());
  EXPECT_TRUE(DecodeError(R"({"op":"c","after":[1]})").IsInvalid());
}

TEST(DebeziumJsonTest, DeleteUsesBefore) {
  auto records = DecodeOk(R"({"before":{"id":9},"after":null,"op":"d"})");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].kind, ChangeKind::kDelete);
  EXPECT_EQ(Value(records[0], "id"), "9");
}

TEST(DebeziumJsonTest, TombstonesGiveNothing) {
  auto format = MakeCdcFormat("debezium-json", {});
  std::vector<CdcRecord> out;
  EXPECT_TRUE((*format)->Decode(Msg(std::nullopt, kOrigin), &out).ok());
  EXPECT_TRUE((*format)->Decode(Msg("null", kOrigin), &out).ok());
  EXPECT_TRUE((*format)->Decode(Msg(R"({"schema":null,"payload":null})", kOrigin), &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(DebeziumJsonTest, PostgresSourceUsesDbNotSchema) {
  auto records = DecodeOk(R"({"after":{"id":1},"op":"c",
    "source":{"connector":"postgresql","db":"inventory","schema":"public","table":"customers"}})");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].database, "inventory");
  EXPECT_EQ(records[0].table, "customers");
}

TEST(DebeziumJsonTest, MalformedMessagesNameOriginFormatAndField) {
  Status st = DecodeError("{not json");
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_EQ(st.message().rfind("kafka t p 0 offset 7: Invalid debezium-json format", 0), 0u)
      << st.message();
  st = DecodeError(R"({"after":{"id":1}})");
  EXPECT_EQ(st.message(),
            "kafka t p 0 offset 7: Invalid debezium-json format: missing 'op' field.");
  st = DecodeError(R"({"op":"c","after":null})");
  EXPECT_EQ(st.message(),
            "kafka t p 0 offset 7: Invalid debezium-json format: missing 'after' field.");
  st = DecodeError(R"({"op":"u","after":{"id":1},"before":null})");
  EXPECT_EQ(st.message(),
            "kafka t p 0 offset 7: Invalid debezium-json format: missing 'before' field when "
            "'op' is 'u'.");
  st = DecodeError(R"({"op":"d"})");
  EXPECT_NE(st.message().find("missing 'before' field when 'op' is 'd'"), std::string::npos);
  // Truncate and message events, transaction markers: Java's JSON parser refuses them.
  st = DecodeError(R"({"op":"t","source":{}})");
  EXPECT_NE(st.message().find("unknown record operation 't'"), std::string::npos);
  st = DecodeError(R"({"status":"BEGIN","id":"571:53195829","event_count":null})");
  EXPECT_NE(st.message().find("missing 'op' field"), std::string::npos);
  st = DecodeError(R"({"op":"c","after":{"id":1},"pkNames":"id"})");
  EXPECT_NE(st.message().find("'pkNames'"), std::string::npos);
}

// A schema envelope with one after-struct field per entry of `fields` (JSON objects).
std::string Envelope(const std::string& fields, const std::string& after,
                     const std::string& op = "c", const std::string& before = "null") {
  return R"({"schema":{"type":"struct","fields":[{"type":"struct","optional":true,"field":"before","fields":[)" +
         fields + R"(]},{"type":"struct","optional":true,"field":"after","fields":[)" + fields +
         R"(]},{"type":"string","optional":false,"field":"op"}],"optional":false,"name":"srv.db.t.Envelope"},)" +
         R"("payload":{"before":)" + before + R"(,"after":)" + after +
         R"(,"source":{"db":"db","table":"t"},"op":")" + op + R"("}})";
}

TEST(DebeziumJsonTest, SchemaTypesAndValueTexts) {
  std::string fields = R"(
    {"type":"int8","optional":true,"field":"i8"},
    {"type":"int16","optional":false,"field":"i16"},
    {"type":"int32","optional":false,"field":"i32"},
    {"type":"int64","optional":true,"field":"i64"},
    {"type":"float","optional":true,"field":"f32"},
    {"type":"double","optional":true,"field":"f64"},
    {"type":"float64","optional":true,"field":"f64b"},
    {"type":"boolean","optional":true,"field":"b"},
    {"type":"string","optional":true,"field":"s"},
    {"type":"bytes","optional":true,"field":"bin"},
    {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"d"},
    {"type":"int64","optional":true,"name":"io.debezium.time.Timestamp","field":"ts3"},
    {"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","field":"ts6"},
    {"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","field":"tz"},
    {"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","field":"tm"},
    {"type":"int32","optional":true,"name":"io.debezium.time.Time","field":"tmillis"},
    {"type":"int64","optional":true,"name":"io.debezium.time.NanoTimestamp","field":"tsn"},
    {"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","field":"kd"},
    {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",
     "parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"dec"},
    {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",
     "parameters":{"scale":"0"},"field":"dec_np"},
    {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",
     "parameters":{"scale":"2","connect.decimal.precision":"65"},"field":"dec_wide"},
    {"type":"struct","optional":true,"name":"io.debezium.data.VariableScaleDecimal","field":"vsd",
     "fields":[{"type":"int32","field":"scale"},{"type":"bytes","field":"value"}]},
    {"type":"bytes","optional":true,"name":"io.debezium.data.Bits",
     "parameters":{"length":"12"},"field":"bits"},
    {"type":"string","optional":true,"name":"io.debezium.data.Json","field":"js"},
    {"type":"string","optional":true,"name":"io.debezium.data.Uuid","field":"uuid"},
    {"type":"string","optional":true,"name":"io.debezium.data.Enum",
     "parameters":{"allowed":"a,b"},"field":"en"})";
  std::string after = R"({"i8":-5,"i16":300,"i32":70000,"i64":null,"f32":1.25,"f64":2.50,"f64b":2.5,
    "b":false,"s":"héllo","bin":"aGVsbG8=","d":19000,"ts3":1700000000123,
    "ts6":1700000000123456,"tz":"2023-11-14T22:13:20.5Z","tm":3723500000,"tmillis":3723000,
    "tsn":1700000000123456789,"kd":19000,"dec":12.30,"dec_np":7,"dec_wide":1.5,
    "vsd":{"scale":2,"value":"BNI="},"bits":"AQI=","js":"{\"a\":1}",
    "uuid":"2f1e3a1c-0000-4000-8000-000000000001","en":"b"})";
  auto records = DecodeOk(Envelope(fields, after));
  ASSERT_EQ(records.size(), 1u);
  const CdcRecord& r = records[0];
  EXPECT_EQ(r.database, "db");
  EXPECT_EQ(r.table, "t");
  ASSERT_EQ(r.columns.size(), 26u);

  EXPECT_EQ(Type(r, "i8"), "TINYINT");
  EXPECT_EQ(Type(r, "i16"), "SMALLINT");  // optional false: still nullable, as Java
  EXPECT_EQ(Type(r, "i32"), "INT");
  EXPECT_EQ(Type(r, "i64"), "BIGINT");
  EXPECT_EQ(Value(r, "i64"), "<NULL>");  // with a schema, null stays NULL
  EXPECT_EQ(Type(r, "f32"), "FLOAT");
  EXPECT_EQ(Type(r, "f64"), "DOUBLE");
  EXPECT_EQ(Value(r, "f64"), "2.5");
  EXPECT_EQ(Type(r, "f64b"), "FLOAT");  // Java maps float64 to FLOAT
  EXPECT_EQ(Type(r, "b"), "BOOLEAN");
  EXPECT_EQ(Value(r, "b"), "false");
  EXPECT_EQ(Value(r, "s"), "héllo");
  EXPECT_EQ(Type(r, "bin"), "BYTES");
  EXPECT_EQ(Value(r, "bin"), "hello");  // base64 decoded, read as UTF-8 text
  EXPECT_EQ(Type(r, "d"), "DATE");
  EXPECT_EQ(Value(r, "d"), "2022-01-08");
  EXPECT_EQ(Type(r, "ts3"), "TIMESTAMP(3)");
  EXPECT_EQ(Value(r, "ts3"), "2023-11-14 22:13:20.123");
  EXPECT_EQ(Type(r, "ts6"), "TIMESTAMP(6)");
  EXPECT_EQ(Value(r, "ts6"), "2023-11-14 22:13:20.123456");
  EXPECT_EQ(Type(r, "tz"), "TIMESTAMP(6)");
  EXPECT_EQ(Value(r, "tz"), "2023-11-14 22:13:20.500000");
  EXPECT_EQ(Type(r, "tm"), "TIME(0)");
  EXPECT_EQ(Value(r, "tm"), "01:02:03.500");
  // Logical types Java does not look at keep their Connect type and raw value.
  EXPECT_EQ(Type(r, "tmillis"), "INT");
  EXPECT_EQ(Value(r, "tmillis"), "3723000");
  EXPECT_EQ(Type(r, "tsn"), "BIGINT");
  EXPECT_EQ(Value(r, "tsn"), "1700000000123456789");
  EXPECT_EQ(Type(r, "kd"), "INT");
  EXPECT_EQ(Value(r, "kd"), "19000");
  EXPECT_EQ(Type(r, "dec"), "DECIMAL(10, 2)");
  EXPECT_EQ(Value(r, "dec"), "12.3");
  EXPECT_EQ(Type(r, "dec_np"), "DECIMAL(20, 0)");
  EXPECT_EQ(Type(r, "dec_wide"), "STRING");
  EXPECT_EQ(Type(r, "vsd"), "STRING");
  EXPECT_EQ(Value(r, "vsd"), "{scale=2, value=BNI=}");  // Java's Map.toString
  EXPECT_EQ(Type(r, "bits"), "BINARY(2)");
  EXPECT_EQ(Value(r, "bits"), "AgE=");  // little-endian 01 02 reversed
  EXPECT_EQ(Type(r, "js"), "STRING");
  EXPECT_EQ(Value(r, "js"), R"({"a":1})");
  EXPECT_EQ(Type(r, "uuid"), "STRING");
  EXPECT_EQ(Type(r, "en"), "STRING");
  EXPECT_EQ(Value(r, "en"), "b");
}

TEST(DebeziumJsonTest, SchemaUpdateAndToStringBits) {
  std::string fields = R"({"type":"int32","field":"id"},
    {"type":"bytes","name":"io.debezium.data.Bits","parameters":{"length":"16"},"field":"bits"})";
  TypeMapping to_string;
  to_string.Add(TypeMappingMode::kToString);
  auto records = DecodeOk(
      Envelope(fields, R"({"id":1,"bits":"AQI="})", "u", R"({"id":1,"bits":"AAA="})"), to_string);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].kind, ChangeKind::kDelete);
  EXPECT_EQ(Value(records[0], "bits"), "0000000000000000");
  EXPECT_EQ(records[1].kind, ChangeKind::kInsert);
  EXPECT_EQ(Value(records[1], "bits"), "0000001000000001");
  // to-string does not change the Debezium types (Java's toDataType ignores the mapping).
  EXPECT_EQ(Type(records[1], "id"), "INT");
  EXPECT_EQ(Type(records[1], "bits"), "BINARY(2)");
}

TEST(DebeziumJsonTest, SchemaErrors) {
  std::string dec = R"({"type":"bytes","name":"org.apache.kafka.connect.data.Decimal",
    "parameters":{"scale":"2","connect.decimal.precision":"5"},"field":"dec"})";
  // A base64 decimal (the JSON converter's default) is refused as Java refuses it.
  Status st = DecodeError(Envelope(dec, R"({"dec":"BNI="})"));
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("field 'dec'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("decimal.format=numeric"), std::string::npos);
  st = DecodeError(Envelope(R"({"type":"int32","field":"a"})", R"({"b":1})"));
  EXPECT_NE(st.message().find("field 'b' is not in the message's schema"), std::string::npos);
  st = DecodeError(R"({"schema":{"type":"struct"},"payload":{"op":"c","after":{}}})");
  EXPECT_NE(st.message().find("no 'fields' array"), std::string::npos);
}

TEST(DebeziumTypesTest, ValueTextEdges) {
  TypeMapping none;
  DebeziumField micro{"int64", "io.debezium.time.MicroTimestamp", {}};
  EXPECT_EQ(*DebeziumValueText(std::string("-1"), micro, none).value(),
            "1969-12-31 23:59:59.999999");
  DebeziumField ts{"int64", "io.debezium.time.Timestamp", {}};
  EXPECT_EQ(*DebeziumValueText(std::string("-1"), ts, none).value(), "1969-12-31 23:59:59.999");
  DebeziumField date{"int32", "io.debezium.time.Date", {}};
  EXPECT_EQ(*DebeziumValueText(std::string("-719529"), date, none).value(), "-0001-12-31");
  EXPECT_EQ(*DebeziumValueText(std::string("2932897"), date, none).value(), "+10000-01-01");
  DebeziumField zoned{"string", "io.debezium.time.ZonedTimestamp", {}};
  EXPECT_EQ(*DebeziumValueText(std::string("2023-11-15T00:13:20+02:00"), zoned, none).value(),
            "2023-11-14 22:13:20.000000");
  EXPECT_FALSE(DebeziumValueText(std::string("2023-11-15 00:13:20"), zoned, none).ok());
  // As Java 17's Instant.parse: 24:00 is the next midnight, lower-case t and z are read, no leap
  // second, no minutes-only time, no offset without minutes.
  EXPECT_EQ(*DebeziumValueText(std::string("2023-11-14T24:00:00Z"), zoned, none).value(),
            "2023-11-15 00:00:00.000000");
  EXPECT_EQ(*DebeziumValueText(std::string("2023-11-14t22:13:20z"), zoned, none).value(),
            "2023-11-14 22:13:20.000000");
  EXPECT_EQ(*DebeziumValueText(std::string("2023-11-14T22:13:20+02:00:30"), zoned, none).value(),
            "2023-11-14 20:12:50.000000");
  EXPECT_FALSE(DebeziumValueText(std::string("2023-11-14T22:13:60Z"), zoned, none).ok());
  EXPECT_FALSE(DebeziumValueText(std::string("2023-11-14T22:13Z"), zoned, none).ok());
  EXPECT_FALSE(DebeziumValueText(std::string("2023-11-14T22:13:20+02"), zoned, none).ok());
  EXPECT_FALSE(DebeziumValueText(std::string("2023-02-29T00:00:00Z"), zoned, none).ok());
  DebeziumField time{"int64", "io.debezium.time.MicroTime", {}};
  EXPECT_EQ(*DebeziumValueText(std::string("3723000000"), time, none).value(), "01:02:03");
  EXPECT_EQ(*DebeziumValueText(std::string("3720000000"), time, none).value(), "01:02");
  EXPECT_EQ(*DebeziumValueText(std::string("1000001"), time, none).value(), "00:00:01.000001");
  EXPECT_EQ(*DebeziumValueText(std::string("-1"), time, none).value(), "23:59:59.999999");
  EXPECT_EQ(*DebeziumValueText(std::string("90000000000"), time, none).value(), "01:00");
  EXPECT_FALSE(DebeziumValueText(std::nullopt, time, none).value().has_value());
  DebeziumField point{"struct", "io.debezium.data.geometry.Point", {}};
  EXPECT_FALSE(DebeziumValueText(std::string("{}"), point, none).ok());
}

// Geometry structs: the base64 `wkb` through Java's GeoJSON conversion (the conversion itself is
// checked against Java in GeoJsonTest); `srid` is not looked at, as in Java.
TEST(DebeziumJsonTest, GeometryValuesBecomeJavasGeoJsonText) {
  const std::string geo_fields =
      R"({"type":"double","field":"x"},{"type":"double","field":"y"},)"
      R"({"type":"bytes","optional":true,"field":"wkb"},{"type":"int32","optional":true,"field":"srid"})";
  const std::string fields =
      R"({"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"struct","name":"io.debezium.data.geometry.Point","optional":true,"field":"pt","fields":[)" +
      geo_fields +
      R"(]},{"type":"struct","name":"io.debezium.data.geometry.Geometry","optional":true,"field":"g","fields":[)" +
      geo_fields +
      R"(]},{"type":"struct","name":"io.debezium.data.geometry.Geometry","optional":true,"field":"n","fields":[)" +
      geo_fields + "]}";
  // POINT (1 2) little-endian; LINESTRING (0 0, 1.5 -2) big-endian.
  const std::string after =
      R"({"id":1,"pt":{"x":1.0,"y":2.0,"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAABA","srid":null},)"
      R"("g":{"wkb":"AAAAAAIAAAACAAAAAAAAAAAAAAAAAAAAAD/4AAAAAAAAwAAAAAAAAAA=","srid":4326},"n":null})";
  auto records = DecodeOk(Envelope(fields, after));
  ASSERT_EQ(records.size(), 1u);
  const CdcRecord& r = records[0];
  EXPECT_EQ(Type(r, "pt"), "STRING");
  EXPECT_EQ(Value(r, "pt"), R"({"coordinates":[1,2],"type":"Point","srid":0})");
  EXPECT_EQ(Type(r, "g"), "STRING");
  EXPECT_EQ(Value(r, "g"), R"({"coordinates":[[0,0],[1.5,-2]],"type":"LineString","srid":0})");
  EXPECT_EQ(Value(r, "n"), "<NULL>");

  Status st = DecodeError(Envelope(fields, R"({"id":1,"pt":{"x":1.0,"y":2.0},"g":null,"n":null})"));
  EXPECT_NE(st.message().find("field 'pt': a geometry value without base64 'wkb'"),
            std::string::npos)
      << st.message();
  // Truncated WKB: Java's reader fails, so does the record, naming the field.
  st = DecodeError(
      Envelope(fields, R"({"id":1,"pt":null,"g":{"wkb":"AQEAAAAAAAAAAADwPw=="},"n":null})"));
  EXPECT_NE(st.message().find("field 'g': the geometry value is not one Java reads"),
            std::string::npos)
      << st.message();
}

TEST(DebeziumTypesTest, Base64AndUtf8AsJava) {
  std::string out;
  EXPECT_TRUE(DecodeBase64("QQ", &out));  // padding is optional
  EXPECT_EQ(out, "A");
  EXPECT_FALSE(DecodeBase64("Q", &out));
  EXPECT_FALSE(DecodeBase64("QQ=", &out));
  EXPECT_FALSE(DecodeBase64("QQ==QQ==", &out));
  EXPECT_FALSE(DecodeBase64("Q Q=", &out));
  EXPECT_EQ(EncodeBase64("\x02\x01"), "AgE=");
  // a, a truncated 3-byte sequence, b, an invalid byte, a truncated 4-byte sequence at the end.
  EXPECT_EQ(DecodeUtf8Lossy(std::string("a\xE2\x82"
                                        "b\xFF\xF0\x9F\x98")),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD");
  // An encoded surrogate is one replacement, complete or cut at the end; E0 80 is three.
  EXPECT_EQ(DecodeUtf8Lossy("\xED\xA0\x80x"), "\xEF\xBF\xBDx");
  EXPECT_EQ(DecodeUtf8Lossy("x\xED\xA0"), "x\xEF\xBF\xBD");
  EXPECT_EQ(DecodeUtf8Lossy("\xE0\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(DecodeUtf8Lossy("\xE2\x82\xAC\xF0\x9F\x98\x80"), "\xE2\x82\xAC\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace fjord::cdc::testing
