#include "fjord/cdc/schema_change.h"

#include "fjord/testing/test_util.h"

namespace fjord::cdc {
namespace {

DataTypePtr T(const std::string& text) {
  auto t = ParseDataType(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().ToString();
  return t.ok() ? *t : DataType::Int();
}

TypeMapping Modes(std::vector<std::string> values) { return *TypeMapping::Parse(values); }

const char* Name(ConvertAction a) {
  switch (a) {
    case ConvertAction::kConvert:
      return "CONVERT";
    case ConvertAction::kIgnore:
      return "IGNORE";
    case ConvertAction::kException:
      return "EXCEPTION";
  }
  return "?";
}

struct Case {
  const char* old_type;
  const char* new_type;
  const char* expected;
  std::vector<std::string> modes = {};
};

// Each expectation follows a branch of Java's canConvert (UpdatedDataFieldsProcessFunctionBase,
// release-1.4.2), named in the comment beside it.
TEST(CanConvertTest, MatrixFollowsJava) {
  const std::vector<Case> cases = {
      // equal ignoring the outer nullability: CONVERT, but nullable to NOT NULL is an EXCEPTION
      {"INT", "INT", "CONVERT"},
      {"INT NOT NULL", "INT", "CONVERT"},
      {"INT", "INT NOT NULL", "EXCEPTION"},
      {"STRING", "STRING NOT NULL", "EXCEPTION"},
      {"DATE", "DATE", "CONVERT"},
      {"DATE", "DATE NOT NULL", "EXCEPTION"},
      // CHAR / VARCHAR: by length, either root
      {"VARCHAR(10)", "VARCHAR(20)", "CONVERT"},
      {"VARCHAR(10)", "VARCHAR(5)", "IGNORE"},
      {"CHAR(10)", "VARCHAR(10)", "CONVERT"},
      {"VARCHAR(10)", "CHAR(5)", "IGNORE"},
      {"CHAR(3)", "STRING", "CONVERT"},
      {"VARCHAR(10)", "VARCHAR(20) NOT NULL", "CONVERT"},  // the length branch ignores nullability
      // non-string to string only with allow-non-string-to-string
      {"INT", "STRING", "EXCEPTION"},
      {"INT", "STRING", "CONVERT", {"allow-non-string-to-string"}},
      {"TIMESTAMP(3)", "VARCHAR(5)", "CONVERT", {"allow-non-string-to-string"}},
      {"ARRAY<INT>", "STRING", "CONVERT", {"allow-non-string-to-string"}},
      {"STRING", "INT", "EXCEPTION", {"allow-non-string-to-string"}},
      {"BYTES", "STRING", "EXCEPTION"},
      // BINARY / VARBINARY: by length
      {"BINARY(4)", "VARBINARY(8)", "CONVERT"},
      {"VARBINARY(8)", "BINARY(4)", "IGNORE"},
      {"BYTES", "BYTES", "CONVERT"},
      // integers in the order TINYINT < SMALLINT < INT < BIGINT
      {"TINYINT", "SMALLINT", "CONVERT"},
      {"SMALLINT", "INT", "CONVERT"},
      {"INT", "BIGINT", "CONVERT"},
      {"TINYINT", "BIGINT", "CONVERT"},
      {"BIGINT", "INT", "IGNORE"},
      {"INT", "SMALLINT", "IGNORE"},
      {"BIGINT", "TINYINT", "IGNORE"},
      {"INT", "BIGINT NOT NULL", "CONVERT"},
      // FLOAT < DOUBLE; no crossing between families
      {"FLOAT", "DOUBLE", "CONVERT"},
      {"DOUBLE", "FLOAT", "IGNORE"},
      {"INT", "DOUBLE", "EXCEPTION"},
      {"INT", "DECIMAL(10, 0)", "EXCEPTION"},
      {"DECIMAL(10, 0)", "BIGINT", "EXCEPTION"},
      {"BOOLEAN", "TINYINT", "EXCEPTION"},
      // DECIMAL: IGNORE only when neither precision nor scale grows
      {"DECIMAL(10, 2)", "DECIMAL(12, 4)", "CONVERT"},
      {"DECIMAL(10, 2)", "DECIMAL(8, 2)", "IGNORE"},
      {"DECIMAL(10, 2)", "DECIMAL(10, 1)", "IGNORE"},
      {"DECIMAL(10, 2)", "DECIMAL(9, 3)", "CONVERT"},
      {"DECIMAL(10, 2)", "DECIMAL(12, 1)", "CONVERT"},
      {"DECIMAL(10, 2)", "DECIMAL(10, 2)", "CONVERT"},  // equal
      {"DECIMAL(20, 9)", "DECIMAL(30, 10)", "CONVERT"},
      {"DECIMAL(20, 9)", "DECIMAL(10, 3)", "IGNORE"},
      // TIMESTAMP (without time zone) by precision; TIMESTAMP_LTZ only when equal
      {"TIMESTAMP(3)", "TIMESTAMP(6)", "CONVERT"},
      {"TIMESTAMP(6)", "TIMESTAMP(3)", "IGNORE"},
      {"TIMESTAMP(3)", "TIMESTAMP_LTZ(3)", "EXCEPTION"},
      {"TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(6)", "EXCEPTION"},
      {"TIMESTAMP_LTZ(6)", "TIMESTAMP_LTZ(6)", "CONVERT"},
      {"DATE", "TIMESTAMP(3)", "EXCEPTION"},
      {"TIME(0)", "TIME(3)", "EXCEPTION"},
      {"INT", "ARRAY<INT>", "EXCEPTION"},
      // ARRAY / MULTISET: outer nullable to NOT NULL fails, else the elements decide
      {"ARRAY<INT>", "ARRAY<BIGINT>", "CONVERT"},
      {"ARRAY<BIGINT>", "ARRAY<INT>", "IGNORE"},
      {"ARRAY<INT>", "ARRAY<INT> NOT NULL", "EXCEPTION"},
      {"ARRAY<INT> NOT NULL", "ARRAY<INT>", "CONVERT"},
      {"ARRAY<INT>", "ARRAY<INT NOT NULL>", "EXCEPTION"},
      {"ARRAY<INT NOT NULL>", "ARRAY<INT>", "CONVERT"},
      {"ARRAY<INT>", "ARRAY<STRING>", "EXCEPTION"},
      {"ARRAY<INT>", "MULTISET<INT>", "EXCEPTION"},
      {"MULTISET<INT>", "MULTISET<BIGINT>", "CONVERT"},
      {"MULTISET<INT>", "MULTISET<INT> NOT NULL", "EXCEPTION"},
      {"MULTISET<INT> NOT NULL", "MULTISET<INT>", "CONVERT"},
      {"MULTISET<INT>", "MULTISET<INT NOT NULL>", "EXCEPTION"},
      // MAP: the key type never changes, the value decides
      {"MAP<STRING, INT>", "MAP<STRING, BIGINT>", "CONVERT"},
      {"MAP<STRING, BIGINT>", "MAP<STRING, INT>", "IGNORE"},
      {"MAP<INT, INT>", "MAP<BIGINT, INT>", "EXCEPTION"},
      {"MAP<STRING, INT>", "MAP<STRING NOT NULL, BIGINT>", "EXCEPTION"},
      {"MAP<STRING, INT>", "MAP<STRING, INT> NOT NULL", "EXCEPTION"},
      {"MAP<STRING, ARRAY<INT>>", "MAP<STRING, ARRAY<BIGINT>>", "CONVERT"},
      {"ARRAY<MAP<INT, ROW<f1 INT, f2 STRING>>>",
       "ARRAY<MAP<INT, ROW<f1 BIGINT, f2 STRING, f3 DOUBLE>>>", "CONVERT"},
      // ROW: NOT NULL fields must stay, common fields must convert, new fields be nullable;
      // IGNORE only when no common field answers CONVERT (an equal one does) and none is new
      {"ROW<a INT, b STRING>", "ROW<a BIGINT, b STRING, c DOUBLE>", "CONVERT"},
      {"ROW<a BIGINT>", "ROW<a INT>", "IGNORE"},
      {"ROW<a BIGINT, b INT>", "ROW<a INT, b BIGINT>", "CONVERT"},
      {"ROW<a INT, b INT>", "ROW<a INT>", "CONVERT"},
      {"ROW<a BIGINT, b BIGINT>", "ROW<b INT>", "IGNORE"},
      {"ROW<a INT NOT NULL, b INT>", "ROW<b INT>", "EXCEPTION"},
      {"ROW<a INT>", "ROW<a INT, c INT NOT NULL>", "EXCEPTION"},
      {"ROW<a INT>", "ROW<a STRING>", "EXCEPTION"},
      {"ROW<a INT>", "ROW<a STRING>", "CONVERT", {"allow-non-string-to-string"}},
      {"ROW<a INT>", "ROW<a INT NOT NULL>", "EXCEPTION"},
      {"ROW<f1 ROW<x INT, y STRING>>", "ROW<f1 ROW<x INT, y STRING> NOT NULL>", "EXCEPTION"},
      {"ROW<a INT>", "ARRAY<INT>", "EXCEPTION"},
      {"ROW<a INT>", "ROW<a INT> NOT NULL", "EXCEPTION"},  // equal ignoring nullability, same ids
  };
  for (const Case& c : cases) {
    ConvertAction got = CanConvert(*T(c.old_type), *T(c.new_type), Modes(c.modes));
    EXPECT_STREQ(Name(got), c.expected) << c.old_type << " -> " << c.new_type;
  }
}

// Java compares nested ROW fields with their ids: the same ROW numbered differently is not
// "equal ignoring nullability", so the ROW branch decides, and it does not look at the outer
// nullability.
TEST(CanConvertTest, RowFieldIdsDecideEquality) {
  DataTypePtr table_row = DataType::Row({DataField{7, "a", DataType::Int(), {}, {}}}, true);
  DataTypePtr record_row = DataType::Row({DataField{0, "a", DataType::Int(), {}, {}}}, false);
  EXPECT_EQ(CanConvert(*table_row, *record_row, {}), ConvertAction::kConvert);
  DataTypePtr same_ids = DataType::Row({DataField{7, "a", DataType::Int(), {}, {}}}, false);
  EXPECT_EQ(CanConvert(*table_row, *same_ids, {}), ConvertAction::kException);
}

// ---- PlanSchemaChange -----------------------------------------------------------------------

std::vector<DataField> Table(const std::string& columns) {
  auto f = ParseColumnList(columns);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() ? *f : std::vector<DataField>{};
}

CdcColumn Col(const std::string& name, const std::string& type,
              std::optional<std::string> description = std::nullopt) {
  return CdcColumn{name, T(type), std::string("1"), std::move(description)};
}

CdcRecord Rec(std::vector<CdcColumn> columns) {
  CdcRecord r;
  r.database = "db";
  r.table = "t";
  r.columns = std::move(columns);
  return r;
}

Result<SchemaChangePlan> Plan(const std::vector<DataField>& fields, const CdcRecord& record,
                              std::vector<std::string> modes = {}, bool case_sensitive = true,
                              std::optional<std::string> comment = std::nullopt) {
  return PlanSchemaChange(fields, comment, record, Modes(modes), case_sensitive, "db.t");
}

TEST(PlanSchemaChangeTest, SameSchemaAsksNothing) {
  auto fields = Table("id INT NOT NULL, name STRING, tags ARRAY<STRING>, r ROW<x INT>");
  // The primary key nullable in the source, NOT NULL in the table: not a change. Nested ROW
  // field ids of the record differ from the table's: not a change either.
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Plan(fields, Rec({Col("id", "INT"), Col("name", "STRING"),
                                         Col("tags", "ARRAY<STRING>"), Col("r", "ROW<x INT>")})));
  EXPECT_TRUE(plan.empty());
  EXPECT_TRUE(plan.missing_columns.empty());
  EXPECT_TRUE(plan.ignored.empty());
}

TEST(PlanSchemaChangeTest, NewColumnsAreAddedWithTypeAndComment) {
  auto fields = Table("id INT NOT NULL, name STRING");
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Plan(fields, Rec({Col("id", "INT"), Col("age", "INT", "years"),
                                         Col("name", "STRING"), Col("tags", "ARRAY<STRING>")})));
  ASSERT_EQ(plan.add_columns.size(), 2u);
  EXPECT_EQ(plan.add_columns[0].name, "age");
  EXPECT_EQ(plan.add_columns[0].type->ToString(), "INT");
  EXPECT_EQ(plan.add_columns[0].description, "years");
  EXPECT_EQ(plan.add_columns[1].name, "tags");
  EXPECT_EQ(plan.add_columns[1].type->ToString(), "ARRAY<STRING>");
  EXPECT_TRUE(plan.alter_types.empty());
  EXPECT_FALSE(plan.empty());
}

TEST(PlanSchemaChangeTest, NotNullNewColumnIsRefused) {
  auto fields = Table("id INT NOT NULL");
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("v", "INT NOT NULL")})),
              IsError(StatusCode::kInvalid, "Column v cannot specify NOT NULL in the db.t table"));
}

