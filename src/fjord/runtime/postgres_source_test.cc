#include "fjord/runtime/postgres_source.h"

#include <arrow/api.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <thread>

#include "fjord/runtime/cdc_rows.h"
#include "fjord/testing/postgres_server.h"
#include "fjord/testing/require_component.h"
#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

using cdc::CdcRecord;
using testing::PostgresServer;

// "+I a id=1 name=x" (NULL values as NULL), for comparing whole streams.
std::string Show(const CdcRecord& r) {
  std::string out = std::string(cdc::ChangeKindName(r.kind)) + " " + r.table.value_or("?");
  for (const auto& c : r.columns) out += " " + c.name + "=" + c.value.value_or("NULL");
  return out;
}

std::vector<std::string> Show(const std::vector<CdcRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(Show(r));
  return out;
}

class PostgresSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FJORD_REQUIRE_COMPONENT(PostgresServer::Unavailable());
    std::string error;
    server_ = PostgresServer::Shared(&error);
    ASSERT_NE(server_, nullptr) << error;
    // Short names: identifiers end at 63 bytes.
    static int counter = 0;
    db_ = "db" + std::to_string(++counter) + "_" +
          Lower(::testing::UnitTest::GetInstance()->current_test_info()->name()).substr(0, 20);
    ASSERT_OK(server_->Execute("postgres", "CREATE DATABASE " + db_));
    created_ = true;
  }

  // The test's replication slots and database go with it: the server is shared by every test of
  // the process and holds max_replication_slots (20) slots, fewer than a whole run creates. A
  // slot is in use until its walsender has seen the source's connection close.
  void TearDown() override {
    if (!created_) return;
    const std::string slots = "FROM pg_replication_slots WHERE database = '" + db_ + "'";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (server_->Query("postgres", "SELECT 1 " + slots + " AND active").ValueOr({}).size() > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_OK(server_->Execute("postgres", "SELECT pg_drop_replication_slot(slot_name) " + slots));
    EXPECT_OK(server_->Execute("postgres", "DROP DATABASE " + db_ + " WITH (FORCE)"));
  }

  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  PostgresSourceSpec Spec() const {
    PostgresSourceSpec spec;
    spec.host = server_->host();
    spec.port = server_->port();
    spec.database = db_;
    spec.slot_name = "slot_" + db_;
    spec.publication_name = "pub_" + db_;
    spec.idle_wait_ms = 50;
    return spec;
  }

  void Sql(const std::string& sql) { ASSERT_OK(server_->Execute(db_, sql)); }

  std::string One(const std::string& sql) {
    auto rows = server_->Query(db_, sql);
    if (!rows.ok() || rows->empty() || rows->front().empty()) return "<none>";
    return rows->front().front();
  }

  // Reads until `n` records arrived (or 20 s passed), `max` per Next.
  static std::vector<CdcRecord> Read(CdcSource* source, size_t n, size_t max = 1000,
                                     const CdcCut& cut = nullptr) {
    std::vector<CdcRecord> all;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (all.size() < n && std::chrono::steady_clock::now() < deadline) {
      std::vector<CdcRecord> out;
      bool end = false;
      Status st = source->Next(false, max, cut, &out, &end);
      EXPECT_TRUE(st.ok()) << st.ToString();
      if (!st.ok()) break;
      for (auto& r : out) all.push_back(std::move(r));
    }
    return all;
  }

  // Reads for `ms` and returns what came (expected: nothing).
  static std::vector<CdcRecord> Drain(CdcSource* source, int ms = 600) {
    std::vector<CdcRecord> all;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < deadline) {
      std::vector<CdcRecord> out;
      bool end = false;
      EXPECT_OK(source->Next(false, 1000, nullptr, &out, &end));
      for (auto& r : out) all.push_back(std::move(r));
    }
    return all;
  }

  std::unique_ptr<CdcSource> Open(const PostgresSourceSpec& spec, const std::string& position) {
    auto source = MakePostgresSource(spec);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    if (!source.ok()) return nullptr;
    Status st = (*source)->Seek(position);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return st.ok() ? std::move(*source) : nullptr;
  }

  PostgresServer* server_ = nullptr;
  std::string db_;
  bool created_ = false;
};

