#include "fjord/table/catalog/catalog.h"

#include <fstream>
#include <map>
#include <sstream>

#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/file_store_table.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

TableSpec Spec(const std::string& columns, std::vector<std::string> pk = {},
               std::vector<std::string> partition = {},
               std::vector<std::pair<std::string, std::string>> options = {}) {
  TableSpec spec;
  spec.fields = ParseColumnList(columns).ValueOr(std::vector<DataField>{});
  spec.primary_keys = std::move(pk);
  spec.partition_keys = std::move(partition);
  spec.options = std::move(options);
  return spec;
}

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        catalog_, FileSystemCatalog::Open(dir_.Join("wh"), {{"table-default.file.format", "orc"},
                                                            {"table-default.bucket", "2"},
                                                            {"warehouse.note", "x"}}));
    ASSERT_OK(catalog_->CreateDatabase("db"));
  }
  TempDir dir_;
  std::unique_ptr<FileSystemCatalog> catalog_;
};

TEST_F(CatalogTest, DatabasesAndTables) {
  EXPECT_THAT(catalog_->CreateDatabase("db"), HasStatusCode(StatusCode::kAlreadyExists));
  ASSERT_OK(catalog_->CreateDatabase("db", /*ignore_if_exists=*/true));
  ASSERT_OK(catalog_->CreateDatabase("other"));
  ASSERT_OK_AND_ASSIGN(auto dbs, catalog_->ListDatabases());
  EXPECT_EQ(dbs, (std::vector<std::string>{"db", "other"}));

  TableIdentifier t{"db", "orders"};
  ASSERT_OK(catalog_->CreateTable(t, Spec("id INT, dt STRING, v DOUBLE", {"id", "dt"}, {"dt"})));
  EXPECT_THAT(catalog_->CreateTable(t, Spec("id INT")), HasStatusCode(StatusCode::kAlreadyExists));
  ASSERT_OK(catalog_->CreateTable(t, Spec("id INT"), /*ignore_if_exists=*/true));
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables("db"));
  EXPECT_EQ(tables, std::vector<std::string>{"orders"});
  EXPECT_THAT(catalog_->CreateTable({"nodb", "x"}, Spec("id INT")),
              IsError(StatusCode::kNotFound, "database 'nodb'"));

  EXPECT_THAT(catalog_->DropDatabase("db"), IsError(StatusCode::kInvalid, "not empty"));
  ASSERT_OK(catalog_->DropTable(t));
  EXPECT_THAT(catalog_->DropTable(t), HasStatusCode(StatusCode::kNotFound));
  ASSERT_OK(catalog_->DropDatabase("db"));
  ASSERT_OK(catalog_->DropDatabase("other", false, /*cascade=*/true));
  ASSERT_OK_AND_ASSIGN(dbs, catalog_->ListDatabases());
  EXPECT_TRUE(dbs.empty());
}

TEST_F(CatalogTest, SchemaFileAsJavaWritesIt) {
  TableIdentifier t{"db", "t"};
  ASSERT_OK(catalog_->CreateTable(
      t, Spec("id INT, dt STRING, r ROW<a INT, b ARRAY<ROW<c STRING>>>, v DOUBLE", {"id", "dt"},
              {"dt"}, {{"bucket", "4"}, {"merge-engine", "partial-update"}})));
  ASSERT_OK_AND_ASSIGN(auto table, catalog_->GetTable(t));
  const TableSchema& s = table->schema();
  EXPECT_EQ(s.version, 3);
  EXPECT_EQ(s.id, 0);
  // Java's Schema.Builder: id 0, dt 1, r 2 (a 3, then b's type: c 4, then b 5), v 6.
  EXPECT_EQ(s.highest_field_id, 6);
  EXPECT_EQ(s.fields[2].type->fields()[1].type->element()->fields()[0].id, 4);
  EXPECT_EQ(s.fields[2].type->fields()[1].id, 5);
  EXPECT_FALSE(s.fields[0].type->nullable());  // primary keys become NOT NULL
  EXPECT_FALSE(s.fields[1].type->nullable());
  EXPECT_TRUE(s.fields[3].type->nullable());
  // The table's own options first, then catalog defaults it did not set.
  ASSERT_EQ(s.options.size(), 3u);
  EXPECT_EQ(s.options[0], (std::pair<std::string, std::string>{"bucket", "4"}));
  EXPECT_EQ(s.options[1].first, "merge-engine");
  EXPECT_EQ(s.options[2], (std::pair<std::string, std::string>{"file.format", "orc"}));
  // The file reparses to the same schema.
  ASSERT_OK_AND_ASSIGN(std::string text,
                       FileIO::Local()->ReadFile(catalog_->TablePath(t) + "/schema/schema-0"));
  ASSERT_OK_AND_ASSIGN(TableSchema again, TableSchema::FromJson(text, "schema-0"));
  EXPECT_EQ(again.ToJson(), text);
}