TEST(PlanSchemaChangeTest, ColumnsTheRecordLacksAreKept) {
  auto fields = Table("id INT NOT NULL, a STRING, b STRING");
  ASSERT_OK_AND_ASSIGN(auto plan, Plan(fields, Rec({Col("id", "INT"), Col("b", "STRING")})));
  EXPECT_TRUE(plan.empty());
  EXPECT_EQ(plan.missing_columns, std::vector<std::string>{"a"});
}

TEST(PlanSchemaChangeTest, WideningAltersNarrowingIsIgnored) {
  auto fields = Table("id INT NOT NULL, v INT, s VARCHAR(10), d DOUBLE, ts TIMESTAMP(3)");
  ASSERT_OK_AND_ASSIGN(
      auto plan, Plan(fields, Rec({Col("id", "INT"), Col("v", "BIGINT"), Col("s", "VARCHAR(5)"),
                                   Col("d", "FLOAT"), Col("ts", "TIMESTAMP(6)")})));
  ASSERT_EQ(plan.alter_types.size(), 2u);
  EXPECT_EQ(plan.alter_types[0].column, "v");
  EXPECT_EQ(plan.alter_types[0].from->ToString(), "INT");
  EXPECT_EQ(plan.alter_types[0].to->ToString(), "BIGINT");
  EXPECT_EQ(plan.alter_types[1].column, "ts");
  EXPECT_EQ(plan.alter_types[1].to->ToString(), "TIMESTAMP(6)");
  ASSERT_EQ(plan.ignored.size(), 2u);
  EXPECT_EQ(plan.ignored[0].column, "s");
  EXPECT_EQ(plan.ignored[0].to->ToString(), "VARCHAR(5)");
  EXPECT_EQ(plan.ignored[1].column, "d");
}