TEST_F(PostgresSourceTest, SnapshotThenInsertsUpdatesDeletes) {
  Sql("CREATE TABLE a (id int PRIMARY KEY, name varchar(10));"
      "CREATE TABLE b (k bigint PRIMARY KEY, v text);"
      "CREATE TABLE other (x int PRIMARY KEY);"
      "ALTER TABLE b REPLICA IDENTITY FULL;"
      "INSERT INTO a VALUES (2, 'two'), (1, 'one');"
      "INSERT INTO b VALUES (10, NULL);"
      "INSERT INTO other VALUES (5)");
  PostgresSourceSpec spec = Spec();
  spec.tables = {"a", "public\\.b"};
  auto source = Open(spec, "");
  ASSERT_NE(source, nullptr);
  // The snapshot: tables in name order, rows in primary key order, all +I.
  std::vector<CdcRecord> snapshot = Read(source.get(), 3);
  EXPECT_THAT(Show(snapshot), ::testing::ElementsAre("+I a id=1 name=one", "+I a id=2 name=two",
                                                     "+I b k=10 v=NULL"));
  ASSERT_EQ(snapshot.size(), 3u);
  EXPECT_EQ(snapshot[0].database, db_);
  EXPECT_EQ(snapshot[0].primary_keys, std::vector<std::string>{"id"});
  // Primary keys are NOT NULL in PostgreSQL, so in the records (as in Java).
  EXPECT_EQ(snapshot[0].columns[0].type->ToString(), DataType::Int(false)->ToString());
  EXPECT_EQ(snapshot[0].columns[1].type->ToString(), DataType::VarChar(10)->ToString());
  EXPECT_EQ(snapshot[2].columns[0].type->ToString(), DataType::BigInt(false)->ToString());
  EXPECT_EQ(snapshot[0].origin, "postgres " + db_ + " snapshot of public.a");
  // Java's metadata columns: the schema; a snapshot read's op_ts is 0.
  EXPECT_EQ(snapshot[0].schema, "public");
  EXPECT_EQ(snapshot[0].op_ts_ms, 0);

  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before_ms = now_ms();
  Sql("INSERT INTO a VALUES (3, 'three');"
      "UPDATE a SET name = 'uno' WHERE id = 1;"  // default identity, key unchanged: no old row
      "UPDATE a SET id = 4 WHERE id = 2;"        // key changed: the old key is sent
      "DELETE FROM a WHERE id = 3;"              // the key only
      "UPDATE b SET v = 'ten' WHERE k = 10;"     // REPLICA IDENTITY FULL: the whole old row
      "INSERT INTO other VALUES (6);"            // not included
      "BEGIN; INSERT INTO a VALUES (7, 'seven'); INSERT INTO b VALUES (70, 'x');"
      "DELETE FROM b WHERE k = 10; COMMIT");
  std::vector<CdcRecord> changes = Read(source.get(), 10);
  EXPECT_THAT(Show(changes),
              ::testing::ElementsAre("+I a id=3 name=three", "+I a id=1 name=uno", "-D a id=2",
                                     "+I a id=4 name=two", "-D a id=3", "-D b k=10 v=NULL",
                                     "+I b k=10 v=ten", "+I a id=7 name=seven", "+I b k=70 v=x",
                                     "-D b k=10 v=ten"));
  EXPECT_TRUE(Drain(source.get()).empty());
  ASSERT_EQ(changes.size(), 10u);
  // op_ts: the commit time of each change's transaction (the last three share one).
  for (const CdcRecord& r : changes) {
    ASSERT_TRUE(r.op_ts_ms.has_value());
    EXPECT_GE(*r.op_ts_ms, before_ms - 1000);
    EXPECT_LE(*r.op_ts_ms, now_ms() + 1000);
    EXPECT_EQ(r.schema, "public");
  }
  EXPECT_EQ(changes[7].op_ts_ms, changes[9].op_ts_ms);
  EXPECT_LE(*changes[0].op_ts_ms, *changes[9].op_ts_ms);
  // The third change of its transaction (-D and +I of the key update share it).
  EXPECT_THAT(changes[3].origin, ::testing::MatchesRegex(".* slot slot_" + db_ +
                                                         " transaction [0-9A-F]+/[0-9A-F]+ "
                                                         "change 3"));
}

TEST_F(PostgresSourceTest, SchemaChangesMidStream) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, name varchar(10));"
      "INSERT INTO t VALUES (1, 'a')");
  auto source = Open(Spec(), "");
  ASSERT_NE(source, nullptr);
  ASSERT_EQ(Read(source.get(), 1).size(), 1u);
  Sql("INSERT INTO t VALUES (2, 'b');"
      "ALTER TABLE t ADD COLUMN extra numeric(8,3);"
      "INSERT INTO t VALUES (3, 'c', 1.5);"
      "ALTER TABLE t ALTER COLUMN id TYPE bigint, ALTER COLUMN name TYPE varchar(20);"
      "INSERT INTO t VALUES (4, 'a longer name', NULL)");
  std::vector<CdcRecord> r = Read(source.get(), 3);
  EXPECT_THAT(Show(r), ::testing::ElementsAre("+I t id=2 name=b", "+I t id=3 name=c extra=1.500",
                                              "+I t id=4 name=a longer name extra=NULL"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].columns[0].type->ToString(), DataType::Int(false)->ToString());
  EXPECT_EQ(r[1].columns[2].type->ToString(), DataType::Decimal(8, 3)->ToString());
  EXPECT_EQ(r[2].columns[0].type->ToString(), DataType::BigInt(false)->ToString());
  EXPECT_EQ(r[2].columns[1].type->ToString(), DataType::VarChar(20)->ToString());
  EXPECT_EQ(r[2].primary_keys, std::vector<std::string>{"id"});
}

TEST_F(PostgresSourceTest, PositionsResumeMidTransactionAndCommittedConfirmsTheSlot) {
  Sql("CREATE TABLE t (id int PRIMARY KEY)");
  auto source = Open(Spec(), "");
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(Drain(source.get(), 300).empty());  // the snapshot: empty
  std::string start = source->Position();
  Sql("BEGIN; INSERT INTO t SELECT generate_series(1, 5); COMMIT;"
      "BEGIN; INSERT INTO t SELECT generate_series(6, 8); COMMIT");
  // One record per call: positions inside the first transaction.
  std::vector<CdcRecord> first = Read(source.get(), 3, 1);
  ASSERT_EQ(first.size(), 3u);
  std::string mid = source->Position();
  EXPECT_NE(mid.find("\"skip\":3"), std::string::npos) << mid;
  std::vector<CdcRecord> rest = Read(source.get(), 3, 1);
  ASSERT_EQ(rest.size(), 3u);
  std::string into_second = source->Position();  // 5 of the first, 1 of the second

  // A new source at `mid` delivers exactly the rest: ids 4..8.
  source.reset();  // the slot can serve one connection at a time
  auto resumed = Open(Spec(), mid);
  ASSERT_NE(resumed, nullptr);
  EXPECT_THAT(
      Show(Read(resumed.get(), 5)),
      ::testing::ElementsAre("+I t id=4", "+I t id=5", "+I t id=6", "+I t id=7", "+I t id=8"));
  EXPECT_TRUE(Drain(resumed.get(), 300).empty());
  resumed.reset();

  // Nothing confirmed yet: the start position still has everything.
  auto from_start = Open(Spec(), start);
  ASSERT_NE(from_start, nullptr);
  EXPECT_EQ(Read(from_start.get(), 8).size(), 8u);
  // Committed up to `into_second`: the slot moves to the end of the first transaction only.
  std::string before =
      One("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE "
          "slot_name = 'slot_" +
          db_ + "'");
  from_start->Committed(into_second);
  Drain(from_start.get(), 300);  // the status update goes out from Next
  std::string after =
      One("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE "
          "slot_name = 'slot_" +
          db_ + "'");
  EXPECT_EQ(One("SELECT '" + after + "'::pg_lsn > '" + before + "'::pg_lsn"), "t")
      << before << " -> " << after;
  // Exactly to the position's "lsn" (the first transaction, whole), not into the second one.
  EXPECT_NE(into_second.find("\"lsn\":\"" + after + "\""), std::string::npos)
      << into_second << " confirmed " << after;
  from_start.reset();

  // The restart from `into_second` (not confirmed beyond) still gets ids 7 and 8.
  auto after_crash = Open(Spec(), into_second);
  ASSERT_NE(after_crash, nullptr);
  EXPECT_THAT(Show(Read(after_crash.get(), 2)), ::testing::ElementsAre("+I t id=7", "+I t id=8"));
  after_crash.reset();
  // The start position is behind the confirmed one now: refused, naming the slot.
  auto source2 = MakePostgresSource(Spec());
  ASSERT_TRUE(source2.ok());
  EXPECT_THAT((*source2)->Seek(start), IsError(StatusCode::kInvalid, "slot_" + db_));
}