TEST_F(CatalogTest, KeysGivenAsOptions) {
  ASSERT_OK(catalog_->CreateTable(
      {"db", "t"},
      Spec("id INT, p INT, v STRING", {}, {}, {{"primary-key", "id,p"}, {"partition", "p"}})));
  ASSERT_OK_AND_ASSIGN(auto table, catalog_->GetTable({"db", "t"}));
  EXPECT_EQ(table->schema().primary_keys, (std::vector<std::string>{"id", "p"}));
  EXPECT_EQ(table->schema().partition_keys, std::vector<std::string>{"p"});
  EXPECT_FALSE(table->schema().Option("primary-key").has_value());
  EXPECT_THAT(
      catalog_->CreateTable({"db", "u"}, Spec("id INT", {"id"}, {}, {{"primary-key", "id"}})),
      IsError(StatusCode::kInvalid, "both in the definition and as option"));
}

TEST_F(CatalogTest, CreateValidatesLikeJava) {
  auto create = [&](const TableSpec& spec) { return catalog_->CreateTable({"db", "bad"}, spec); };
  EXPECT_THAT(create(Spec("id INT", {"nope"})),
              IsError(StatusCode::kInvalid, "primary key 'nope'"));
  EXPECT_THAT(create(Spec("id INT, p INT", {}, {"q"})),
              IsError(StatusCode::kInvalid, "partition key 'q'"));
  EXPECT_THAT(create(Spec("id INT, p INT", {"id"}, {"p"})),
              IsError(StatusCode::kInvalid, "must include all partition keys"));
  EXPECT_THAT(create(Spec("id INT, id STRING")), IsError(StatusCode::kInvalid, "duplicate column"));
  EXPECT_THAT(create(Spec("p INT", {}, {"p"})), IsError(StatusCode::kInvalid, "all columns"));
  EXPECT_THAT(create(Spec("id INT, v INT", {}, {}, {{"bucket", "0"}})),
              IsError(StatusCode::kInvalid, "option 'bucket'"));
  EXPECT_THAT(create(Spec("id INT, v INT", {}, {}, {{"bucket", "3"}})),
              IsError(StatusCode::kInvalid, "needs option 'bucket-key'"));
  EXPECT_THAT(create(Spec("id INT, v INT", {}, {}, {{"bucket", "-1"}, {"bucket-key", "id"}})),
              IsError(StatusCode::kInvalid, "bucket-key"));
  EXPECT_THAT(create(Spec("id INT, v INT", {"id"}, {}, {{"bucket", "2"}, {"bucket-key", "v"}})),
              IsError(StatusCode::kInvalid, "must be part of the primary key"));
  EXPECT_THAT(create(Spec("id INT, v INT", {"id"}, {}, {{"bucket", "two"}})),
              IsError(StatusCode::kInvalid, "option 'bucket'"));
  EXPECT_THAT(create(Spec("id INT, v INT", {"id"}, {}, {{"fields.w.aggregate-function", "sum"}})),
              IsError(StatusCode::kInvalid, "names column 'w'"));
  EXPECT_THAT(
      create(Spec("id INT, v INT", {}, {}, {{"bucket", "-1"}, {"merge-engine", "aggregation"}})),
      IsError(StatusCode::kInvalid, "needs a primary key"));
  EXPECT_THAT(create(Spec("id INT, m MAP<INT, INT>", {"m"})),
              IsError(StatusCode::kInvalid, "cannot be a key"));
  EXPECT_THAT(create(Spec("id INT, v INT", {"id"}, {}, {{"file.format", "csvx"}})),
              IsError(StatusCode::kInvalid, "file.format"));
  for (const char* producer : {"input", "full-compaction"}) {
    EXPECT_THAT(create(Spec("id INT, v INT", {"id"}, {},
                            {{"merge-engine", "first-row"}, {"changelog-producer", producer}})),
                IsError(StatusCode::kInvalid, "supports only changelog-producer 'none' and"));
  }
  // Nothing was written by the failed attempts.
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables("db"));
  EXPECT_TRUE(tables.empty());
}