TEST(PlanSchemaChangeTest, IncompatibleTypeNamesFieldTypesAndTable) {
  auto fields = Table("id INT NOT NULL, v INT");
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("v", "STRING")})),
              IsError(StatusCode::kInvalid,
                      "Cannot convert field v from type INT to STRING of Paimon table db.t."));
  ASSERT_OK_AND_ASSIGN(auto plan, Plan(fields, Rec({Col("id", "INT"), Col("v", "STRING")}),
                                       {"allow-non-string-to-string"}));
  ASSERT_EQ(plan.alter_types.size(), 1u);
  EXPECT_EQ(plan.alter_types[0].to->ToString(), "STRING");
}

TEST(PlanSchemaChangeTest, TypeChangeWithNullabilityChangeFailsAsJava) {
  // Java emits UpdateColumnType and UpdateColumnNullability; its CDC sink cannot apply the second.
  auto fields = Table("id INT NOT NULL, v INT NOT NULL");
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("v", "BIGINT")})),
              IsError(StatusCode::kInvalid,
                      "Cannot change field v of Paimon table db.t from "
                      "NOT NULL to nullable"));
  // Narrowing too: the type step is ignored, the nullability step still fails.
  auto wide = Table("id INT NOT NULL, v BIGINT NOT NULL");
  EXPECT_THAT(Plan(wide, Rec({Col("id", "INT"), Col("v", "INT")})),
              IsError(StatusCode::kInvalid, "Cannot change field v"));
}