TEST_F(PostgresSourceTest, TypesAndValuesAsJava) {
  // timestamptz values are wall-clock times of the process's zone (as Java's, of the JVM's).
  setenv("TZ", "UTC", 1);
  tzset();
  Sql("CREATE TYPE mood AS ENUM ('sad', 'happy');"
      "CREATE TABLE ty (id int PRIMARY KEY, i2 int2, i8 int8, n numeric(10,2), nn numeric,"
      " f4 float4, f8 float8, b bool, t text, vc varchar(5), c char(3), by bytea, d date,"
      " tm time(3), ts timestamp(3), ts6 timestamp, tz timestamptz, j json, jb jsonb, u uuid,"
      " ai int4[], at text[], m mood);"
      "ALTER TABLE ty REPLICA IDENTITY FULL");
  const std::string row =
      "-3, 9000000000, 12.5, 0.1, 1.5, 2.25, true, 'txt', 'ab', 'x', '\\x00ff', '2024-02-29',"
      " '10:11:12.345', '2024-01-02 03:04:05.6', '2024-01-02 03:04:05.123456',"
      " '2024-01-02 03:04:05.5+02', '{\"a\":1}', '{\"b\":  2}',"
      " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,NULL,3}', '{\"x y\",z}', 'happy'";
  Sql("INSERT INTO ty VALUES (1, " + row + "); INSERT INTO ty (id) VALUES (2)");
  auto source = Open(Spec(), "");
  ASSERT_NE(source, nullptr);
  std::vector<CdcRecord> snapshot = Read(source.get(), 2);
  Sql("INSERT INTO ty VALUES (3, " + row + "); INSERT INTO ty (id) VALUES (4)");
  std::vector<CdcRecord> streamed = Read(source.get(), 2);
  ASSERT_EQ(snapshot.size(), 2u);
  ASSERT_EQ(streamed.size(), 2u);

  // Types: Java's PostgresTypeUtils.toDataType.
  const std::vector<std::pair<std::string, DataTypePtr>> types = {
      {"id", DataType::Int(false)},
      {"i2", DataType::SmallInt()},
      {"i8", DataType::BigInt()},
      {"n", DataType::Decimal(10, 2)},
      {"nn", DataType::Decimal(38, 18)},
      {"f4", DataType::Float()},
      {"f8", DataType::Double()},
      {"b", DataType::Boolean()},
      {"t", DataType::String()},
      {"vc", DataType::VarChar(5)},
      {"c", DataType::Char(3)},
      {"by", DataType::Bytes()},
      {"d", DataType::Date()},
      {"tm", DataType::Time(3)},
      {"ts", DataType::Timestamp(3)},
      {"ts6", DataType::Timestamp(6)},
      {"tz", DataType::TimestampLtz(6)},
      {"j", DataType::String()},
      {"jb", DataType::String()},
      {"u", DataType::String()},
      {"ai", DataType::Array(DataType::Int())},
      {"at", DataType::Array(DataType::String())},
      {"m", DataType::String()}};
  // Values: the text castFromCdcValueString takes, as Java's PostgresRecordParser gives it.
  const std::vector<std::string> values = {"-3",
                                           "9000000000",
                                           "12.50",
                                           "0.1",
                                           "1.5",
                                           "2.25",
                                           "true",
                                           "txt",
                                           "ab",
                                           "x  ",
                                           std::string("\0\xff", 2),
                                           "2024-02-29",
                                           "10:11:12.345",
                                           "2024-01-02 03:04:05.600",
                                           "2024-01-02 03:04:05.123456",
                                           "2024-01-02 01:04:05.500000",
                                           "{\"a\":1}",
                                           "{\"b\": 2}",
                                           "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                                           "[\"1\",null,\"3\"]",
                                           "[\"x y\",\"z\"]",
                                           "happy"};
  for (const auto* records : {&snapshot, &streamed}) {
    const CdcRecord& full = (*records)[0];
    const CdcRecord& nulls = (*records)[1];
    ASSERT_EQ(full.columns.size(), types.size());
    ASSERT_EQ(nulls.columns.size(), types.size());
    for (size_t i = 0; i < types.size(); ++i) {
      EXPECT_EQ(full.columns[i].name, types[i].first);
      EXPECT_EQ(full.columns[i].type->ToString(), types[i].second->ToString()) << types[i].first;
      if (i > 0) {
        EXPECT_EQ(full.columns[i].value.value_or("NULL"), values[i - 1]) << types[i].first;
        EXPECT_FALSE(nulls.columns[i].value.has_value()) << types[i].first;
      }
    }
  }
  // An update of the full row: -D of the old row, +I of the new, one message.
  Sql("UPDATE ty SET b = false, by = '\\x41' WHERE id = 1");
  std::vector<CdcRecord> update = Read(source.get(), 2, 1);
  ASSERT_EQ(update.size(), 2u);
  EXPECT_EQ(update[0].kind, cdc::ChangeKind::kDelete);
  EXPECT_EQ(update[0].Find("b")->value, "true");
  EXPECT_EQ(update[1].kind, cdc::ChangeKind::kInsert);
  EXPECT_EQ(update[1].Find("b")->value, "false");
  EXPECT_EQ(update[1].Find("by")->value, "A");
}

TEST_F(PostgresSourceTest, SnapshotResumesAfterTheLastKeyHandedOut) {
  Sql("CREATE TABLE big (id int PRIMARY KEY, v text);"
      "CREATE TABLE small (id int PRIMARY KEY);"
      "INSERT INTO big SELECT i, 'v' || i FROM generate_series(1, 10) i;"
      "INSERT INTO small VALUES (1), (2)");
  PostgresSourceSpec spec = Spec();
  spec.snapshot_fetch_rows = 3;
  std::string position;
  {
    auto source = Open(spec, "");
    ASSERT_NE(source, nullptr);
    EXPECT_THAT(Show(Read(source.get(), 4, 1)),
                ::testing::ElementsAre("+I big id=1 v=v1", "+I big id=2 v=v2", "+I big id=3 v=v3",
                                       "+I big id=4 v=v4"));
    position = source->Position();
  }
  EXPECT_NE(position.find("\"table\":\"public.big\",\"after\":[\"4\"]"), std::string::npos)
      << position;
  // Meanwhile (the crashed job's exported snapshot is gone): a new row and an update.
  Sql("INSERT INTO big VALUES (11, 'v11'); UPDATE big SET v = 'changed' WHERE id = 2");
  auto resumed = Open(spec, position);
  ASSERT_NE(resumed, nullptr);
  // The rest of the snapshot in a new snapshot (so with id 11), then the slot's changes since
  // its creation, replayed over it: the same rows in the end.
  EXPECT_THAT(Show(Read(resumed.get(), 11)),
              ::testing::ElementsAre("+I big id=5 v=v5", "+I big id=6 v=v6", "+I big id=7 v=v7",
                                     "+I big id=8 v=v8", "+I big id=9 v=v9", "+I big id=10 v=v10",
                                     "+I big id=11 v=v11", "+I small id=1", "+I small id=2",
                                     "+I big id=11 v=v11", "+I big id=2 v=changed"));
}

TEST_F(PostgresSourceTest, CutKeepsAMessageBackWhole) {
  Sql("CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b (id int PRIMARY KEY);"
      "ALTER TABLE b REPLICA IDENTITY FULL; INSERT INTO b VALUES (1)");
  auto source = Open(Spec(), "");
  ASSERT_NE(source, nullptr);
  ASSERT_EQ(Read(source.get(), 1).size(), 1u);
  Sql("BEGIN; INSERT INTO a VALUES (1); INSERT INTO a VALUES (2);"
      "UPDATE b SET id = 5 WHERE id = 1; INSERT INTO a VALUES (3); COMMIT");
  // The whole transaction is on the socket before the first Next.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CdcCut cut = [](const CdcRecord& r) { return r.table == "b"; };
  std::vector<std::vector<std::string>> batches;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  size_t total = 0;
  while (total < 5 && std::chrono::steady_clock::now() < deadline) {
    std::vector<CdcRecord> out;
    bool end = false;
    ASSERT_OK(source->Next(false, 100, cut, &out, &end));
    if (!out.empty()) batches.push_back(Show(out));
    total += out.size();
  }
  // The update of b (-D and +I, one message) starts a batch and is not split.
  EXPECT_THAT(batches, ::testing::ElementsAre(
                           ::testing::ElementsAre("+I a id=1", "+I a id=2"),
                           ::testing::ElementsAre("-D b id=1", "+I b id=5", "+I a id=3")));
}

// Next(bounded) until it says end (or 20 s pass); `*ended` whether it did.
std::vector<std::string> ReadBounded(CdcSource* source, bool* ended) {
  std::vector<std::string> got;
  bool end = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!end && std::chrono::steady_clock::now() < deadline) {
    std::vector<CdcRecord> out;
    Status st = source->Next(true, 100, nullptr, &out, &end);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) break;
    for (const auto& r : out) got.push_back(Show(r));
  }
  *ended = end;
  return got;
}

