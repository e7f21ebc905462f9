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

// A database-sync job's tables: the job spec text with `sink` given, in a temporary warehouse.
struct Sync {
  testing::TempDir dir;
  std::unique_ptr<CdcTables> tables;
  std::vector<std::string> log;

  explicit Sync(const std::string& sink,
                const std::string& source = "{type: files, path: in, format: debezium-json}") {
    auto spec =
        ParseJobSpec("source: " + source + "\nsink: " + sink + "\npipeline: {state-dir: s}\n",
                     "job.yaml", dir.path());
    EXPECT_OK(spec.status());
    auto made = CdcTables::Make(*spec);
    EXPECT_OK(made.status());
    tables = std::move(*made);
  }
  // Where a record of `db`.`table` goes ("" when skipped).
  std::string Target(const std::optional<std::string>& db, const std::string& table) {
    cdc::CdcRecord r = Record({{"id", "INT NOT NULL"}});
    r.database = db;
    r.table = table;
    auto target = tables->Target(r);
    EXPECT_OK(target.status());
    return target.ok() && *target ? **target : "";
  }
  // Creates the table of `r` and returns its schema.
  TableSchema Create(const cdc::CdcRecord& r) {
    auto target = tables->Target(r);
    EXPECT_OK(target.status());
    EXPECT_TRUE(target.ok() && target->has_value());
    auto applied = tables->Apply(**target, r, &log);
    EXPECT_OK(applied.status());
    return tables->Schema(**target);
  }
};

cdc::CdcRecord In(const std::string& db, const std::string& table,
                  std::vector<std::pair<std::string, std::string>> columns,
                  std::vector<std::string> keys) {
  cdc::CdcRecord r = Record(std::move(columns));
  r.database = db;
  r.table = table;
  r.primary_keys = std::move(keys);
  return r;
}

// Java's RichCdcMultiplexRecordEventParser and TableNameConverter: the database patterns, then
// the table patterns (on the source table's name); table-mapping over the database's prefix and
// suffix over the job's.
TEST(CdcTablesTest, RoutesAsJavasTableNameConverter) {
  Sync plain("{warehouse: wh, database: ods}");
  EXPECT_EQ(plain.Target("shop1", "orders"), "ods.orders");
  EXPECT_EQ(plain.Target("shop2", "orders"), "ods.orders");  // shards merge
  EXPECT_EQ(plain.Target(std::nullopt, "orders"), "ods.orders");

  Sync s(R"({warehouse: wh, database: ods, table-prefix: p_, table-suffix: _s,
       including-tables: "orders|items|t.*|T.*", excluding-tables: "tmp_.*|items",
       including-dbs: "shop.*|legacy|Shop2", excluding-dbs: shop_test,
       table-prefix-db: {SHOP2: eu_, legacy: old_}, table-suffix-db: {legacy: ""},
       table-mapping: {Tally: counts}})");
  EXPECT_EQ(s.Target("shop1", "orders"), "ods.p_orders_s");
  EXPECT_EQ(s.Target("shop2", "orders"), "ods.eu_orders_s");      // its database's prefix
  EXPECT_EQ(s.Target("Shop2", "orders"), "ods.eu_orders_s");      // looked up lower-cased
  EXPECT_EQ(s.Target("legacy", "orders"), "ods.old_orders");      // its database's empty suffix
  EXPECT_EQ(s.Target("shop1", "tally"), "ods.counts");            // the mapping first
  EXPECT_EQ(s.Target("legacy", "TALLY"), "ods.counts");           // looked up lower-cased
  EXPECT_EQ(s.Target(std::nullopt, "orders"), "ods.p_orders_s");  // no database: passes
  EXPECT_EQ(s.Target("shop1", "items"), "");                      // excluding-tables
  EXPECT_EQ(s.Target("shop1", "tmp_x"), "");                      // both match: excluded
  EXPECT_EQ(s.Target("shop1", "customers"), "");                  // including-tables
  EXPECT_EQ(s.Target("other", "orders"), "");                     // including-dbs
  EXPECT_EQ(s.Target("shop_test", "orders"), "");                 // excluding-dbs
  EXPECT_EQ(s.Target("shop1", "xorders"), "");                    // whole-name matches only

  // Skipped records are counted, their source table logged once.
  cdc::CdcRecord skipped = In("shop_test", "orders", {{"id", "INT"}}, {});
  skipped.origin = "file a line 3";
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto target, s.tables->Route(skipped, &s.log));
    EXPECT_FALSE(target.has_value());
  }
  EXPECT_EQ(s.tables->events().excluded, 3);
  ASSERT_EQ(s.log.size(), 1u);
  EXPECT_EQ(s.log[0],
            "source table shop_test.orders is not synchronized (excluding-dbs 'shop_test' "
            "matches its database): its records are skipped, the first file a line 3");
  ASSERT_OK_AND_ASSIGN(auto taken,
                       s.tables->Route(In("shop1", "orders", {{"id", "INT"}}, {}), &s.log));
  EXPECT_EQ(taken, "ods.p_orders_s");
  EXPECT_EQ(s.tables->events().excluded, 3);

  // Without merge-shards each source database's table is its own: <database>_<table>.
  Sync apart(
      "{warehouse: wh, database: ods, merge-shards: false, table-prefix: p_,"
      " table-mapping: {shop1_items: items}}");
  EXPECT_EQ(apart.Target("shop1", "orders"), "ods.p_shop1_orders");
  EXPECT_EQ(apart.Target("shop2", "orders"), "ods.p_shop2_orders");
  EXPECT_EQ(apart.Target("shop1", "items"), "ods.items");
  cdc::CdcRecord nameless = In("x", "orders", {{"id", "INT"}}, {});
  nameless.database.reset();
  EXPECT_THAT(apart.tables->Target(nameless),
              IsError(StatusCode::kInvalid, "the message names no database"));

  // Table sync: every record to the one table.
  Sync one("{table: wh/db.db/t, primary-key: [id]}");
  EXPECT_EQ(one.Target("any", "thing"), "db.t");
}