TEST_F(CatalogTest, AlterTableWritesNewSchemas) {
  TableIdentifier t{"db", "t"};
  ASSERT_OK(catalog_->CreateTable(
      t, Spec("id INT, p STRING, small INT, name STRING, gone DOUBLE", {"id", "p"}, {"p"},
              {{"bucket", "2"}, {"fields.name.ignore-retract", "true"}})));
  ASSERT_OK(catalog_->AlterTable(
      t, {SchemaChange::AddColumn("extra", DataType::Array(DataType::Int())),
          SchemaChange::RenameColumn("name", "full_name"),
          SchemaChange::UpdateColumnType("small", DataType::BigInt()),
          SchemaChange::DropColumn("gone"), SchemaChange::SetOption("commit.max-retries", "5"),
          SchemaChange::SetOption("bucket", "4")}));
  ASSERT_OK_AND_ASSIGN(auto table, catalog_->GetTable(t));
  const TableSchema& s = table->schema();
  EXPECT_EQ(s.id, 1);
  EXPECT_EQ(s.FieldIndex("gone"), -1);
  ASSERT_NE(s.FindField("full_name"), nullptr);
  EXPECT_EQ(s.FindField("full_name")->id, 3);  // renamed, same id
  EXPECT_EQ(s.FindField("small")->type->ToString(), "BIGINT");
  EXPECT_EQ(s.FindField("extra")->id, 5);
  EXPECT_EQ(s.highest_field_id, 5);
  EXPECT_EQ(s.Option("commit.max-retries"), "5");
  EXPECT_EQ(s.Option("bucket"), "4");
  EXPECT_EQ(s.Option("fields.full_name.ignore-retract"), "true");

  auto alter = [&](SchemaChange c) { return catalog_->AlterTable(t, {c}); };
  // Comments (CDC jobs follow the source's): a column's, then the table's.
  ASSERT_OK(alter(SchemaChange::UpdateColumnComment("small", "items in stock")));
  ASSERT_OK(alter(SchemaChange::UpdateComment("orders of the shop")));
  ASSERT_OK_AND_ASSIGN(table, catalog_->GetTable(t));
  EXPECT_EQ(table->schema().FindField("small")->description, "items in stock");
  EXPECT_EQ(table->schema().comment, "orders of the shop");
  EXPECT_THAT(alter(SchemaChange::UpdateColumnComment("nope", "x")),
              IsError(StatusCode::kInvalid, "does not exist"));
  EXPECT_THAT(alter(SchemaChange::SetOption("merge-engine", "first-row")),
              IsError(StatusCode::kInvalid, "immutable"));
  EXPECT_THAT(alter(SchemaChange::SetOption("bucket", "-1")),
              IsError(StatusCode::kInvalid, "only between positive values"));
  EXPECT_THAT(alter(SchemaChange::DropColumn("id")), IsError(StatusCode::kInvalid, "primary-key"));
  EXPECT_THAT(alter(SchemaChange::RenameColumn("p", "q")),
              IsError(StatusCode::kInvalid, "partition"));
  EXPECT_THAT(alter(SchemaChange::UpdateColumnType("small", DataType::Date())),
              IsError(StatusCode::kInvalid, "does not allow this type change"));
  EXPECT_THAT(alter(SchemaChange::AddColumn("nn", DataType::Int(false))),
              IsError(StatusCode::kInvalid, "must be nullable"));
  EXPECT_THAT(alter(SchemaChange::SetOption("write-buffer-size", "huge")),
              IsError(StatusCode::kInvalid, "write-buffer-size"));
  // Refused changes wrote nothing.
  SnapshotManager sm(FileIO::Local(), catalog_->TablePath(t));
  ASSERT_OK_AND_ASSIGN(auto ids, sm.ListSchemaIds());
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 2, 3}));
}

