#include "fjord/format/avro/schema.h"

#include <string>

#include "fjord/testing/test_util.h"

namespace fjord::avro {
namespace {

std::shared_ptr<const Schema> MustParse(std::string_view json) {
  auto r = Schema::Parse(json);
  EXPECT_TRUE(r.ok()) << json << ": " << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

TEST(AvroSchemaTest, Primitives) {
  for (std::string_view name :
       {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}) {
    std::string quoted = "\"" + std::string(name) + "\"";
    auto s = MustParse(quoted);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(TypeName(s->root().type()), name);
    EXPECT_TRUE(s->root().is_primitive());
    EXPECT_EQ(s->ToJson(), quoted);
    // The object form without attributes prints as the bare name, as Java does.
    auto o = MustParse(R"({"type":)" + quoted + "}");
    EXPECT_EQ(o->ToJson(), quoted);
  }
}

TEST(AvroSchemaTest, LogicalTypesKeptAsAttributes) {
  auto s = MustParse(
      R"({"type":"record","name":"r","fields":[)"
      R"({"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},)"
      R"({"name":"d","type":{"type":"int","logicalType":"date"}},)"
      R"({"name":"t","type":{"type":"int","logicalType":"time-millis"}},)"
      R"({"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},)"
      R"({"name":"u","type":{"type":"string","logicalType":"uuid","custom":[1,{"x":"y"}]}}]})");
  ASSERT_NE(s, nullptr);
  const Node& r = s->root();
  ASSERT_EQ(r.fields().size(), 5u);
  EXPECT_EQ(r.fields()[0].type->logical_type(), "timestamp-millis");
  EXPECT_EQ(r.fields()[0].type->type(), Type::kLong);
  EXPECT_EQ(r.fields()[1].type->logical_type(), "date");
  EXPECT_EQ(r.fields()[2].type->logical_type(), "time-millis");
  const Node& dec = *r.fields()[3].type;
  EXPECT_EQ(dec.logical_type(), "decimal");
  EXPECT_EQ(dec.precision(), 10);
  EXPECT_EQ(dec.scale(), 2);
  EXPECT_EQ(r.fields()[4].type->props()["custom"][1]["x"], "y");
  EXPECT_EQ(
      s->ToJson(),
      R"({"type":"record","name":"r","fields":[)"
      R"({"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},)"
      R"({"name":"d","type":{"type":"int","logicalType":"date"}},)"
      R"({"name":"t","type":{"type":"int","logicalType":"time-millis"}},)"
      R"({"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},)"
      R"({"name":"u","type":{"type":"string","logicalType":"uuid","custom":[1,{"x":"y"}]}}]})");
}

TEST(AvroSchemaTest, ComplexTypesAndFieldLookup) {
  auto s = MustParse(R"({
    "type": "record", "name": "Entry", "namespace": "org.example", "doc": "an entry",
    "fields": [
      {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["ADD", "DELETE"],
                                "default": "ADD"}},
      {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 16}},
      {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
      {"name": "props", "type": {"type": "map", "values": ["null", "long"]}, "default": {}},
      {"name": "other_hash", "type": "Hash", "order": "descending"},
      {"name": "maybe", "type": ["null", "org.example.Kind"], "default": null, "doc": "d",
       "aliases": ["perhaps"], "x-prop": true}
    ]})");
  ASSERT_NE(s, nullptr);
  const Node& r = s->root();
  EXPECT_EQ(r.type(), Type::kRecord);
  EXPECT_EQ(r.name(), "Entry");
  EXPECT_EQ(r.name_space(), "org.example");
  EXPECT_EQ(r.full_name(), "org.example.Entry");
  EXPECT_EQ(r.doc(), "an entry");
  EXPECT_EQ(r.FieldIndex("kind"), 0u);
  EXPECT_EQ(r.FieldIndex("maybe"), 5u);
  EXPECT_EQ(r.FieldIndex("nope"), std::nullopt);

  const Node& kind = *r.fields()[0].type;
  EXPECT_EQ(kind.full_name(), "org.example.Kind");  // inherits the record's namespace
  EXPECT_EQ(kind.symbols(), (std::vector<std::string>{"ADD", "DELETE"}));
  EXPECT_EQ(kind.SymbolIndex("DELETE"), 1u);
  EXPECT_EQ(kind.enum_default(), "ADD");
  const Node& hash = *r.fields()[1].type;
  EXPECT_EQ(hash.fixed_size(), 16);
  EXPECT_EQ(hash.min_encoded_size(), 16);
  EXPECT_EQ(r.fields()[2].type->items().type(), Type::kString);
  const Node& props = *r.fields()[3].type;
  EXPECT_EQ(props.values().branches().size(), 2u);
  // A reference is the same node.
  EXPECT_EQ(r.fields()[4].type, &hash);
  EXPECT_EQ(r.fields()[5].type->branches()[1], &kind);
  EXPECT_EQ(s->FindNamed("org.example.Hash"), &hash);
  EXPECT_TRUE(r.fields()[5].default_value->is_null());
  EXPECT_EQ(r.fields()[5].props["x-prop"], true);

  // Printed as Java does: named types once, then by name; namespace only where it changes.
  EXPECT_EQ(
      s->ToJson(),
      R"({"type":"record","name":"Entry","namespace":"org.example","doc":"an entry","fields":[)"
      R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["ADD","DELETE"],)"
      R"("default":"ADD"}},)"
      R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":16}},)"
      R"({"name":"tags","type":{"type":"array","items":"string"},"default":[]},)"
      R"({"name":"props","type":{"type":"map","values":["null","long"]},"default":{}},)"
      R"({"name":"other_hash","type":"Hash","order":"descending"},)"
      R"({"name":"maybe","type":["null","Kind"],"doc":"d","default":null,)"
      R"("aliases":["perhaps"],"x-prop":true}]})");
  // And the printed form parses to the same thing.
  auto again = MustParse(s->ToJson());
  EXPECT_EQ(again->ToJson(), s->ToJson());
}

