#include "fjord/runtime/cdc_tables.h"

#include "fjord/runtime/job_spec.h"
#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

DataTypePtr T(const std::string& text) { return ParseDataType(text).value(); }

cdc::CdcRecord Record(std::vector<std::pair<std::string, std::string>> columns) {
  cdc::CdcRecord r;
  r.database = "src";
  r.table = "orders";
  r.primary_keys = {"id"};
  r.origin = "test record";
  for (const auto& [name, type] : columns) {
    r.columns.push_back(cdc::CdcColumn{name, T(type), std::nullopt, std::nullopt});
  }
  return r;
}

const DataField& Field(const DataType& row, const std::string& name) {
  for (const DataField& f : row.fields()) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no field " << name << " in " << row.ToString();
  static DataField none;
  return none;
}

// A record whose ROW and ARRAY columns changed evolves the table as Java's CDC sink does: the
// change split by NestedSchemaUtils into nested ADD COLUMN (with its position) and type changes
// on field paths, applied by the catalog (ids as Java's SchemaManager gives them).
TEST(CdcTablesTest, NestedColumnsEvolveAsJavasSink) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(JobSpec spec, ParseJobSpec(R"(
source: {type: files, path: in, format: debezium-json}
sink: {table: wh/db.db/t, primary-key: [id]}
pipeline: {state-dir: s}
)",
                                                  "job.yaml", dir.path()));
  ASSERT_OK_AND_ASSIGN(auto tables, CdcTables::Make(spec));
  cdc::CdcRecord first =
      Record({{"id", "INT NOT NULL"}, {"r", "ROW<a INT, b STRING>"}, {"tags", "ARRAY<INT>"}});
  ASSERT_OK_AND_ASSIGN(std::optional<std::string> target, tables->Target(first));
  ASSERT_TRUE(target.has_value());
  std::vector<std::string> log;
  ASSERT_OK_AND_ASSIGN(bool changed, tables->Apply(*target, first, &log));
  EXPECT_FALSE(changed);  // created
  // id 0, r 1 (a 2, b 3), tags 4.
  ASSERT_EQ(tables->Schema(*target).highest_field_id, 4);

  cdc::CdcRecord second = Record({{"id", "INT NOT NULL"},
                                  {"r", "ROW<z INT, a BIGINT, b STRING, c ROW<x INT>>"},
                                  {"tags", "ARRAY<BIGINT>"}});
  ASSERT_OK_AND_ASSIGN(bool needs, tables->NeedsChange(*target, second, &log));
  EXPECT_TRUE(needs);
  ASSERT_OK_AND_ASSIGN(changed, tables->Apply(*target, second, &log));
  EXPECT_TRUE(changed);
  const TableSchema& s = tables->Schema(*target);
  const DataType& r = *s.FindField("r")->type;
  ASSERT_EQ(r.fields().size(), 4u);
  EXPECT_EQ(r.fields()[0].name, "z");  // Move.first
  EXPECT_EQ(r.fields()[3].name, "c");  // Move.after(b)
  // Java's order of steps: z added (5), a widened, c added (6) with x inside it (7).
  EXPECT_EQ(Field(r, "z").id, 5);
  EXPECT_EQ(Field(r, "a").id, 2);
  EXPECT_EQ(Field(r, "a").type->ToString(), "BIGINT");
  EXPECT_EQ(Field(r, "c").id, 6);
  EXPECT_EQ(Field(*Field(r, "c").type, "x").id, 7);
  EXPECT_EQ(s.highest_field_id, 7);
  EXPECT_EQ(s.FindField("tags")->type->ToString(), "ARRAY<BIGINT>");

  // A record that drops a nested field stops the job, as Java's sink cannot apply the drop.
  cdc::CdcRecord dropped = Record({{"id", "INT NOT NULL"}, {"r", "ROW<z INT, a BIGINT>"}});
  EXPECT_THAT(tables->Apply(*target, dropped, &log),
              IsError(StatusCode::kInvalid, "Cannot drop nested field r.b"));
}

// NOT NULL columns of the records (the PostgreSQL source's NOT NULL columns without to-nullable,
// as Java's postgres_sync_table) are NOT NULL in the table the job creates and stay so when
// widened; a NOT NULL column added later is refused as Java's SchemaManager refuses it; a record
// giving a NOT NULL column as nullable asks nothing of the table.
TEST(CdcTablesTest, NotNullColumnsAsTheRecordsGiveThem) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(JobSpec spec, ParseJobSpec(R"(
source: {type: postgres, database: shop}
sink: {warehouse: wh, database: ods}
pipeline: {state-dir: s}
)",
                                                  "job.yaml", dir.path()));
  ASSERT_OK_AND_ASSIGN(auto tables, CdcTables::Make(spec));
  cdc::CdcRecord first =
      Record({{"id", "INT NOT NULL"}, {"qty", "INT NOT NULL"}, {"note", "STRING"}});
  ASSERT_OK_AND_ASSIGN(std::optional<std::string> target, tables->Target(first));
  ASSERT_TRUE(target.has_value());
  std::vector<std::string> log;
  ASSERT_OK(tables->Apply(*target, first, &log).status());
  EXPECT_EQ(tables->Schema(*target).FindField("qty")->type->ToString(), "INT NOT NULL");
  EXPECT_EQ(tables->Schema(*target).FindField("note")->type->ToString(), "STRING");

  cdc::CdcRecord wider =
      Record({{"id", "INT NOT NULL"}, {"qty", "BIGINT NOT NULL"}, {"note", "STRING"}});
  ASSERT_OK_AND_ASSIGN(bool changed, tables->Apply(*target, wider, &log));
  EXPECT_TRUE(changed);
  EXPECT_EQ(tables->Schema(*target).FindField("qty")->type->ToString(), "BIGINT NOT NULL");

  cdc::CdcRecord nullable = Record({{"id", "INT"}, {"qty", "BIGINT"}, {"note", "STRING"}});
  ASSERT_OK_AND_ASSIGN(bool needs, tables->NeedsChange(*target, nullable, &log));
  EXPECT_FALSE(needs);

  cdc::CdcRecord added = Record({{"id", "INT NOT NULL"},
                                 {"qty", "BIGINT NOT NULL"},
                                 {"note", "STRING"},
                                 {"z", "INT NOT NULL"}});
  EXPECT_THAT(tables->Apply(*target, added, &log),
              IsError(StatusCode::kInvalid, "Column z cannot specify NOT NULL"));
}

}  // namespace
}  // namespace fjord::runtime