TEST(PlanSchemaChangeTest, DecimalNoChangeKeepsDecimalColumns) {
  auto fields = Table("id INT NOT NULL, p DECIMAL(10, 2), q INT");
  CdcRecord r = Rec({Col("id", "INT"), Col("p", "DECIMAL(12, 4)"), Col("q", "BIGINT")});
  ASSERT_OK_AND_ASSIGN(auto with_mode, Plan(fields, r, {"decimal-no-change"}));
  ASSERT_EQ(with_mode.alter_types.size(), 1u);
  EXPECT_EQ(with_mode.alter_types[0].column, "q");
  ASSERT_OK_AND_ASSIGN(auto without, Plan(fields, r));
  ASSERT_EQ(without.alter_types.size(), 2u);
  EXPECT_EQ(without.alter_types[0].to->ToString(), "DECIMAL(12, 4)");
  // Even a DECIMAL change Java would refuse is skipped with the mode.
  CdcRecord bad = Rec({Col("id", "INT"), Col("p", "STRING")});
  ASSERT_OK_AND_ASSIGN(auto skipped, Plan(fields, bad, {"decimal-no-change"}));
  EXPECT_TRUE(skipped.empty());
  EXPECT_THAT(Plan(fields, bad), IsError(StatusCode::kInvalid, "Cannot convert field p"));
}