TEST(AvroSchemaTest, Namespaces) {
  auto s = MustParse(R"({"type":"record","name":"a.b.Outer","namespace":"ignored","fields":[
      {"name":"in","type":{"type":"record","name":"Inner","fields":[
          {"name":"x","type":{"type":"fixed","name":"c.F","size":1}},
          {"name":"y","type":{"type":"enum","name":"E","namespace":"","symbols":["A"]}}]}},
      {"name":"f","type":"c.F"},
      {"name":"e","type":"E"},
      {"name":"i","type":"Inner"}]})");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->root().full_name(), "a.b.Outer");
  EXPECT_NE(s->FindNamed("a.b.Inner"), nullptr);
  EXPECT_NE(s->FindNamed("c.F"), nullptr);
  EXPECT_NE(s->FindNamed("E"), nullptr);  // explicitly in the null namespace
  EXPECT_EQ(s->ToJson(),
            R"({"type":"record","name":"Outer","namespace":"a.b","fields":[)"
            R"({"name":"in","type":{"type":"record","name":"Inner","fields":[)"
            R"({"name":"x","type":{"type":"fixed","name":"F","namespace":"c","size":1}},)"
            R"({"name":"y","type":{"type":"enum","name":"E","namespace":"","symbols":["A"]}}]}},)"
            R"({"name":"f","type":"c.F"},{"name":"e","type":"E"},{"name":"i","type":"Inner"}]})");
}

TEST(AvroSchemaTest, RecursiveRecord) {
  auto s = MustParse(R"({"type":"record","name":"List","fields":[
      {"name":"value","type":"long"},{"name":"next","type":["null","List"]}]})");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->root().fields()[1].type->branches()[1], &s->root());
  EXPECT_EQ(s->root().min_encoded_size(), 2);
  EXPECT_EQ(s->ToJson(),
            R"({"type":"record","name":"List","fields":[{"name":"value","type":"long"},)"
            R"({"name":"next","type":["null","List"]}]})");
}

TEST(AvroSchemaTest, ErrorTypesAreRecords) {
  const char* json = R"({"type":"error","name":"Oops","fields":[{"name":"m","type":"string"}]})";
  auto s = MustParse(json);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->root().type(), Type::kRecord);
  EXPECT_TRUE(s->root().is_error());
  EXPECT_EQ(s->ToJson(), json);
}

TEST(AvroSchemaTest, TopLevelUnionAsPaimon09Writes) {
  auto s = MustParse(
      R"(["null",{"type":"record","name":"record","fields":[{"name":"a","type":"int"}]}])");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->root().type(), Type::kUnion);
  EXPECT_EQ(s->root().branches()[1]->FieldIndex("a"), 0u);
  EXPECT_EQ(s->root().min_encoded_size(), 1);
}