// Primary keys: the job's when all are columns of the table, else (database sync) the
// message's, else none; table sync refuses a table without one. Partition keys: the source
// table's of multiple-table-partition-keys, else the job's when all are columns (database
// sync: else none). table-options are the created table's options.
TEST(CdcTablesTest, CreatesTablesWithKeysPartitionsAndOptions) {
  Sync s(R"({warehouse: wh, database: ods, primary-key: [id, dt], partition-keys: [dt],
       multiple-table-partition-keys: {items: [region]},
       table-options: {bucket: 2, changelog-producer: input}})");
  // All of the job's keys there: the job's, whatever the message says.
  TableSchema orders = s.Create(In(
      "shop", "orders", {{"id", "INT NOT NULL"}, {"dt", "STRING NOT NULL"}, {"v", "INT"}}, {"v"}));
  EXPECT_EQ(orders.primary_keys, (std::vector<std::string>{"id", "dt"}));
  EXPECT_EQ(orders.partition_keys, (std::vector<std::string>{"dt"}));
  EXPECT_EQ(orders.Option("bucket"), "2");
  EXPECT_EQ(orders.Option("changelog-producer"), "input");
  // The job's keys not all there: the message's; the job's partition keys neither.
  TableSchema users =
      s.Create(In("shop", "users", {{"uid", "INT NOT NULL"}, {"name", "STRING"}}, {"uid"}));
  EXPECT_EQ(users.primary_keys, (std::vector<std::string>{"uid"}));
  EXPECT_TRUE(users.partition_keys.empty());
  EXPECT_EQ(users.Option("bucket"), "2");
  // The table's own partition keys.
  TableSchema items =
      s.Create(In("shop", "items", {{"sku", "INT NOT NULL"}, {"region", "STRING NOT NULL"}},
                  {"sku", "region"}));
  EXPECT_EQ(items.primary_keys, (std::vector<std::string>{"sku", "region"}));
  EXPECT_EQ(items.partition_keys, (std::vector<std::string>{"region"}));
  ASSERT_EQ(s.tables->events().created, 3);
  EXPECT_THAT(s.log[0], ::testing::HasSubstr("created table ods.orders (3 columns, primary key "
                                             "[id, dt], partition keys [dt]) from test record"));
  // The created tables are in the warehouse with these schemas.
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> existing, s.tables->ExistingTables());
  EXPECT_EQ(existing.size(), 3u);
  // No keys anywhere: an append table (a fixed bucket would need a bucket-key, as in Java).
  Sync plain("{warehouse: wh, database: ods, primary-key: [id]}");
  TableSchema log = plain.Create(In("shop", "log", {{"line", "STRING"}}, {}));
  EXPECT_TRUE(log.primary_keys.empty());
  EXPECT_EQ(log.fields.size(), 1u);

  // Table sync: the job's keys must be columns; without any the table cannot be created.
  Sync one("{table: wh/db.db/t, primary-key: [nope]}");
  cdc::CdcRecord r =
      In("shop", "orders", {{"id", "INT NOT NULL"}, {"dt", "STRING NOT NULL"}}, {"id", "dt"});
  EXPECT_THAT(one.tables->Apply("db.t", r, &one.log),
              IsError(StatusCode::kInvalid, "sink.primary-key: not all of [nope] are columns"));
  Sync keyless("{table: wh/db.db/t, partition-keys: [dt], table-options: {bucket: 3}}");
  TableSchema from_message = keyless.Create(r);  // the message's key
  EXPECT_EQ(from_message.primary_keys, (std::vector<std::string>{"id", "dt"}));
  EXPECT_EQ(from_message.partition_keys, (std::vector<std::string>{"dt"}));
  EXPECT_EQ(from_message.Option("bucket"), "3");
  Sync wrong("{table: wh/db.db/t, partition-keys: [day]}");
  EXPECT_THAT(wrong.tables->Apply("db.t", r, &wrong.log),
              IsError(StatusCode::kInvalid, "sink.partition-keys: not all of [day] are columns"));
  Sync none("{table: wh/db.db/t}");
  r.primary_keys.clear();
  EXPECT_THAT(none.tables->Apply("db.t", r, &none.log),
              IsError(StatusCode::kInvalid, "cannot be created: give sink.primary-key"));
}