TEST_F(PostgresSourceTest, BoundedEndsAtTheWalEndOfSeek) {
  Sql("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)");
  std::string position;
  bool end = false;
  {
    // From the beginning: the snapshot, then the stream up to the WAL end of Seek.
    auto source = Open(Spec(), "");
    ASSERT_NE(source, nullptr);
    EXPECT_THAT(ReadBounded(source.get(), &end), ::testing::ElementsAre("+I t id=1"));
    EXPECT_TRUE(end);
    position = source->Position();
  }
  // Committed asynchronously (the test server's synchronous_commit is off): still before the
  // WAL end the next Seek reads.
  Sql("INSERT INTO t VALUES (2); INSERT INTO t VALUES (3)");
  auto source = Open(Spec(), position);
  ASSERT_NE(source, nullptr);
  EXPECT_THAT(ReadBounded(source.get(), &end), ::testing::ElementsAre("+I t id=2", "+I t id=3"));
  EXPECT_TRUE(end);
}

TEST_F(PostgresSourceTest, ClearErrors) {
  Sql("CREATE TABLE t (id int PRIMARY KEY); CREATE TABLE u (id int PRIMARY KEY)");
  PostgresSourceSpec spec = Spec();
  {
    PostgresSourceSpec bad = spec;
    bad.port = 1;
    ASSERT_OK_AND_ASSIGN(auto source, MakePostgresSource(bad));
    EXPECT_THAT(source->Seek(""), IsError(StatusCode::kIOError, "127.0.0.1:1 database " + db_));
  }
  {
    PostgresSourceSpec bad = spec;
    bad.database = "no_such_db";
    ASSERT_OK_AND_ASSIGN(auto source, MakePostgresSource(bad));
    EXPECT_THAT(source->Seek(""), IsError(StatusCode::kIOError, "no_such_db"));
  }
  {
    PostgresSourceSpec bad = spec;
    bad.tables = {"nothing.*"};
    ASSERT_OK_AND_ASSIGN(auto source, MakePostgresSource(bad));
    EXPECT_THAT(source->Seek(""), IsError(StatusCode::kNotFound, "no table of schema(s) public"));
  }
  {
    PostgresSourceSpec bad = spec;
    bad.tables = {"("};
    EXPECT_THAT(MakePostgresSource(bad), IsError(StatusCode::kInvalid, "bad table pattern '('"));
  }
  {
    PostgresSourceSpec bad = spec;
    bad.create_slot = false;
    ASSERT_OK_AND_ASSIGN(auto source, MakePostgresSource(bad));
    EXPECT_THAT(source->Seek(""),
                IsError(StatusCode::kNotFound, "replication slot " + spec.slot_name));
  }
  {
    // A publication someone made (not ours to change) that lacks an included table.
    PostgresSourceSpec other = spec;
    other.publication_name = "only_t";
    other.create_publication = false;
    Sql("CREATE PUBLICATION only_t FOR TABLE t");
    ASSERT_OK_AND_ASSIGN(auto source, MakePostgresSource(other));
    EXPECT_THAT(source->Seek(""), IsError(StatusCode::kInvalid,
                                          "table public.u is not in "
                                          "publication only_t"));
  }
  // The slot in use by another source.
  auto first = Open(spec, "");
  ASSERT_NE(first, nullptr);
  Drain(first.get(), 200);  // the (empty) snapshot, then streaming
  ASSERT_OK_AND_ASSIGN(auto second, MakePostgresSource(spec));
  Status st = second->Seek(first->Position());
  EXPECT_THAT(st, IsError(StatusCode::kIOError, spec.slot_name));
  EXPECT_THAT(st, IsError(StatusCode::kIOError, "active"));
  first.reset();

  // A truncate of an included table (a publication that publishes them) is refused by name.
  Sql("CREATE PUBLICATION with_truncate FOR TABLE t, u");
  PostgresSourceSpec truncating = spec;
  truncating.publication_name = "with_truncate";
  truncating.slot_name = spec.slot_name + "_2";
  auto source = Open(truncating, "");
  ASSERT_NE(source, nullptr);
  Drain(source.get(), 200);
  Sql("INSERT INTO u VALUES (1); TRUNCATE u");
  Status truncated;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (truncated.ok() && std::chrono::steady_clock::now() < deadline) {
    std::vector<CdcRecord> out;
    bool end = false;
    truncated = source->Next(false, 100, nullptr, &out, &end);
  }
  EXPECT_THAT(truncated, IsError(StatusCode::kNotImplemented, "table public.u was truncated"));
}

