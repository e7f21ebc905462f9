// Nested column changes as Java Paimon 1.4.2's SchemaManager.generateTableSchema applies them.
// Expected ids follow Java's numbering: an added field takes highestFieldId + 1, then the fields
// inside its type are numbered by ReassignFieldId, where a ROW field takes its id after the
// fields inside its own type (RowType.Builder.field increments once the type is rebuilt).
#include "fjord/table/catalog/nested_columns.h"

#include "fjord/table/catalog/catalog.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TableSchema Schema(const std::string& columns, std::vector<std::string> pk = {},
                   std::vector<std::pair<std::string, std::string>> options = {}) {
  TableSpec spec;
  spec.fields = ParseColumnList(columns).value();
  spec.primary_keys = std::move(pk);
  spec.options = std::move(options);
  if (!spec.primary_keys.empty()) spec.options.emplace_back("bucket", "1");
  return NewTableSchema(spec, {}, 0).value();
}

Result<TableSchema> Alter(const TableSchema& s, std::vector<SchemaChange> changes) {
  return ApplySchemaChanges(s, changes, 1);
}

DataTypePtr T(const std::string& text) { return ParseDataType(text).value(); }

const DataField& Field(const DataType& row, const std::string& name) {
  for (const DataField& f : row.fields()) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no field " << name << " in " << row.ToString();
  static DataField none;
  return none;
}

TEST(NestedColumnsTest, CreateNumbersNestedRowsAsJava) {
  // Schema.Builder.column: r takes 1, then ReassignFieldId numbers a 2, c 3 (inside b) and b 4.
  TableSchema s = Schema("id INT, r ROW<a INT, b ROW<c INT>>, v INT");
  const DataType& r = *s.fields[1].type;
  EXPECT_EQ(s.fields[1].id, 1);
  EXPECT_EQ(Field(r, "a").id, 2);
  EXPECT_EQ(Field(*Field(r, "b").type, "c").id, 3);
  EXPECT_EQ(Field(r, "b").id, 4);
  EXPECT_EQ(s.fields[2].id, 5);
  EXPECT_EQ(s.highest_field_id, 5);
}

TEST(NestedColumnsTest, AddNestedFieldsTakeNextIdsAndPositions) {
  TableSchema s = Schema("id INT, v ROW<a INT, b STRING>");  // id 0, v 1, a 2, b 3
  ASSERT_EQ(s.highest_field_id, 3);
  ASSERT_OK_AND_ASSIGN(
      TableSchema n,
      Alter(s,
            {SchemaChange::AddNestedColumn({"v", "c"}, T("BIGINT"), "third"),
             SchemaChange::AddNestedColumn({"v", "z"}, T("INT")).First(),
             SchemaChange::AddNestedColumn({"v", "m"}, T("ROW<x INT, y ROW<w INT>>")).After("a")}));
  const DataType& v = *n.FindField("v")->type;
  ASSERT_EQ(v.fields().size(), 5u);
  EXPECT_EQ(v.fields()[0].name, "z");
  EXPECT_EQ(v.fields()[1].name, "a");
  EXPECT_EQ(v.fields()[2].name, "m");
  EXPECT_EQ(v.fields()[3].name, "b");
  EXPECT_EQ(v.fields()[4].name, "c");
  EXPECT_EQ(Field(v, "c").id, 4);
  EXPECT_EQ(Field(v, "c").description, "third");
  EXPECT_EQ(Field(v, "z").id, 5);
  // m 6, then inside it x 7, w 8, y 9.
  const DataField& m = Field(v, "m");
  EXPECT_EQ(m.id, 6);
  EXPECT_EQ(Field(*m.type, "x").id, 7);
  EXPECT_EQ(Field(*Field(*m.type, "y").type, "w").id, 8);
  EXPECT_EQ(Field(*m.type, "y").id, 9);
  EXPECT_EQ(n.highest_field_id, 9);
  // Old fields keep their ids.
  EXPECT_EQ(Field(v, "a").id, 2);
  EXPECT_EQ(Field(v, "b").id, 3);
}