TEST(AvroSchemaTest, RejectsInvalidSchemas) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"(not json)", "not valid JSON"},
      {R"("integer")", "unknown type name 'integer'"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"Missing"}]})",
       "unknown type name 'Missing'"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"record","name":"r","fields":[]}}]})",
       "type 'r' is defined twice"},
      {R"(["int",{"type":"fixed","name":"F","size":1},{"type":"fixed","name":"F","size":2}])",
       "defined twice"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})",
       "two fields called 'a'"},
      {R"(["int","int"])", "union contains 'int' twice"},
      {R"(["int",["null","long"]])", "may not immediately contain another union"},
      {R"({"type":"enum","name":"E","symbols":["A","A"]})", "symbol 'A' twice"},
      {R"({"type":"enum","name":"E","symbols":["A"],"default":"B"})", "not one of its symbols"},
      {R"({"type":"fixed","name":"F","size":-1})", "needs a 'size'"},
      {R"({"type":"fixed","name":"F"})", "needs a 'size'"},
      {R"({"type":"array"})", "needs 'items'"},
      {R"({"type":"map","items":"int"})", "needs 'values'"},
      {R"({"type":"record","name":"r"})", "needs a 'fields' array"},
      {R"({"type":"record","fields":[]})", "needs a string 'name'"},
      {R"({"type":"record","name":"1bad","fields":[]})", "invalid type name"},
      {R"({"type":"record","name":"r","fields":[{"name":"a-b","type":"int"}]})",
       "invalid field name"},
      {R"({"type":"record","name":"int","fields":[]})", "may not be called 'int'"},
      {R"({"name":"x"})", "without a 'type'"},
      {R"(42)", "expected a type name"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","default":"x"}]})",
       "default value \"x\" is not a int"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":["null","int"],"default":1.5}]})",
       "is not a union"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","order":"up"}]})",
       "invalid 'order'"},
  };
  for (const Case& c : cases) {
    auto r = Schema::Parse(c.json);
    EXPECT_THAT(r, IsError(StatusCode::kInvalid, c.message)) << c.json;
  }
}

TEST(AvroSchemaTest, ErrorsNameTheFieldPath) {
  auto r = Schema::Parse(R"({"type":"record","name":"r","fields":[{"name":"outer","type":
      {"type":"record","name":"s","fields":[{"name":"inner","type":"nope"}]}}]})");
  EXPECT_THAT(r, IsError(StatusCode::kInvalid, "at field 'outer.inner'"));
}

TEST(AvroSchemaTest, LenientOptionsAsForFiles) {
  SchemaParseOptions lenient;
  lenient.validate_names = false;
  lenient.validate_defaults = false;
  const char* json =
      R"({"type":"record","name":"my-record","fields":[{"name":"a b","type":"int","default":"x"}]})";
  EXPECT_FALSE(Schema::Parse(json).ok());
  auto r = Schema::Parse(json, lenient);
  ASSERT_OK(r.status());
  EXPECT_EQ((*r)->root().FieldIndex("a b"), 0u);
}

TEST(AvroSchemaTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += R"({"type":"array","items":)";
  deep += "\"int\"";
  for (int i = 0; i < 100000; ++i) deep += "}";
  EXPECT_THAT(Schema::Parse(deep), IsError(StatusCode::kInvalid, "nested deeper"));
  std::string brackets(100000, '[');
  EXPECT_FALSE(Schema::Parse(brackets).ok());
  // Deep JSON in an attribute, where no validation looks.
  std::string deep_prop =
      R"({"type":"int","x":)" + std::string(5000, '[') + std::string(5000, ']') + "}";
  SchemaParseOptions lenient;
  lenient.validate_names = false;
  lenient.validate_defaults = false;
  EXPECT_THAT(Schema::Parse(deep_prop, lenient),
              IsError(StatusCode::kInvalid, "JSON nested deeper than 1024 levels"));
}

TEST(AvroSchemaTest, NamesThatLookLikePrimitivesAreQualified) {
  auto s = MustParse(R"({"type":"record","name":"r","namespace":"a","fields":[
      {"name":"x","type":{"type":"fixed","name":"long","size":2}},
      {"name":"y","type":"a.long"},
      {"name":"z","type":"long"}]})");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->root().fields()[1].type, s->root().fields()[0].type);
  EXPECT_EQ(s->root().fields()[2].type->type(), Type::kLong);
  std::string printed = s->ToJson();
  EXPECT_THAT(printed, ::testing::HasSubstr(R"({"name":"y","type":"a.long"})"));
  auto again = MustParse(printed);
  EXPECT_EQ(again->root().fields()[1].type->type(), Type::kFixed);
}

TEST(AvroSchemaTest, DefaultsOfEveryType) {
  auto s = MustParse(R"({"type":"record","name":"r","fields":[
      {"name":"a","type":"boolean","default":true},
      {"name":"b","type":"long","default":-5},
      {"name":"c","type":"double","default":"NaN"},
      {"name":"d","type":"bytes","default":"\u00ff"},
      {"name":"e","type":{"type":"record","name":"s","fields":[{"name":"x","type":"int","default":1}]},
       "default":{}},
      {"name":"f","type":["string","null"],"default":"s"}]})");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->root().fields()[1].default_value, Json(-5));
}

}  // namespace
}  // namespace fjord::avro