TEST_F(PostgresSourceTest, UnsupportedTypeIsNamedAndToStringTakesIt) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, span interval); INSERT INTO t VALUES (1, '1 day')");
  {
    auto source = Open(Spec(), "");
    ASSERT_NE(source, nullptr);
    std::vector<CdcRecord> out;
    bool end = false;
    EXPECT_THAT(source->Next(false, 10, nullptr, &out, &end),
                IsError(StatusCode::kNotImplemented, "column span of public.t has type interval"));
  }
  PostgresSourceSpec spec = Spec();
  spec.type_mapping.Add(cdc::TypeMappingMode::kToString);
  auto source = Open(spec, "");
  ASSERT_NE(source, nullptr);
  std::vector<CdcRecord> r = Read(source.get(), 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(Show(r[0]), "+I t id=1 span=1 day");
  EXPECT_EQ(r[0].columns[0].type->ToString(), DataType::String(false)->ToString());
  EXPECT_EQ(r[0].columns[1].type->ToString(), DataType::String()->ToString());
}

// As Java's postgres_sync_table: a table without a primary key is refused (its rows could come
// twice after a restart inside its snapshot), before the publication and the slot are created.
TEST_F(PostgresSourceTest, TableWithoutPrimaryKeyIsRefused) {
  Sql("CREATE TABLE logs (line text); INSERT INTO logs VALUES ('a'), ('b');"
      "CREATE TABLE t (id int PRIMARY KEY)");
  auto source = MakePostgresSource(Spec());
  ASSERT_OK(source.status());
  EXPECT_THAT((*source)->Seek(""),
              IsError(StatusCode::kInvalid,
                      "table public.logs has no primary key; the PostgreSQL source reads only "
                      "tables with one"));
  EXPECT_EQ(One("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'slot_" + db_ + "'"),
            "0");
  EXPECT_EQ(One("SELECT count(*) FROM pg_publication WHERE pubname = 'pub_" + db_ + "'"), "0");
  // Left out of the patterns, the rest is read.
  PostgresSourceSpec spec = Spec();
  spec.tables = {"t"};
  EXPECT_NE(Open(spec, ""), nullptr);
}