TEST(PlanSchemaChangeTest, CommentsChangeWhenTheRecordGivesAnother) {
  std::vector<DataField> fields = Table("id INT NOT NULL, a STRING, b STRING, c INT");
  fields[1].description = "old";
  fields[2].description = "same";
  CdcRecord r = Rec({Col("id", "INT"), Col("a", "STRING", "new"), Col("b", "STRING", "same"),
                     Col("c", "BIGINT", "count")});
  r.comment = "orders";
  ASSERT_OK_AND_ASSIGN(auto plan, Plan(fields, r, {}, true, std::string("old table comment")));
  ASSERT_EQ(plan.column_comments.size(), 2u);
  EXPECT_EQ(plan.column_comments[0], (std::pair<std::string, std::string>{"a", "new"}));
  EXPECT_EQ(plan.column_comments[1], (std::pair<std::string, std::string>{"c", "count"}));
  EXPECT_EQ(plan.table_comment, "orders");
  // No description in the record: the table's stays; the same table comment: no change.
  CdcRecord bare = Rec({Col("id", "INT"), Col("a", "STRING")});
  bare.comment = "orders";
  ASSERT_OK_AND_ASSIGN(auto none, Plan(fields, bare, {}, true, std::string("orders")));
  EXPECT_TRUE(none.empty());
}

TEST(PlanSchemaChangeTest, CaseInsensitiveCatalogMatchesLowerCasedNames) {
  auto fields = Table("id INT NOT NULL, name STRING");
  CdcRecord r = Rec({Col("ID", "INT"), Col("Name", "STRING"), Col("New_Col", "INT")});
  ASSERT_OK_AND_ASSIGN(auto insensitive, Plan(fields, r, {}, false));
  ASSERT_EQ(insensitive.add_columns.size(), 1u);
  EXPECT_EQ(insensitive.add_columns[0].name, "new_col");
  EXPECT_TRUE(insensitive.missing_columns.empty());
  // Case-sensitive (Java's FileSystemCatalog by default): other names, other columns.
  ASSERT_OK_AND_ASSIGN(auto sensitive, Plan(fields, r, {}, true));
  ASSERT_EQ(sensitive.add_columns.size(), 3u);
  EXPECT_EQ(sensitive.add_columns[0].name, "ID");
  EXPECT_EQ(sensitive.missing_columns, (std::vector<std::string>{"id", "name"}));
}