TEST(NestedColumnsTest, TopLevelAddNumbersItsTypeAsJava) {
  TableSchema s = Schema("id INT");
  ASSERT_OK_AND_ASSIGN(TableSchema n,
                       Alter(s, {SchemaChange::AddColumn("r", T("ROW<a ROW<b INT>, c INT>"))}));
  const DataField& r = *n.FindField("r");
  EXPECT_EQ(r.id, 1);
  EXPECT_EQ(Field(*Field(*r.type, "a").type, "b").id, 2);
  EXPECT_EQ(Field(*r.type, "a").id, 3);
  EXPECT_EQ(Field(*r.type, "c").id, 4);
  EXPECT_EQ(n.highest_field_id, 4);
  ASSERT_OK_AND_ASSIGN(n, Alter(n, {SchemaChange::AddColumn("x", T("INT")).First()}));
  EXPECT_EQ(n.fields[0].name, "x");
  EXPECT_EQ(n.fields[0].id, 5);
}

TEST(NestedColumnsTest, PathsThroughArraysAndMaps) {
  TableSchema s = Schema(
      "id INT, arr ARRAY<ROW<a INT>>, m MAP<STRING, ROW<a INT>>, ints ARRAY<INT>, "
      "deep ARRAY<ARRAY<INT>>, mv MAP<INT, INT>");
  ASSERT_OK_AND_ASSIGN(
      TableSchema n,
      Alter(s, {SchemaChange::AddNestedColumn({"arr", "element", "b"}, T("STRING")),
                SchemaChange::UpdateNestedColumnType({"arr", "element", "a"}, T("BIGINT")),
                SchemaChange::AddNestedColumn({"m", "value", "b"}, T("DOUBLE")),
                SchemaChange::RenameNestedColumn({"m", "value", "a"}, "a2"),
                SchemaChange::UpdateNestedColumnType({"ints", "element"}, T("BIGINT")),
                SchemaChange::UpdateNestedColumnType({"deep", "element", "element"}, T("STRING")),
                SchemaChange::UpdateNestedColumnType({"mv", "value"}, T("BIGINT"))}));
  EXPECT_EQ(n.FindField("arr")->type->ToString(), T("ARRAY<ROW<a BIGINT, b STRING>>")->ToString());
  EXPECT_EQ(n.FindField("m")->type->ToString(),
            T("MAP<STRING, ROW<a2 INT, b DOUBLE>>")->ToString());
  EXPECT_EQ(n.FindField("ints")->type->ToString(), "ARRAY<BIGINT>");
  EXPECT_EQ(n.FindField("deep")->type->ToString(), "ARRAY<ARRAY<STRING>>");
  EXPECT_EQ(n.FindField("mv")->type->ToString(), "MAP<INT, BIGINT>");
  // Renamed: same id.
  EXPECT_EQ(Field(*s.FindField("m")->type->value(), "a").id,
            Field(*n.FindField("m")->type->value(), "a2").id);
  // Java's path steps through ARRAY and MAP whatever their names are.
  ASSERT_OK_AND_ASSIGN(
      TableSchema any,
      Alter(s, {SchemaChange::UpdateNestedColumnType({"ints", "x"}, T("BIGINT"))}));
  EXPECT_EQ(any.FindField("ints")->type->ToString(), "ARRAY<BIGINT>");
}