TEST_F(PostgresSourceTest, FreshStartWithAnExistingSlotSnapshotsThenReplaysTheSlot) {
  Sql("CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a')");
  {
    auto source = Open(Spec(), "");
    ASSERT_NE(source, nullptr);
    ASSERT_EQ(Read(source.get(), 1).size(), 1u);
  }
  // Changes the slot holds (nothing was confirmed), then a start without position.
  Sql("INSERT INTO t VALUES (2, 'b'); UPDATE t SET v = 'a2' WHERE id = 1");
  auto source = Open(Spec(), "");
  ASSERT_NE(source, nullptr);
  EXPECT_THAT(
      Show(Read(source.get(), 4)),
      ::testing::ElementsAre("+I t id=1 v=a2", "+I t id=2 v=b", "+I t id=2 v=b", "+I t id=1 v=a2"));
}

// The rows a stream of records leaves in a primary-key table: "table key" -> "+I ..." record.
using TableState = std::map<std::string, std::string>;

void Apply(const std::vector<CdcRecord>& records, TableState* state) {
  for (const auto& r : records) {
    std::string key = r.table.value_or("?");
    for (const auto& k : r.primary_keys) {
      const cdc::CdcColumn* c = r.Find(k);
      key += " " + k + "=" + (c && c->value ? *c->value : "NULL");
    }
    if (r.kind == cdc::ChangeKind::kDelete) {
      state->erase(key);
    } else {
      (*state)[key] = Show(r);
    }
  }
}

class PostgresNewTableTest : public PostgresSourceTest {
 protected:
  // What PostgreSQL holds of table `t` (columns id, v), as +I records.
  TableState Holds(const std::string& t) {
    TableState out;
    auto rows = server_->Query(db_, "SELECT id, v FROM " + t + " ORDER BY id");
    EXPECT_TRUE(rows.ok());
    if (!rows.ok()) return out;
    for (const auto& row : *rows) {
      out[t + " id=" + row[0]] = "+I " + t + " id=" + row[0] + " v=" + row[1];
    }
    return out;
  }
  static TableState Only(const TableState& s, const std::string& t) {
    TableState out;
    for (const auto& [k, v] : s) {
      if (k.rfind(t + " ", 0) == 0) out[k] = v;
    }
    return out;
  }
};

TEST_F(PostgresNewTableTest, WholeSchemasPublishNewTablesFromTheirCreate) {
  Sql("CREATE TABLE a (id int PRIMARY KEY, v text)");
  auto source = Open(Spec(), "");
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(Drain(source.get(), 300).empty());
  // No `tables`: the publication is FOR TABLES IN SCHEMA, the position lists no tables.
  EXPECT_EQ(One("SELECT count(*) FROM pg_publication_namespace p JOIN pg_publication b ON "
                "b.oid = p.pnpubid WHERE b.pubname = 'pub_" +
                db_ + "'"),
            "1");
  EXPECT_EQ(source->Position().find("tables"), std::string::npos) << source->Position();
  // Rows written in the CREATE's own transaction and right after it: all in the stream.
  Sql("CREATE TABLE n (id int PRIMARY KEY, v text); INSERT INTO n VALUES (1, 'a'), (2, 'b')");
  Sql("INSERT INTO n VALUES (3, 'c'); UPDATE n SET v = 'a2' WHERE id = 1;"
      "DELETE FROM n WHERE id = 2; INSERT INTO a VALUES (1, 'x')");
  std::vector<CdcRecord> first = Read(source.get(), 3, 1);
  std::string mid = source->Position();
  std::vector<CdcRecord> rest = Read(source.get(), 3);
  EXPECT_THAT(Show(first),
              ::testing::ElementsAre("+I n id=1 v=a", "+I n id=2 v=b", "+I n id=3 v=c"));
  EXPECT_THAT(Show(rest), ::testing::ElementsAre("+I n id=1 v=a2", "-D n id=2", "+I a id=1 v=x"));
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first[0].primary_keys, std::vector<std::string>{"id"});
  EXPECT_TRUE(Drain(source.get(), 300).empty());
  TableState state;
  Apply(first, &state);
  Apply(rest, &state);
  EXPECT_EQ(Only(state, "n"), Holds("n"));
  source.reset();
  // A restart from the middle: exactly the rest.
  auto resumed = Open(Spec(), mid);
  ASSERT_NE(resumed, nullptr);
  EXPECT_THAT(Show(Read(resumed.get(), 3)),
              ::testing::ElementsAre("+I n id=1 v=a2", "-D n id=2", "+I a id=1 v=x"));
  EXPECT_TRUE(Drain(resumed.get(), 300).empty());
}

// A table created later without a primary key stops the source naming it: under a schema
// publication at its first change, under a listed one when it is found (and not added).
TEST_F(PostgresNewTableTest, NewTableWithoutPrimaryKeyIsRefused) {
  Sql("CREATE TABLE a (id int PRIMARY KEY, v text)");
  for (bool listed : {false, true}) {
    SCOPED_TRACE(listed ? "listed publication" : "schema publication");
    PostgresSourceSpec spec = Spec();
    spec.slot_name += listed ? "_l" : "_s";
    spec.publication_name += listed ? "_l" : "_s";
    if (listed) spec.tables = {"a", "logs2"};
    spec.discovery_interval_ms = 100;
    auto source = Open(spec, "");
    ASSERT_NE(source, nullptr);
    EXPECT_TRUE(Drain(source.get(), 200).empty());
    std::string table = listed ? "logs2" : "logs1";
    Sql("CREATE TABLE " + table + " (line text); INSERT INTO " + table + " VALUES ('x')");
    Status st;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (st.ok() && std::chrono::steady_clock::now() < deadline) {
      std::vector<CdcRecord> out;
      bool end = false;
      st = source->Next(false, 100, nullptr, &out, &end);
      EXPECT_TRUE(out.empty());
    }
    EXPECT_THAT(st, IsError(StatusCode::kInvalid, "table public." + table + " has no primary key"));
    if (listed) {
      EXPECT_EQ(One("SELECT count(*) FROM pg_publication_tables WHERE pubname = '" +
                    spec.publication_name + "' AND tablename = 'logs2'"),
                "0");
    }
  }
}