TEST(PlanSchemaChangeTest, NestedRowWidensAndGainsFields) {
  auto fields = Table("id INT NOT NULL, r ROW<a INT, b STRING>");
  ASSERT_OK_AND_ASSIGN(
      auto plan,
      Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<a BIGINT, b STRING, c DOUBLE>")})));
  ASSERT_EQ(plan.alter_types.size(), 1u);
  const DataTypePtr& to = plan.alter_types[0].to;
  EXPECT_EQ(to->ToString(), "ROW<`a` BIGINT, `b` STRING, `c` DOUBLE>");
  // The table's nested fields keep their ids; the new one is left for the catalog to number.
  const DataTypePtr& from = plan.alter_types[0].from;
  EXPECT_EQ(to->fields()[0].id, from->fields()[0].id);
  EXPECT_EQ(to->fields()[1].id, from->fields()[1].id);
  EXPECT_EQ(to->fields()[2].id, -1);
  // Java's steps (NestedSchemaUtils): r.a's type, then c added after b.
  const std::vector<ColumnStep>& steps = plan.alter_types[0].steps;
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, ColumnStep::kUpdateType);
  EXPECT_EQ(steps[0].path, (std::vector<std::string>{"r", "a"}));
  EXPECT_EQ(steps[0].type->ToString(), "BIGINT");
  EXPECT_EQ(steps[1].kind, ColumnStep::kAddField);
  EXPECT_EQ(steps[1].path, (std::vector<std::string>{"r", "c"}));
  EXPECT_EQ(steps[1].after, "b");
}

TEST(PlanSchemaChangeTest, NestedFieldAddedInPlace) {
  auto fields = Table("id INT NOT NULL, r ROW<a INT, b STRING>");
  ASSERT_OK_AND_ASSIGN(
      auto plan, Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<z INT, a INT, b STRING>")})));
  ASSERT_EQ(plan.alter_types.size(), 1u);
  EXPECT_EQ(plan.alter_types[0].to->ToString(), "ROW<`z` INT, `a` INT, `b` STRING>");
  ASSERT_EQ(plan.alter_types[0].steps.size(), 1u);
  EXPECT_EQ(plan.alter_types[0].steps[0].kind, ColumnStep::kAddField);
  EXPECT_FALSE(plan.alter_types[0].steps[0].after.has_value());  // Move.first
}

TEST(PlanSchemaChangeTest, NestedRowNarrowingBesideAnEqualFieldIsApplied) {
  // canConvert of the ROW answers CONVERT (the equal field b does), so Java applies a's step.
  auto fields = Table("id INT NOT NULL, r ROW<a BIGINT, b INT>");
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<a INT, b INT>")})));
  ASSERT_EQ(plan.alter_types.size(), 1u);
  EXPECT_EQ(plan.alter_types[0].to->ToString(), "ROW<`a` INT, `b` INT>");
  // Alone, the narrowing is ignored.
  auto single = Table("id INT NOT NULL, r ROW<a BIGINT>");
  ASSERT_OK_AND_ASSIGN(auto ignored, Plan(single, Rec({Col("id", "INT"), Col("r", "ROW<a INT>")})));
  EXPECT_TRUE(ignored.empty());
  ASSERT_EQ(ignored.ignored.size(), 1u);
}

TEST(PlanSchemaChangeTest, NestedErrorsJavaFailsOn) {
  auto fields = Table(
      "id INT NOT NULL, r ROW<a INT, b STRING>, m MAP<INT, INT>, "
      "tags ARRAY<STRING NOT NULL>");
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<a INT>")})),
              IsError(StatusCode::kInvalid, "Cannot drop nested field r.b of Paimon table db.t"));
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<b STRING, a INT>")})),
              IsError(StatusCode::kInvalid, "changed their order"));
  EXPECT_THAT(
      Plan(fields, Rec({Col("id", "INT"), Col("r", "STRING")}), {"allow-non-string-to-string"}),
      IsError(StatusCode::kInvalid, "a ROW column changes only into a ROW"));
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("m", "MAP<BIGINT, INT>")})),
              IsError(StatusCode::kInvalid, "Cannot update the key type of field m"));
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("tags", "ARRAY<STRING>")})),
              IsError(StatusCode::kInvalid, "Cannot change field tags.element"));
  EXPECT_THAT(
      Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<a INT, b STRING, c INT NOT NULL>")})),
      IsError(StatusCode::kInvalid, "Column r.c cannot specify NOT NULL"));
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("r", "ROW<a STRING, b STRING>")})),
              IsError(StatusCode::kInvalid,
                      "Cannot convert field r from type ROW<`a` INT, `b` "
                      "STRING> to ROW<`a` STRING, `b` STRING>"));
}