// Java's metadata columns: appended after the computed columns, with Java's types, usable in
// the primary key; their values from the record.
TEST(CdcTablesTest, MetadataColumnsJoinTheKey) {
  Sync s(R"y({warehouse: wh, database: ods, primary-key: [database_name, id],
       metadata-columns: [database_name, table_name, op_ts],
       computed-columns: ["id2=cast(1, INT)"]})y");
  cdc::CdcRecord r = In("shop1", "orders", {{"id", "INT NOT NULL"}}, {"id"});
  r.columns[0].value = "7";
  r.op_ts_ms = 1700000000123;
  TableSchema t = s.Create(r);
  ASSERT_EQ(t.fields.size(), 5u);
  EXPECT_EQ(t.fields[1].name, "id2");
  EXPECT_EQ(t.fields[2].name, "database_name");
  EXPECT_EQ(t.fields[2].type->ToString(), "STRING NOT NULL");
  EXPECT_EQ(t.fields[3].name, "table_name");
  EXPECT_EQ(t.fields[4].name, "op_ts");
  EXPECT_EQ(t.fields[4].type->ToString(), "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL");
  EXPECT_EQ(t.primary_keys, (std::vector<std::string>{"database_name", "id"}));
  ASSERT_OK(s.tables->Compute("ods.orders", &r));
  ASSERT_EQ(r.columns.size(), 5u);
  EXPECT_EQ(r.columns[2].value, "shop1");
  EXPECT_EQ(r.columns[3].value, "orders");
  EXPECT_EQ(r.columns[4].value, "2023-11-14 22:13:20.123Z");
  // A record of the same layout asks nothing more of the table.
  cdc::CdcRecord next = In("shop2", "orders", {{"id", "INT NOT NULL"}}, {"id"});
  ASSERT_OK_AND_ASSIGN(bool needs, s.tables->NeedsChange("ods.orders", next, &s.log));
  EXPECT_FALSE(needs);
  // A record without a change time cannot fill the NOT NULL op_ts.
  EXPECT_THAT(s.tables->Compute("ods.orders", &next),
              IsError(StatusCode::kInvalid, "test record: metadata column op_ts"));

  // A metadata column named as a source column: Java's duplicate-field error.
  Sync dup("{warehouse: wh, database: ods, metadata-columns: [table_name]}");
  cdc::CdcRecord clash = In("shop", "t", {{"id", "INT"}, {"table_name", "STRING"}}, {});
  EXPECT_THAT(dup.tables->Apply("ods.t", clash, &dup.log),
              IsError(StatusCode::kInvalid, "column 'table_name' of table ods.t is also a source"));
  // The prefix names them.
  Sync prefixed(R"({warehouse: wh, database: ods, metadata-columns: table_name,
       metadata-column-prefix: __})");
  TableSchema p = prefixed.Create(In("shop", "t", {{"id", "INT"}}, {}));
  EXPECT_EQ(p.fields.back().name, "__table_name");
}