TEST_F(PostgresNewTableTest, ListedPublicationAddsNewTablesAndReadsTheirSnapshot) {
  Sql("CREATE TABLE a (id int PRIMARY KEY, v text)");
  PostgresSourceSpec spec = Spec();
  spec.tables = {"a", "n.*"};
  spec.discovery_interval_ms = 200;
  auto source = Open(spec, "");
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(Drain(source.get(), 300).empty());
  std::string before = source->Position();
  EXPECT_NE(before.find("\"tables\":[" + One("SELECT 'a'::regclass::oid") + "]"), std::string::npos)
      << before;
  // Written before the source notices the table (it is not published yet): its snapshot has it.
  Sql("CREATE TABLE n1 (id int PRIMARY KEY, v text); CREATE TABLE other (id int PRIMARY KEY);"
      "INSERT INTO n1 VALUES (1, 'a'), (2, 'b'), (3, 'c'); UPDATE n1 SET v = 'b2' WHERE id = 2;"
      "DELETE FROM n1 WHERE id = 3");
  std::vector<CdcRecord> snapshot = Read(source.get(), 2);
  EXPECT_THAT(Show(snapshot), ::testing::ElementsAre("+I n1 id=1 v=a", "+I n1 id=2 v=b2"));
  EXPECT_EQ(One("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_publication_tables "
                "WHERE pubname = 'pub_" +
                db_ + "'"),
            "a,n1");
  std::string after_snapshot = source->Position();
  // After it was noticed: its changes from the stream, in order.
  Sql("INSERT INTO n1 VALUES (4, 'd'); UPDATE n1 SET v = 'a2' WHERE id = 1;"
      "DELETE FROM n1 WHERE id = 2; INSERT INTO a VALUES (1, 'x')");
  std::vector<CdcRecord> changes = Read(source.get(), 4);
  EXPECT_THAT(Show(changes), ::testing::ElementsAre("+I n1 id=4 v=d", "+I n1 id=1 v=a2",
                                                    "-D n1 id=2", "+I a id=1 v=x"));
  EXPECT_TRUE(Drain(source.get(), 500).empty());
  TableState state;
  Apply(snapshot, &state);
  Apply(changes, &state);
  EXPECT_EQ(Only(state, "n1"), Holds("n1"));
  source.reset();

  // A restart from before the table was noticed: found again, read from a new snapshot, its
  // earlier changes dropped from the stream (they are in that snapshot): no duplicates.
  {
    auto again = Open(spec, before);
    ASSERT_NE(again, nullptr);
    std::vector<CdcRecord> got = Read(again.get(), 3);
    EXPECT_THAT(Show(got),
                ::testing::ElementsAre("+I n1 id=1 v=a2", "+I n1 id=4 v=d", "+I a id=1 v=x"));
    EXPECT_TRUE(Drain(again.get(), 500).empty());
  }
  // A restart after its snapshot: exactly the changes after it.
  {
    auto again = Open(spec, after_snapshot);
    ASSERT_NE(again, nullptr);
    EXPECT_THAT(
        Show(Read(again.get(), 4)),
        ::testing::ElementsAre("+I n1 id=4 v=d", "+I n1 id=1 v=a2", "-D n1 id=2", "+I a id=1 v=x"));
    EXPECT_TRUE(Drain(again.get(), 500).empty());
  }
}

TEST_F(PostgresNewTableTest, ChangesBeforeItsSnapshotAreDroppedAndARestartInsideItsSnapshot) {
  // A publication someone else manages: they add the table; the changes the stream carries from
  // that moment until the source's snapshot of the table are in that snapshot.
  Sql("CREATE TABLE a (id int PRIMARY KEY, v text); CREATE PUBLICATION mine FOR TABLE a");
  PostgresSourceSpec spec = Spec();
  spec.publication_name = "mine";
  spec.create_publication = false;
  spec.tables = {"a", "n2"};
  spec.snapshot_fetch_rows = 1;
  spec.discovery_interval_ms = 60000;  // found through its first published change
  auto source = Open(spec, "");
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(Drain(source.get(), 300).empty());
  std::string before = source->Position();
  Sql("CREATE TABLE n2 (id int PRIMARY KEY, v text); INSERT INTO n2 VALUES (1, 'a')");
  Sql("ALTER PUBLICATION mine ADD TABLE n2; INSERT INTO n2 VALUES (2, 'b'), (3, 'c');"
      "UPDATE n2 SET v = 'a2' WHERE id = 1");
  std::vector<CdcRecord> first = Read(source.get(), 1, 1);
  EXPECT_THAT(Show(first), ::testing::ElementsAre("+I n2 id=1 v=a2"));
  std::string inside = source->Position();
  EXPECT_NE(inside.find("\"after\":[\"1\"],\"rows\":1"), std::string::npos) << inside;
  std::vector<CdcRecord> rest = Read(source.get(), 2);
  EXPECT_THAT(Show(rest), ::testing::ElementsAre("+I n2 id=2 v=b", "+I n2 id=3 v=c"));
  EXPECT_TRUE(Drain(source.get(), 500).empty());  // the stream's copies were dropped
  source.reset();

  // Meanwhile: changes of rows read and of rows not read yet.
  Sql("UPDATE n2 SET v = 'c2' WHERE id = 3; DELETE FROM n2 WHERE id = 1");
  // Inside its snapshot: the rest in a new snapshot, then the stream from its snapshot's point
  // replayed over it (primary-key rows end as PostgreSQL holds them).
  auto resumed = Open(spec, inside);
  ASSERT_NE(resumed, nullptr);
  std::vector<CdcRecord> got = Read(resumed.get(), 4);
  EXPECT_THAT(Show(got), ::testing::ElementsAre("+I n2 id=2 v=b", "+I n2 id=3 v=c2",
                                                "+I n2 id=3 v=c2", "-D n2 id=1"));
  EXPECT_TRUE(Drain(resumed.get(), 500).empty());
  TableState state;
  Apply(first, &state);
  Apply(got, &state);
  EXPECT_EQ(Only(state, "n2"), Holds("n2"));
  resumed.reset();

  // From before it was added: found at the first change the stream sends of it.
  auto again = Open(spec, before);
  ASSERT_NE(again, nullptr);
  EXPECT_THAT(Show(Read(again.get(), 2)),
              ::testing::ElementsAre("+I n2 id=2 v=b", "+I n2 id=3 v=c2"));
  EXPECT_TRUE(Drain(again.get(), 500).empty());
}