TEST(PlanSchemaChangeTest, ArrayAndMapValuesWiden) {
  auto fields = Table("id INT NOT NULL, a ARRAY<INT>, m MAP<STRING, INT>, n ARRAY<BIGINT>");
  ASSERT_OK_AND_ASSIGN(
      auto plan, Plan(fields, Rec({Col("id", "INT"), Col("a", "ARRAY<BIGINT>"),
                                   Col("m", "MAP<STRING, BIGINT>"), Col("n", "ARRAY<INT>")})));
  ASSERT_EQ(plan.alter_types.size(), 2u);
  EXPECT_EQ(plan.alter_types[0].to->ToString(), "ARRAY<BIGINT>");
  EXPECT_EQ(plan.alter_types[1].to->ToString(), "MAP<STRING, BIGINT>");
  ASSERT_EQ(plan.alter_types[0].steps.size(), 1u);
  EXPECT_EQ(plan.alter_types[0].steps[0].path, (std::vector<std::string>{"a", "element"}));
  ASSERT_EQ(plan.alter_types[1].steps.size(), 1u);
  EXPECT_EQ(plan.alter_types[1].steps[0].path, (std::vector<std::string>{"m", "value"}));
  ASSERT_EQ(plan.ignored.size(), 1u);
  EXPECT_EQ(plan.ignored[0].column, "n");
}

TEST(PlanSchemaChangeTest, DeeperNestingAndMultisets) {
  auto fields = Table(
      "id INT NOT NULL, a ARRAY<ROW<x INT>>, m MAP<STRING, ROW<x INT>>, "
      "r ROW<a INT, b ROW<c INT>>, ms MULTISET<INT>, mr MULTISET<ROW<x INT>>, "
      "mb MULTISET<BIGINT>");
  ASSERT_OK_AND_ASSIGN(auto plan,
                       Plan(fields, Rec({Col("id", "INT"), Col("a", "ARRAY<ROW<x INT, y INT>>"),
                                         Col("m", "MAP<STRING, ROW<x BIGINT, y INT>>"),
                                         Col("r", "ROW<a INT, b ROW<c BIGINT, d STRING>>"),
                                         Col("mb", "MULTISET<INT>")})));
  ASSERT_EQ(plan.alter_types.size(), 3u);
  EXPECT_EQ(plan.alter_types[0].to->ToString(), "ARRAY<ROW<`x` INT, `y` INT>>");
  EXPECT_EQ(plan.alter_types[1].to->ToString(), "MAP<STRING, ROW<`x` BIGINT, `y` INT>>");
  EXPECT_EQ(plan.alter_types[2].to->ToString(), "ROW<`a` INT, `b` ROW<`c` BIGINT, `d` STRING>>");
  ASSERT_EQ(plan.ignored.size(), 1u);  // a narrowed MULTISET element is ignored
  EXPECT_EQ(plan.ignored[0].column, "mb");
  // Widening inside a MULTISET, or adding to its ROW, fails as Java's schema manager fails.
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("ms", "MULTISET<BIGINT>")})),
              IsError(StatusCode::kInvalid, "does not reach inside a MULTISET"));
  EXPECT_THAT(Plan(fields, Rec({Col("id", "INT"), Col("mr", "MULTISET<ROW<x INT, y INT>>")})),
              IsError(StatusCode::kInvalid, "does not reach inside a MULTISET"));
}

TEST(PlanSchemaChangeTest, NestedCommentFollowsTheRecord) {
  auto fields = Table("id INT NOT NULL, r ROW<a INT>");
  DataTypePtr commented =
      DataType::Row({DataField{0, "a", DataType::Int(), std::string("amount"), {}}});
  CdcRecord r = Rec({Col("id", "INT")});
  r.columns.push_back(CdcColumn{"r", commented, std::nullopt, std::nullopt});
  ASSERT_OK_AND_ASSIGN(auto plan, Plan(fields, r));
  ASSERT_EQ(plan.alter_types.size(), 1u);
  EXPECT_EQ(plan.alter_types[0].to->fields()[0].description, "amount");
  EXPECT_EQ(plan.alter_types[0].to->fields()[0].id, plan.alter_types[0].from->fields()[0].id);
}

}  // namespace
}  // namespace fjord::cdc