// The metadata values: a Kafka message's, and times as UTC instants (before 1970 too).
TEST(CdcMetadataTest, KafkaValuesAndTimes) {
  EXPECT_EQ(UtcMillisText(0), "1970-01-01 00:00:00.000Z");
  EXPECT_EQ(UtcMillisText(-1), "1969-12-31 23:59:59.999Z");
  EXPECT_EQ(UtcMillisText(951782400005), "2000-02-29 00:00:00.005Z");
  ASSERT_OK_AND_ASSIGN(
      std::vector<MetadataColumn> columns,
      ParseMetadataColumns({"topic", "partition", "offset", "timestamp", "timestamp_type"}, "k_",
                           "kafka", "canal-json"));
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(columns[1].name, "k_partition");
  EXPECT_EQ(columns[1].type->ToString(), "INT");
  EXPECT_EQ(columns[3].type->ToString(), "TIMESTAMP(3) WITH LOCAL TIME ZONE");
  cdc::CdcRecord r = Record({{"id", "INT"}});
  auto info = std::make_shared<cdc::KafkaMessageInfo>();
  info->topic = "orders";
  info->partition = 2;
  info->offset = 1811;
  info->timestamp_ms = 1700000000123;
  info->timestamp_type = "CreateTime";
  r.kafka = info;
  ASSERT_OK(AppendMetadataColumns(columns, &r));
  std::vector<std::string> values;
  for (const cdc::CdcColumn& c : r.columns)
    values.push_back(c.name + "=" + c.value.value_or("NULL"));
  EXPECT_EQ(values, (std::vector<std::string>{
                        "id=NULL", "k_topic=orders", "k_partition=2", "k_offset=1811",
                        "k_timestamp=2023-11-14 22:13:20.123Z", "k_timestamp_type=CreateTime"}));
  // Database and table names are NOT NULL: a message without them fails naming it.
  ASSERT_OK_AND_ASSIGN(columns, ParseMetadataColumns({"database_name"}, "", "kafka", "json"));
  r.database.reset();
  EXPECT_THAT(AppendMetadataColumns(columns, &r),
              IsError(StatusCode::kInvalid,
                      "test record: metadata column database_name (STRING NOT NULL): the message "
                      "names no database"));
}

// Columns a record lacks and type narrowings are logged once per table and column, and
// counted.
TEST(CdcTablesTest, MissingColumnsAreLoggedAndCountedOnce) {
  Sync s("{warehouse: wh, database: ods}");
  s.Create(In("shop", "t", {{"id", "INT NOT NULL"}, {"a", "STRING"}, {"b", "BIGINT"}}, {"id"}));
  s.log.clear();
  cdc::CdcRecord lacking = In("shop", "t", {{"id", "INT NOT NULL"}, {"b", "INT"}}, {"id"});
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(bool needs, s.tables->NeedsChange("ods.t", lacking, &s.log));
    EXPECT_FALSE(needs);
  }
  cdc::CdcRecord other = In("shop", "t", {{"id", "INT NOT NULL"}}, {"id"});
  ASSERT_OK_AND_ASSIGN(bool needs, s.tables->NeedsChange("ods.t", other, &s.log));
  EXPECT_FALSE(needs);
  EXPECT_EQ(s.tables->events().missing, 2);  // a, then b
  EXPECT_EQ(s.tables->events().ignored, 1);  // b BIGINT stays
  ASSERT_EQ(s.log.size(), 3u);
  EXPECT_EQ(s.log[0],
            "table ods.t: column b stays BIGINT, the narrower INT of test record is ignored (as "
            "Paimon does)");
  EXPECT_EQ(s.log[1],
            "table ods.t: column a is missing from test record (and maybe later records): NULL "
            "in their rows");
  EXPECT_THAT(s.log[2], ::testing::HasSubstr("column b is missing"));
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