TEST_F(PostgresNewTableTest, BoundedReadsATableCreatedBeforeSeek) {
  Sql("CREATE TABLE a (id int PRIMARY KEY, v text)");
  PostgresSourceSpec spec = Spec();
  spec.tables = {"a", "n3"};
  std::string position;
  bool end = false;
  {
    auto source = Open(spec, "");
    ASSERT_NE(source, nullptr);
    EXPECT_TRUE(ReadBounded(source.get(), &end).empty());
    EXPECT_TRUE(end);
    position = source->Position();
  }
  Sql("CREATE TABLE n3 (id int PRIMARY KEY, v text); INSERT INTO n3 VALUES (1, 'a');"
      "INSERT INTO a VALUES (1, 'x')");
  auto source = Open(spec, position);
  ASSERT_NE(source, nullptr);
  // The end waits for the check for new tables and their snapshot.
  EXPECT_THAT(ReadBounded(source.get(), &end),
              ::testing::ElementsAre("+I n3 id=1 v=a", "+I a id=1 v=x"));
  EXPECT_TRUE(end);
}

// Nullability as Java's postgres_sync_table: a NOT NULL column is NOT NULL in the records (and
// so in the table a job creates from them), in the snapshot and in the stream, unless
// `to-nullable`. A key-only old row (REPLICA IDENTITY DEFAULT: a delete, an update of the key)
// carries its type's zero value for each NOT NULL column, as Debezium fills it in, and the rows
// then fit a table of those types.
TEST_F(PostgresSourceTest, NotNullColumnsUnlessToNullable) {
  setenv("TZ", "UTC", 1);
  tzset();
  Sql("CREATE TABLE nn (id int PRIMARY KEY, n int NOT NULL, s varchar(8) NOT NULL,"
      " d date NOT NULL, v numeric(5,2) NOT NULL, b bool NOT NULL, ts timestamp NOT NULL,"
      " tz timestamptz NOT NULL, by bytea NOT NULL, a int[] NOT NULL, x text);"
      "INSERT INTO nn VALUES (1, 5, 'a', '2024-01-02', 1.5, true, '2024-01-01 10:00:00',"
      " '2024-01-01 10:00:00+00', '\\x01', '{1}', 'x')");
  const std::string row =
      "5, 'a', '2024-01-02', 1.5, true, '2024-01-01 10:00:00', "
      "'2024-01-01 10:00:00+00', '\\x01', '{1}', 'x'";
  for (bool to_nullable : {false, true}) {
    SCOPED_TRACE(to_nullable ? "to-nullable" : "default");
    PostgresSourceSpec spec = Spec();
    if (to_nullable) {
      spec.slot_name += "_n";
      spec.publication_name += "_n";
      spec.type_mapping.Add(cdc::TypeMappingMode::kToNullable);
    }
    auto source = Open(spec, "");
    ASSERT_NE(source, nullptr);
    std::vector<CdcRecord> records = Read(source.get(), 1);
    const int first_id = to_nullable ? 20 : 10;
    const std::string a = std::to_string(first_id), b = std::to_string(first_id + 1);
    Sql("INSERT INTO nn VALUES (" + a + ", " + row + ");" + "UPDATE nn SET id = " + b +
        " WHERE id = " + a + ";" + "DELETE FROM nn WHERE id = " + b);
    for (CdcRecord& r : Read(source.get(), 4)) records.push_back(std::move(r));
    ASSERT_EQ(records.size(), 5u);
    EXPECT_THAT(
        Show({records[2], records[4]}),
        ::testing::ElementsAre("-D nn id=" + a +
                                   " n=0 s= d=1970-01-01 v=0 b=false ts=1970-01-01 "
                                   "00:00:00.000000 tz=1970-01-01 00:00:00.000000 by= a=[]",
                               "-D nn id=" + b +
                                   " n=0 s= d=1970-01-01 v=0 b=false ts=1970-01-01 "
                                   "00:00:00.000000 tz=1970-01-01 00:00:00.000000 by= a=[]"))
        << "the key-only old rows";
    // The snapshot's record and the stream's (after a Relation message) alike: NOT NULL but x
    // (and with to-nullable, all nullable; the table makes the key NOT NULL).
    for (size_t i : {size_t{0}, size_t{1}}) {
      ASSERT_EQ(records[i].columns.size(), 11u);
      for (const cdc::CdcColumn& c : records[i].columns) {
        EXPECT_EQ(c.type->nullable(), to_nullable || c.name == "x") << i << " " << c.name;
      }
    }
    // The table a job creates from the first record takes every record.
    TableSchema schema;
    for (const cdc::CdcColumn& c : records[0].columns) {
      schema.fields.push_back({static_cast<int32_t>(schema.fields.size()),
                               c.name,
                               c.name == "id" ? c.type->WithNullable(false) : c.type,
                               std::nullopt,
                               {}});
    }
    schema.primary_keys = {"id"};
    std::vector<const CdcRecord*> all;
    for (const CdcRecord& r : records) all.push_back(&r);
    auto batch = RecordsToBatch(schema, all);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_EQ((*batch)->num_rows(), 5);
    EXPECT_EQ((*batch)->column(1)->null_count(), 0);
  }
}

}  // namespace
}  // namespace fjord::runtime