TEST(NestedColumnsTest, DropRenameCommentInsideRows) {
  TableSchema s = Schema("id INT, v ROW<a INT, b ROW<c INT, d INT>>");
  ASSERT_OK_AND_ASSIGN(
      TableSchema n, Alter(s, {SchemaChange::DropNestedColumn({"v", "b", "c"}),
                               SchemaChange::RenameNestedColumn({"v", "a"}, "a1"),
                               SchemaChange::UpdateNestedColumnComment({"v", "b", "d"}, "the d")}));
  const DataType& v = *n.FindField("v")->type;
  EXPECT_EQ(v.fields()[0].name, "a1");
  ASSERT_EQ(Field(v, "b").type->fields().size(), 1u);
  EXPECT_EQ(Field(*Field(v, "b").type, "d").description, "the d");
  EXPECT_EQ(n.highest_field_id, s.highest_field_id);
  // Dropping the last field of a ROW is refused as Java refuses it ("Cannot drop all fields").
  EXPECT_THAT(Alter(n, {SchemaChange::DropNestedColumn({"v", "b", "d"})}),
              IsError(StatusCode::kInvalid, "only field of its ROW"));
}

TEST(NestedColumnsTest, RefusalsNameThePath) {
  TableSchema s = Schema("id INT, v ROW<a INT, b STRING>, arr ARRAY<INT>", {"id"});
  auto refused = [&](SchemaChange c, const std::string& message) {
    EXPECT_THAT(Alter(s, {c}), IsError(StatusCode::kInvalid, message));
  };
  refused(SchemaChange::AddNestedColumn({"v", "a"}, T("INT")), "column 'v.a' already exists");
  refused(SchemaChange::AddNestedColumn({"v", "n"}, T("INT NOT NULL")),
          "new column 'v.n' must be nullable");
  refused(SchemaChange::AddNestedColumn({"v", "n"}, T("INT")).After("zz"), "after 'zz'");
  refused(SchemaChange::AddNestedColumn({"nope", "n"}, T("INT")), "field nope does not exist");
  refused(SchemaChange::AddNestedColumn({"arr", "element", "n"}, T("INT")),
          "arr.element is INT, which has no fields");
  refused(SchemaChange::DropNestedColumn({"v", "zz"}), "column 'v.zz' does not exist");
  refused(SchemaChange::RenameNestedColumn({"v", "a"}, "b"), "column 'v.b' already exists");
  // DataTypeCasts has no INT to DATE cast.
  refused(SchemaChange::UpdateNestedColumnType({"v", "a"}, T("DATE")),
          "cannot change column 'v.a' from INT to DATE");
  refused(SchemaChange::UpdateNestedColumnType({"v", "a"}, T("INT NOT NULL")),
          "from NULL to NOT NULL");
  // No CastExecutors rule turns a ROW or ARRAY into another one, so Java refuses them whole.
  refused(SchemaChange::UpdateColumnType("v", T("ROW<a INT, b STRING, c INT>")),
          "no ARRAY, MAP or ROW type changes as a whole");
  refused(SchemaChange::UpdateColumnType("arr", T("ARRAY<BIGINT>")),
          "no ARRAY, MAP or ROW type changes as a whole");
  // ...but to a string it may (Java's RowToStringCastRule, an explicit cast).
  ASSERT_OK_AND_ASSIGN(TableSchema str,
                       Alter(s, {SchemaChange::UpdateColumnType("v", T("STRING"))}));
  EXPECT_EQ(str.FindField("v")->type->ToString(), "STRING");
  // Key checks are for top-level columns only, as Java's.
  refused(SchemaChange::UpdateColumnType("id", T("BIGINT")), "primary-key");
}

TEST(NestedColumnsTest, NestedNotNullAllowedByOption) {
  TableSchema s =
      Schema("id INT, v ROW<a INT>", {}, {{"alter-column-null-to-not-null.disabled", "false"}});
  ASSERT_OK_AND_ASSIGN(
      TableSchema n,
      Alter(s, {SchemaChange::UpdateNestedColumnType({"v", "a"}, T("BIGINT NOT NULL"))}));
  EXPECT_EQ(n.FindField("v")->type->fields()[0].type->ToString(), "BIGINT NOT NULL");
}

}  // namespace
}  // namespace fjord
