// maxwell-json, ogg-json and json: expected records reasoned from Java Paimon 1.4.2's
// MaxwellRecordParser, OggRecordParser, JsonRecordParser and AbstractJsonRecordParser, and
// confirmed by running those parsers (Paimon 1.3.1, the same code) on these messages.
#include <gtest/gtest.h>

#include "fjord/cdc/cdc_test_util.h"

namespace fjord::cdc::testing {
namespace {

TEST(MaxwellJsonTest, InsertUpdateDelete) {
  auto records = DecodeOk("maxwell-json", R"({"database":"shop","table":"items","type":"insert",
    "ts":1,"xid":2,"data":{"id":1,"w":0.750,"note":null},"primary_key_columns":["id"]})");
  ASSERT_EQ(records.size(), 1u);
  ExpectChange(records[0], ChangeKind::kInsert, "shop", "items", {"id"});
  EXPECT_EQ(Type(records[0], "w"), "STRING");
  EXPECT_EQ(Value(records[0], "w"), "0.75");
  EXPECT_EQ(Value(records[0], "note"), "null");  // Java's Objects.toString(null)

  records = DecodeOk("maxwell-json", R"({"database":"shop","table":"items","type":"update",
    "data":{"id":1,"w":2,"c":"x"},"old":{"w":1}})");
  ASSERT_EQ(Kinds(records), (std::vector<ChangeKind>{ChangeKind::kDelete, ChangeKind::kInsert}));
  EXPECT_EQ(Value(records[0], "w"), "1");
  EXPECT_EQ(Value(records[0], "c"), "x");
  EXPECT_EQ(Value(records[1], "w"), "2");

  records = DecodeOk("maxwell-json", R"({"type":"delete","data":{"id":1}})");
  ASSERT_EQ(Kinds(records), (std::vector<ChangeKind>{ChangeKind::kDelete}));
  EXPECT_TRUE(records[0].primary_keys.empty());
}

TEST(MaxwellJsonTest, Errors) {
  EXPECT_EQ(DecodeError("maxwell-json", R"({"data":{"id":1}})").message(),
            "file in.jsonl line 3: Invalid maxwell-json format: missing 'type' field.");
  EXPECT_EQ(DecodeError("maxwell-json", R"({"type":"insert"})").message(),
            "file in.jsonl line 3: Invalid maxwell-json format: missing 'data' field.");
  EXPECT_EQ(DecodeError("maxwell-json", R"({"type":"update","data":{"id":1}})").message(),
            "file in.jsonl line 3: Invalid maxwell-json format: missing 'old' field when 'type' "
            "is 'update'.");
  EXPECT_NE(DecodeError("maxwell-json", R"({"type":"table-create","data":{}})")
                .message()
                .find("unknown record operation 'table-create'"),
            std::string::npos);
}

TEST(OggJsonTest, InsertUpdateDeleteAndTableName) {
  auto records = DecodeOk("ogg-json", R"({"table":"INV.ORDERS","op_type":"I",
    "op_ts":"2024-01-01 00:00:00.000000","after":{"ID":1,"AMT":10.5},"primary_keys":["ID"]})");
  ASSERT_EQ(records.size(), 1u);
  ExpectChange(records[0], ChangeKind::kInsert, "INV", "ORDERS", {"ID"});
  EXPECT_EQ(Value(records[0], "AMT"), "10.5");

  // OGG's before image is taken as it is (no merge with the after image).
  records = DecodeOk("ogg-json", R"({"table":"A.B.C","op_type":"U","before":{"ID":1},
    "after":{"ID":1,"AMT":2}})");
  ASSERT_EQ(Kinds(records), (std::vector<ChangeKind>{ChangeKind::kDelete, ChangeKind::kInsert}));
  EXPECT_EQ(records[0].database, "A");
  EXPECT_EQ(records[0].table, "B.C");  // split at the first dot
  EXPECT_EQ(records[0].columns.size(), 1u);
  EXPECT_EQ(Value(records[1], "AMT"), "2");

  records = DecodeOk("ogg-json", R"({"op_type":"D","before":{"ID":3}})");
  ASSERT_EQ(Kinds(records), (std::vector<ChangeKind>{ChangeKind::kDelete}));
  EXPECT_FALSE(records[0].table.has_value());
}

TEST(OggJsonTest, Errors) {
  EXPECT_EQ(DecodeError("ogg-json", R"({"op_type":"U","after":{"ID":1}})").message(),
            "file in.jsonl line 3: Invalid ogg-json format: missing 'before' field when "
            "'op_type' is 'U'.");
  EXPECT_EQ(DecodeError("ogg-json", R"({"op_type":"I"})").message(),
            "file in.jsonl line 3: Invalid ogg-json format: missing 'after' field.");
  EXPECT_NE(DecodeError("ogg-json", R"({"op_type":"T","table":"A.B"})")
                .message()
                .find("unknown record operation 'T'"),
            std::string::npos);
  EXPECT_NE(DecodeError("ogg-json", R"({"op_type":"I","table":"NODOT","after":{}})")
                .message()
                .find("not SCHEMA.TABLE"),
            std::string::npos);
}

TEST(JsonFormatTest, EachMessageIsAnInsertedRow) {
  auto records = DecodeOk("json", R"({"id":1,"name":"x","tags":["a",1],"m":{"k":null},
    "n":null,"table":"t1"})");
  ASSERT_EQ(records.size(), 1u);
  const CdcRecord& r = records[0];
  EXPECT_EQ(r.kind, ChangeKind::kInsert);
  EXPECT_TRUE(r.primary_keys.empty());
  EXPECT_FALSE(r.database.has_value());
  EXPECT_EQ(r.table, "t1");  // Java's parsers read `table` from the message
  ASSERT_EQ(r.columns.size(), 6u);
  for (const CdcColumn& c : r.columns) EXPECT_EQ(c.type->ToString(), "STRING");
  EXPECT_EQ(Value(r, "id"), "1");
  EXPECT_EQ(Value(r, "tags"), R"(["a",1])");
  EXPECT_EQ(Value(r, "m"), R"({"k":null})");
  EXPECT_EQ(Value(r, "n"), "null");
  EXPECT_TRUE(DecodeOk("json", "null").empty());
  EXPECT_EQ(DecodeError("json", "[1,2]").message(),
            "file in.jsonl line 3: Invalid json format: the message is not a JSON object.");
  EXPECT_TRUE(DecodeError("json", "{\"a\":").IsInvalid());
}

TEST(CdcFormatTest, AllFormatsAreKnown) {
  for (const std::string& name : CdcFormatNames()) {
    auto format = MakeCdcFormat(name, {});
    ASSERT_TRUE(format.ok()) << name;
    EXPECT_EQ((*format)->name(), name);
  }
  EXPECT_FALSE(MakeCdcFormat("avro", {}).ok());
}

}  // namespace
}  // namespace fjord::cdc::testing