// ALTER TABLE ... MODIFY COLUMN accepts exactly the type changes Java Paimon 1.4.2's accepts:
// every ordered pair of 32 types (27 atomic, 5 nested) in tests/fixtures/java_cast_pairs.tsv
// (written by Java's SchemaManager check through `fjord-oracle cast-pairs`, kept true by
// compat.java_evolution_casts), with explicit casts allowed (the default) and with
// `disable-explicit-type-casting` = true.
TEST_F(CatalogTest, AlterColumnTypeAllowsExactlyJavasPairs) {
  std::ifstream in(testing::FixturesDir() + "/java_cast_pairs.tsv");
  ASSERT_TRUE(in.good());
  // from -> [(to, allowed by default, allowed with disable-explicit-type-casting)]
  std::map<std::string, std::vector<std::tuple<std::string, bool, bool>>> pairs;
  std::string line;
  int total = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    ASSERT_EQ(cols.size(), 4u) << line;
    pairs[cols[0]].emplace_back(cols[1], cols[2] == "true", cols[3] == "true");
    ++total;
  }
  ASSERT_EQ(total, 32 * 31);
  int checked = 0, allowed = 0;
  for (bool disable_explicit : {false, true}) {
    int t = 0;
    for (const auto& [from, targets] : pairs) {
      // One table per source type, one column per target type.
      std::string columns;
      for (size_t k = 0; k < targets.size(); ++k) {
        columns += (k ? ", c" : "c") + std::to_string(k) + " " + from;
      }
      TableIdentifier id{"db", "casts" + std::to_string(t++) + (disable_explicit ? "x" : "")};
      std::vector<std::pair<std::string, std::string>> options{{"bucket", "-1"}};
      if (disable_explicit) options.emplace_back("disable-explicit-type-casting", "true");
      ASSERT_OK(catalog_->CreateTable(id, Spec(columns, {}, {}, options)));
      for (size_t k = 0; k < targets.size(); ++k) {
        const auto& [to, java_default, java_implicit] = targets[k];
        bool java = disable_explicit ? java_implicit : java_default;
        ASSERT_OK_AND_ASSIGN(DataTypePtr type, ParseDataType(to));
        Status st = catalog_->AlterTable(
            id, {SchemaChange::UpdateColumnType("c" + std::to_string(k), type)});
        EXPECT_EQ(st.ok(), java) << from << " -> " << to << (disable_explicit ? " (implicit)" : "")
                                 << ": " << st.ToString();
        if (!java) {
          EXPECT_THAT(st, IsError(StatusCode::kInvalid, disable_explicit && java_default
                                                            ? "disable-explicit-type-casting"
                                                            : "does not allow"));
        }
        ++checked;
        allowed += java ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(checked, 2 * 32 * 31);
  // NULL to NOT NULL: refused unless alter-column-null-to-not-null.disabled = false (then an
  // explicit cast, as in Java's supportsCast).
  TableIdentifier n{"db", "nullability"};
  ASSERT_OK(catalog_->CreateTable(n, Spec("a INT, b INT", {}, {}, {{"bucket", "-1"}})));
  EXPECT_THAT(
      catalog_->AlterTable(n, {SchemaChange::UpdateColumnType("a", DataType::BigInt(false))}),
      IsError(StatusCode::kInvalid, "alter-column-null-to-not-null.disabled"));
  ASSERT_OK(catalog_->AlterTable(
      n, {SchemaChange::SetOption("alter-column-null-to-not-null.disabled", "false")}));
  EXPECT_OK(
      catalog_->AlterTable(n, {SchemaChange::UpdateColumnType("a", DataType::BigInt(false))}));
  EXPECT_EQ(allowed, 385 + 114);
}

}  // namespace
}  // namespace fjord
