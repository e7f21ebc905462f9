#include "fjord/runtime/postgres_source.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "fjord/cdc/pgoutput.h"
#include "fjord/cdc/postgres_types.h"
#include "fjord/common/json.h"

namespace fjord::runtime {

namespace {

namespace pgo = cdc::pgoutput;

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgConn = std::unique_ptr<PGconn, ConnDeleter>;
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

std::string QuoteIdent(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// standard_conforming_strings is on (the default since 9.1): only quotes need doubling.
std::string QuoteLiteral(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

std::string QualifiedName(const std::string& schema, const std::string& table) {
  return schema + "." + table;
}

struct Column {
  std::string name;
  uint32_t oid = 0;        // as the catalog or the Relation message gives it
  uint32_t value_oid = 0;  // the built-in type whose text form the values have (enum: text)
  int32_t typmod = -1;
  bool key = false;      // part of the replica identity (Relation) or primary key
  std::string sql_type;  // format_type(), for the snapshot's key comparisons
  DataTypePtr type;
};

struct TableInfo {
  std::string schema;
  std::string name;
  std::vector<Column> columns;
  std::vector<std::string> primary_keys;
  bool included = false;
};

struct SnapshotProgress {
  std::string table;                              // "schema.table" being read
  std::optional<std::vector<std::string>> after;  // primary key texts of the last row out
  int64_t rows = 0;                               // rows of `table` handed out
};

struct SourcePosition {
  uint64_t lsn = 0;  // every transaction ending at or before it is wholly handed out
  uint64_t txn = 0;  // commit LSN of the transaction in progress, 0: none
  int64_t skip = 0;  // changes of `txn` handed out
  std::optional<SnapshotProgress> snapshot;
};

std::string FormatPosition(const SourcePosition& p) {
  Json j = Json::object();
  j["lsn"] = pgo::FormatLsn(p.lsn);
  if (p.txn != 0) {
    j["txn"] = pgo::FormatLsn(p.txn);
    j["skip"] = p.skip;
  }
  if (p.snapshot) {
    Json s = Json::object();
    s["table"] = p.snapshot->table;
    s["after"] = p.snapshot->after ? Json(*p.snapshot->after) : Json(nullptr);
    s["rows"] = p.snapshot->rows;
    j["snapshot"] = std::move(s);
  }
  return ToCompactJson(j);
}

Result<SourcePosition> ParsePosition(const std::string& text) {
  const char* where = "PostgreSQL source position";
  FJORD_ASSIGN_OR_RAISE(Json j, ParseJson(text, where));
  if (!j.is_object()) return Status::Invalid(where, " is not a JSON object: ", text);
  SourcePosition p;
  FJORD_ASSIGN_OR_RAISE(std::string lsn, JsonGetString(j, "lsn", where));
  FJORD_ASSIGN_OR_RAISE(p.lsn, pgo::ParseLsn(lsn));
  FJORD_ASSIGN_OR_RAISE(std::optional<std::string> txn, JsonGetOptionalString(j, "txn", where));
  if (txn) {
    FJORD_ASSIGN_OR_RAISE(p.txn, pgo::ParseLsn(*txn));
    FJORD_ASSIGN_OR_RAISE(p.skip, JsonGetInt(j, "skip", where));
  }
  if (j.contains("snapshot")) {
    const Json& s = j["snapshot"];
    SnapshotProgress progress;
    FJORD_ASSIGN_OR_RAISE(progress.table, JsonGetString(s, "table", where));
    FJORD_ASSIGN_OR_RAISE(progress.rows, JsonGetInt(s, "rows", where));
    if (s.contains("after") && s["after"].is_array()) {
      std::vector<std::string> after;
      for (const Json& v : s["after"]) {
        if (!v.is_string()) return Status::Invalid(where, ": snapshot.after holds a non-string");
        after.push_back(v.get<std::string>());
      }
      progress.after = std::move(after);
    }
    p.snapshot = std::move(progress);
  }
  return p;
}

// A change (or snapshot row) turned into records, waiting to be handed out.
struct Pending {
  std::vector<cdc::CdcRecord> records;
  std::vector<std::string> key;  // snapshot rows: the primary key texts
};

class PostgresSource : public CdcSource {
 public:
  PostgresSource(PostgresSourceSpec spec, std::vector<std::regex> patterns)
      : spec_(std::move(spec)), patterns_(std::move(patterns)) {
    if (spec_.schemas.empty()) spec_.schemas.push_back("public");
  }

  ~PostgresSource() override { ConfirmAtClose(); }

  Status Seek(const std::string& position) override;
  Status Next(bool bounded, size_t max_records, const CdcCut& cut, std::vector<cdc::CdcRecord>* out,
              bool* end) override;
  std::string Position() const override;
  void Committed(const std::string& position) override;
  int64_t idle_wait_ms() const override { return spec_.idle_wait_ms; }

 private:
  std::string Where() const {
    return "PostgreSQL " + spec_.host + ":" + std::to_string(spec_.port) + " database " +
           spec_.database;
  }
  Result<PgConn> Connect(bool replication);
  Result<PgResult> Exec(PGconn* conn, const std::string& sql,
                        const std::vector<std::optional<std::string>>& params,
                        ExecStatusType expect, const std::string& what);
  bool Included(const std::string& schema, const std::string& table) const;
  Status ResolveTables();
  Status EnsurePublication();
  Status EnsureSlot(bool create, std::string* snapshot_name);
  Status LoadColumnTypes(TableInfo* table);
  Status LoadPrimaryKeys(uint32_t relid, TableInfo* table);
  Result<uint32_t> ValueOid(uint32_t oid, const std::string& where);
  Result<cdc::CdcRecord> MakeRecord(const TableInfo& table, cdc::ChangeKind kind,
                                    const pgo::Tuple& tuple, const pgo::Tuple* old_row,
                                    bool key_only);
  Status OpenSnapshotTable();
  Status FetchSnapshot(size_t rows);
  Status StartStreaming(uint64_t lsn);
  Status HandleMessage(const pgo::Message& m);
  Status SendStatus(bool reply_requested);
  // The confirmation of the last committed checkpoint, sent before the connection closes (Next
  // sends them otherwise), then the end of the COPY stream; best effort, bounded to a second.
  void ConfirmAtClose();
  // Hands out pending_ if the cut rule lets it; false when it stays for the next call.
  bool HandOut(const CdcCut& cut, std::vector<cdc::CdcRecord>* out);

  PostgresSourceSpec spec_;
  std::vector<std::regex> patterns_;
  PgConn sql_;
  PgConn repl_;
  std::vector<std::pair<std::string, std::string>> tables_;  // included (schema, table), sorted
  std::map<uint32_t, uint32_t> value_oids_;                  // resolved user types
  uint64_t slot_confirmed_ = 0;                              // the slot's confirmed_flush_lsn
  uint64_t bounded_end_ = 0;                                 // pg_current_wal_lsn() at Seek

  // The initial snapshot.
  bool snapshotting_ = false;
  size_t snap_index_ = 0;
  std::optional<SnapshotProgress> snap_;
  std::optional<TableInfo> snap_table_;
  bool cursor_open_ = false;
  bool snap_table_done_ = false;
  std::deque<Pending> snap_rows_;

  // The stream.
  bool streaming_ = false;
  std::map<uint32_t, TableInfo> relations_;
  uint64_t start_lsn_ = 0;  // transactions committing before it were handed out already
  uint64_t lsn_ = 0;        // see SourcePosition
  bool in_txn_ = false;
  uint64_t txn_lsn_ = 0;
  int64_t txn_changes_ = 0;       // changes of the transaction handed out (or skipped as such)
  uint64_t resume_txn_ = 0;       // from Seek: the transaction whose first resume_skip_ changes
  int64_t resume_skip_ = 0;       // were handed out before
  int64_t skip_now_ = 0;          // changes still to skip in the current transaction
  bool skip_txn_ = false;         // the current transaction was wholly handed out before
  std::optional<Pending> held_;   // a change kept back by the cut rule
  std::vector<Pending> decoded_;  // records of the last message (0 or 1 change)
  uint64_t server_wal_end_ = 0;
  std::atomic<uint64_t> confirm_target_{0};
  uint64_t confirm_sent_ = 0;
  std::chrono::steady_clock::time_point last_status_{};
  std::chrono::steady_clock::time_point last_ping_{};
};

Result<PgConn> PostgresSource::Connect(bool replication) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"host", spec_.host},
      {"port", std::to_string(spec_.port)},
      {"dbname", spec_.database},
      {"user", spec_.user},
      {"application_name", "fjord " + spec_.slot_name},
      {"connect_timeout", "10"},
      // The value text depends on these (cdc/postgres_types.h); the walsender formats values
      // with its own session's settings, so both connections set them.
      {"options",
       "-c DateStyle=ISO -c TimeZone=UTC -c bytea_output=hex -c extra_float_digits=3 "
       "-c IntervalStyle=postgres"}};
  if (!spec_.password.empty()) kv.emplace_back("password", spec_.password);
  if (replication) kv.emplace_back("replication", "database");
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : kv) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PgConn conn(PQconnectdbParams(keys.data(), values.data(), 0));
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) {
    std::string msg = conn ? PQerrorMessage(conn.get()) : "out of memory";
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return Status::IOError(Where(), ": cannot connect as user ", spec_.user,
                           replication ? " (replication)" : "", ": ", msg);
  }
  // Server notices (e.g. CREATE PUBLICATION's) are not errors; libpq would print them.
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  return conn;
}

Result<PgResult> PostgresSource::Exec(PGconn* conn, const std::string& sql,
                                      const std::vector<std::optional<std::string>>& params,
                                      ExecStatusType expect, const std::string& what) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  PgResult res(params.empty() ? PQexec(conn, sql.c_str())
                              : PQexecParams(conn, sql.c_str(), static_cast<int>(params.size()),
                                             nullptr, values.data(), nullptr, nullptr, 0));
  if (res == nullptr || PQresultStatus(res.get()) != expect) {
    std::string msg = res ? PQresultErrorMessage(res.get()) : PQerrorMessage(conn);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return Status::IOError(Where(), ": ", what, " failed: ", msg);
  }
  return res;
}

bool PostgresSource::Included(const std::string& schema, const std::string& table) const {
  if (std::find(spec_.schemas.begin(), spec_.schemas.end(), schema) == spec_.schemas.end()) {
    return false;
  }
  if (patterns_.empty()) return true;
  std::string qualified = QualifiedName(schema, table);
  for (const std::regex& re : patterns_) {
    if (std::regex_match(table, re) || std::regex_match(qualified, re)) return true;
  }
  return false;
}

Status PostgresSource::ResolveTables() {
  FJORD_ASSIGN_OR_RAISE(PgResult res,
                        Exec(sql_.get(),
                             "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON "
                             "n.oid = c.relnamespace WHERE c.relkind = 'r' ORDER BY 1, 2",
                             {}, PGRES_TUPLES_OK, "listing the tables"));
  tables_.clear();
  std::map<std::string, std::string> by_name;
  for (int i = 0; i < PQntuples(res.get()); ++i) {
    std::string schema = PQgetvalue(res.get(), i, 0), table = PQgetvalue(res.get(), i, 1);
    if (!Included(schema, table)) continue;
    // Records name the table without its schema, as Java's PostgresRecordParser does.
    auto [it, fresh] = by_name.emplace(table, schema);
    if (!fresh) {
      return Status::Invalid(Where(), ": tables ", QualifiedName(it->second, table), " and ",
                             QualifiedName(schema, table),
                             " are both included; change records name tables without their "
                             "schema, so include only one of them");
    }
    tables_.emplace_back(schema, table);
  }
  // The snapshot reads them in this order and a position names the table it is in: byte order
  // of "schema.table", whatever the database's collation.
  std::sort(tables_.begin(), tables_.end(), [](const auto& x, const auto& y) {
    return QualifiedName(x.first, x.second) < QualifiedName(y.first, y.second);
  });
  if (tables_.empty()) {
    std::string schemas;
    for (const auto& s : spec_.schemas) schemas += (schemas.empty() ? "" : ", ") + s;
    return Status::NotFound(Where(), ": no table of schema(s) ", schemas,
                            " matches the table patterns of the source");
  }
  return Status::OK();
}

Status PostgresSource::EnsurePublication() {
  const std::string& pub = spec_.publication_name;
  FJORD_ASSIGN_OR_RAISE(PgResult res,
                        Exec(sql_.get(), "SELECT 1 FROM pg_publication WHERE pubname = $1", {pub},
                             PGRES_TUPLES_OK, "looking up publication " + pub));
  if (PQntuples(res.get()) == 0) {
    if (!spec_.create_publication) {
      return Status::NotFound(Where(), ": publication ", pub, " does not exist");
    }
    // Truncates are not published: Java Paimon's PostgreSQL CDC does not apply them either.
    std::string sql = "CREATE PUBLICATION " + QuoteIdent(pub) + " FOR TABLE ";
    for (size_t i = 0; i < tables_.size(); ++i) {
      if (i > 0) sql += ", ";
      sql += QuoteIdent(tables_[i].first) + "." + QuoteIdent(tables_[i].second);
    }
    sql += " WITH (publish = 'insert, update, delete')";
    FJORD_RETURN_NOT_OK(
        Exec(sql_.get(), sql, {}, PGRES_COMMAND_OK, "creating publication " + pub).status());
    return Status::OK();
  }
  FJORD_ASSIGN_OR_RAISE(
      PgResult tables,
      Exec(sql_.get(), "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1",
           {pub}, PGRES_TUPLES_OK, "listing the tables of publication " + pub));
  std::set<std::pair<std::string, std::string>> published;
  for (int i = 0; i < PQntuples(tables.get()); ++i) {
    published.emplace(PQgetvalue(tables.get(), i, 0), PQgetvalue(tables.get(), i, 1));
  }
  for (const auto& t : tables_) {
    if (published.count(t) == 0) {
      return Status::Invalid(Where(), ": table ", QualifiedName(t.first, t.second),
                             " is not in publication ", pub, " (ALTER PUBLICATION ", pub,
                             " ADD TABLE ", QualifiedName(t.first, t.second), ")");
    }
  }
  return Status::OK();
}

Status PostgresSource::EnsureSlot(bool create, std::string* snapshot_name) {
  const std::string& slot = spec_.slot_name;
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(sql_.get(),
           "SELECT plugin, database, confirmed_flush_lsn FROM pg_replication_slots WHERE "
           "slot_name = $1",
           {slot}, PGRES_TUPLES_OK, "looking up replication slot " + slot));
  if (PQntuples(res.get()) == 1) {
    std::string plugin = PQgetvalue(res.get(), 0, 0), db = PQgetvalue(res.get(), 0, 1);
    if (plugin != "pgoutput" || db != spec_.database) {
      return Status::Invalid(Where(), ": replication slot ", slot, " is not a pgoutput slot of ",
                             "this database (plugin '", plugin, "', database '", db, "')");
    }
    FJORD_ASSIGN_OR_RAISE(slot_confirmed_, pgo::ParseLsn(PQgetvalue(res.get(), 0, 2)));
    return Status::OK();
  }
  if (!create || !spec_.create_slot) {
    return Status::NotFound(Where(), ": replication slot ", slot, " does not exist",
                            create ? "" : " (the changes after the position are gone)");
  }
  // The exported snapshot is exactly the data before the slot's first change: the initial
  // snapshot reads in it.
  FJORD_ASSIGN_OR_RAISE(
      PgResult created,
      Exec(repl_.get(),
           "CREATE_REPLICATION_SLOT " + QuoteIdent(slot) + " LOGICAL pgoutput (SNAPSHOT 'export')",
           {}, PGRES_TUPLES_OK, "creating replication slot " + slot));
  FJORD_ASSIGN_OR_RAISE(slot_confirmed_, pgo::ParseLsn(PQgetvalue(created.get(), 0, 1)));
  *snapshot_name = PQgetvalue(created.get(), 0, 2);
  return Status::OK();
}

Result<uint32_t> PostgresSource::ValueOid(uint32_t oid, const std::string& where) {
  if (cdc::PostgresTypeName(oid) != nullptr) return oid;
  auto it = value_oids_.find(oid);
  if (it != value_oids_.end()) return it->second;
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(sql_.get(),
           "SELECT typtype, typbasetype, format_type(oid, NULL) FROM pg_type WHERE oid = $1",
           {std::to_string(oid)}, PGRES_TUPLES_OK, "looking up type " + std::to_string(oid)));
  if (PQntuples(res.get()) != 1) {
    return Status::NotFound(Where(), ": ", where, " has unknown type ", oid);
  }
  std::string kind = PQgetvalue(res.get(), 0, 0);
  uint32_t resolved = 0;
  if (kind == "e") {
    resolved = cdc::pg_oid::kText;  // enums are strings, as in Java
  } else if (kind == "d") {
    FJORD_ASSIGN_OR_RAISE(
        resolved, ValueOid(static_cast<uint32_t>(std::stoul(PQgetvalue(res.get(), 0, 1))), where));
  } else if (spec_.type_mapping.Has(cdc::TypeMappingMode::kToString)) {
    resolved = oid;  // STRING, the text as PostgreSQL writes it
  } else {
    return Status::NotImplemented(Where(), ": ", where, " has type ", PQgetvalue(res.get(), 0, 2),
                                  ", which Java Paimon's PostgreSQL CDC does not support");
  }
  value_oids_[oid] = resolved;
  return resolved;
}

Status PostgresSource::LoadPrimaryKeys(uint32_t relid, TableInfo* table) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(sql_.get(),
           "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND "
           "a.attnum = ANY (i.indkey) WHERE i.indrelid = $1 AND i.indisprimary "
           "ORDER BY array_position(i.indkey::int2[], a.attnum)",
           {std::to_string(relid)}, PGRES_TUPLES_OK,
           "reading the primary key of " + QualifiedName(table->schema, table->name)));
  table->primary_keys.clear();
  for (int i = 0; i < PQntuples(res.get()); ++i) {
    table->primary_keys.push_back(PQgetvalue(res.get(), i, 0));
  }
  return Status::OK();
}

Status PostgresSource::LoadColumnTypes(TableInfo* table) {
  for (Column& c : table->columns) {
    std::string where = "column " + c.name + " of " + QualifiedName(table->schema, table->name);
    FJORD_ASSIGN_OR_RAISE(c.value_oid, ValueOid(c.oid, where));
    auto type = cdc::PostgresToPaimonType(c.value_oid, c.typmod, spec_.type_mapping);
    if (!type.ok()) return type.status().WithContext(Where(), ": ", where);
    c.type = *type;
  }
  return Status::OK();
}

Result<cdc::CdcRecord> PostgresSource::MakeRecord(const TableInfo& table, cdc::ChangeKind kind,
                                                  const pgo::Tuple& tuple,
                                                  const pgo::Tuple* old_row, bool key_only) {
  std::string name = QualifiedName(table.schema, table.name);
  if (tuple.size() != table.columns.size()) {
    return Status::Invalid(Where(), ": a change of ", name, " has ", tuple.size(),
                           " columns, its Relation message ", table.columns.size());
  }
  cdc::CdcRecord r;
  r.database = spec_.database;
  r.table = table.name;
  r.kind = kind;
  r.primary_keys = table.primary_keys;
  for (size_t i = 0; i < tuple.size(); ++i) {
    const Column& c = table.columns[i];
    if (key_only && !c.key) continue;
    const pgo::TupleValue* v = &tuple[i];
    if (v->kind == 'u') {
      // An unchanged TOASTed value is not sent; the whole old row has it (REPLICA IDENTITY
      // FULL). Writing NULL over it instead would lose data.
      if (old_row == nullptr || i >= old_row->size() || (*old_row)[i].kind == 'u') {
        return Status::Invalid(Where(), ": an update of ", name, " did not send the unchanged ",
                               "large value of column ", c.name, "; set ALTER TABLE ", name,
                               " REPLICA IDENTITY FULL");
      }
      v = &(*old_row)[i];
    }
    cdc::CdcColumn col;
    col.name = c.name;
    col.type = c.type;
    if (v->kind == 't') {
      // Converted whatever the type mapping, as Java's record parser converts its values.
      auto text = cdc::PostgresValueText(c.value_oid, c.typmod, v->text);
      if (!text.ok()) return text.status().WithContext(Where(), ": column ", c.name, " of ", name);
      col.value = std::move(*text);
    } else if (v->kind == 'b') {
      return Status::Invalid(Where(), ": a binary value of column ", c.name, " of ", name);
    }
    r.columns.push_back(std::move(col));
  }
  return r;
}

Status PostgresSource::Seek(const std::string& position) {
  repl_.reset();
  sql_.reset();
  snapshotting_ = streaming_ = false;
  snap_rows_.clear();
  snap_table_.reset();
  cursor_open_ = false;
  held_.reset();
  decoded_.clear();
  relations_.clear();
  in_txn_ = false;
  skip_txn_ = false;
  skip_now_ = 0;
  confirm_target_ = 0;
  SourcePosition pos;
  if (!position.empty()) {
    FJORD_ASSIGN_OR_RAISE(pos, ParsePosition(position));
  }

  FJORD_ASSIGN_OR_RAISE(sql_, Connect(false));
  FJORD_ASSIGN_OR_RAISE(repl_, Connect(true));
  FJORD_RETURN_NOT_OK(
      Exec(repl_.get(), "IDENTIFY_SYSTEM", {}, PGRES_TUPLES_OK, "IDENTIFY_SYSTEM").status());
  // The insert position, not pg_current_wal_lsn() (the write position): with asynchronous
  // commits the last transactions may not be written yet.
  FJORD_ASSIGN_OR_RAISE(PgResult wal, Exec(sql_.get(), "SELECT pg_current_wal_insert_lsn()", {},
                                           PGRES_TUPLES_OK, "reading the WAL end"));
  FJORD_ASSIGN_OR_RAISE(bounded_end_, pgo::ParseLsn(PQgetvalue(wal.get(), 0, 0)));
  FJORD_RETURN_NOT_OK(ResolveTables());
  FJORD_RETURN_NOT_OK(EnsurePublication());

  lsn_ = pos.lsn;
  resume_txn_ = pos.txn;
  resume_skip_ = pos.skip;
  if (position.empty() || pos.snapshot) {
    std::string snapshot_name;
    FJORD_RETURN_NOT_OK(EnsureSlot(position.empty(), &snapshot_name));
    // Without the slot's exported snapshot (a resumed snapshot, or a slot that existed) the
    // rows are read in a newer snapshot; the stream then replays the changes since the slot's
    // confirmed position over them, which ends in the same rows for primary-key tables.
    FJORD_RETURN_NOT_OK(Exec(sql_.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {},
                             PGRES_COMMAND_OK, "starting the snapshot transaction")
                            .status());
    if (!snapshot_name.empty()) {
      FJORD_RETURN_NOT_OK(Exec(sql_.get(),
                               "SET TRANSACTION SNAPSHOT " + QuoteLiteral(snapshot_name), {},
                               PGRES_COMMAND_OK, "importing the slot's snapshot")
                              .status());
    }
    snapshotting_ = true;
    snap_index_ = 0;
    snap_.reset();
    if (pos.snapshot) {
      // Tables are read in (schema, table) order: resume at the table the position names.
      while (snap_index_ < tables_.size() &&
             QualifiedName(tables_[snap_index_].first, tables_[snap_index_].second) <
                 pos.snapshot->table) {
        ++snap_index_;
      }
      if (snap_index_ < tables_.size() &&
          QualifiedName(tables_[snap_index_].first, tables_[snap_index_].second) ==
              pos.snapshot->table) {
        snap_ = pos.snapshot;
      }
    }
    return Status::OK();
  }
  FJORD_RETURN_NOT_OK(EnsureSlot(false, nullptr));
  if (pos.lsn != 0 && pos.lsn < slot_confirmed_) {
    return Status::Invalid(Where(), ": replication slot ", spec_.slot_name, " was confirmed up to ",
                           pgo::FormatLsn(slot_confirmed_), ", beyond the position ",
                           pgo::FormatLsn(pos.lsn), ": the changes in between are gone");
  }
  return StartStreaming(pos.lsn);
}

Status PostgresSource::OpenSnapshotTable() {
  const auto& [schema, name] = tables_[snap_index_];
  std::string qualified = QualifiedName(schema, name);
  FJORD_ASSIGN_OR_RAISE(
      PgResult cols,
      Exec(sql_.get(),
           "SELECT c.oid, a.attname, a.atttypid, a.atttypmod, format_type(a.atttypid, "
           "a.atttypmod) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN "
           "pg_attribute a ON a.attrelid = c.oid WHERE n.nspname = $1 AND c.relname = $2 AND "
           "a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum",
           {schema, name}, PGRES_TUPLES_OK, "reading the columns of " + qualified));
  if (PQntuples(cols.get()) == 0) {
    return Status::NotFound(Where(), ": table ", qualified, " has disappeared");
  }
  TableInfo t;
  t.schema = schema;
  t.name = name;
  t.included = true;
  uint32_t relid = static_cast<uint32_t>(std::stoul(PQgetvalue(cols.get(), 0, 0)));
  for (int i = 0; i < PQntuples(cols.get()); ++i) {
    Column c;
    c.name = PQgetvalue(cols.get(), i, 1);
    c.oid = static_cast<uint32_t>(std::stoul(PQgetvalue(cols.get(), i, 2)));
    c.typmod = std::stoi(PQgetvalue(cols.get(), i, 3));
    c.sql_type = PQgetvalue(cols.get(), i, 4);
    t.columns.push_back(std::move(c));
  }
  FJORD_RETURN_NOT_OK(LoadPrimaryKeys(relid, &t));
  for (Column& c : t.columns) {
    c.key = std::find(t.primary_keys.begin(), t.primary_keys.end(), c.name) != t.primary_keys.end();
  }
  FJORD_RETURN_NOT_OK(LoadColumnTypes(&t));

  std::string sql = "DECLARE fjord_snapshot NO SCROLL CURSOR FOR SELECT ";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    sql += (i > 0 ? ", " : "") + QuoteIdent(t.columns[i].name);
  }
  sql += " FROM " + QuoteIdent(schema) + "." + QuoteIdent(name);
  std::vector<std::optional<std::string>> params;
  if (!t.primary_keys.empty()) {
    std::string keys;
    for (const auto& k : t.primary_keys) keys += (keys.empty() ? "" : ", ") + QuoteIdent(k);
    if (snap_ && snap_->after && snap_->after->size() == t.primary_keys.size()) {
      // Resume after the last row handed out.
      std::string values;
      for (size_t i = 0; i < t.primary_keys.size(); ++i) {
        const Column* c = nullptr;
        for (const Column& col : t.columns) {
          if (col.name == t.primary_keys[i]) c = &col;
        }
        values +=
            (i > 0 ? ", " : "") + std::string("$") + std::to_string(i + 1) + "::" + c->sql_type;
        params.emplace_back((*snap_->after)[i]);
      }
      sql += " WHERE (" + keys + ") > (" + values + ")";
    } else if (snap_ && snap_->rows > 0) {
      snap_->rows = 0;
    }
    sql += " ORDER BY " + keys;
  }
  if (!snap_ || t.primary_keys.empty()) {
    // A table without a primary key cannot be resumed within: it is read again from its
    // first row (docs/cdc.md).
    snap_ = SnapshotProgress{qualified, std::nullopt, 0};
  }
  FJORD_RETURN_NOT_OK(
      Exec(sql_.get(), sql, params, PGRES_COMMAND_OK, "opening the snapshot of " + qualified)
          .status());
  snap_table_ = std::move(t);
  cursor_open_ = true;
  snap_table_done_ = false;
  return Status::OK();
}

Status PostgresSource::FetchSnapshot(size_t rows) {
  const TableInfo& t = *snap_table_;
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(sql_.get(), "FETCH " + std::to_string(rows) + " FROM fjord_snapshot", {},
           PGRES_TUPLES_OK, "reading the snapshot of " + QualifiedName(t.schema, t.name)));
  int n = PQntuples(res.get());
  if (n == 0) snap_table_done_ = true;
  for (int i = 0; i < n; ++i) {
    pgo::Tuple tuple;
    Pending p;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      pgo::TupleValue v;
      if (!PQgetisnull(res.get(), i, static_cast<int>(c))) {
        v.kind = 't';
        v.text = PQgetvalue(res.get(), i, static_cast<int>(c));
      }
      tuple.push_back(std::move(v));
    }
    for (const auto& k : t.primary_keys) {
      for (size_t c = 0; c < t.columns.size(); ++c) {
        if (t.columns[c].name == k) p.key.push_back(tuple[c].text);
      }
    }
    FJORD_ASSIGN_OR_RAISE(cdc::CdcRecord r,
                          MakeRecord(t, cdc::ChangeKind::kInsert, tuple, nullptr, false));
    r.origin = "postgres " + spec_.database + " snapshot of " + QualifiedName(t.schema, t.name);
    p.records.push_back(std::move(r));
    snap_rows_.push_back(std::move(p));
  }
  return Status::OK();
}

Status PostgresSource::StartStreaming(uint64_t lsn) {
  std::string sql = "START_REPLICATION SLOT " + QuoteIdent(spec_.slot_name) + " LOGICAL " +
                    pgo::FormatLsn(lsn) + " (proto_version '1', publication_names " +
                    QuoteLiteral(QuoteIdent(spec_.publication_name)) + ")";
  PgResult res(PQexec(repl_.get(), sql.c_str()));
  if (res == nullptr || PQresultStatus(res.get()) != PGRES_COPY_BOTH) {
    std::string msg = res ? PQresultErrorMessage(res.get()) : PQerrorMessage(repl_.get());
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return Status::IOError(Where(), ": starting replication from slot ", spec_.slot_name,
                           " failed: ", msg);
  }
  streaming_ = true;
  start_lsn_ = lsn;
  confirm_sent_ = 0;
  last_status_ = std::chrono::steady_clock::now();
  return Status::OK();
}

Status PostgresSource::SendStatus(bool reply_requested) {
  uint64_t lsn = std::max(confirm_target_.load(), slot_confirmed_);
  std::string msg = pgo::EncodeStandbyStatus(lsn, pgo::PostgresNow(), reply_requested);
  if (PQputCopyData(repl_.get(), msg.data(), static_cast<int>(msg.size())) != 1 ||
      PQflush(repl_.get()) != 0) {
    return Status::IOError(Where(), ": sending the standby status of slot ", spec_.slot_name,
                           " failed: ", PQerrorMessage(repl_.get()));
  }
  confirm_sent_ = lsn;
  last_status_ = std::chrono::steady_clock::now();
  return Status::OK();
}

void PostgresSource::ConfirmAtClose() {
  if (!repl_ || !streaming_ || confirm_target_.load() <= confirm_sent_) return;
  if (!SendStatus(false).ok()) return;
  if (PQputCopyEnd(repl_.get(), nullptr) != 1) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (PQflush(repl_.get()) < 0 || !PQconsumeInput(repl_.get())) return;
    char* buffer = nullptr;
    while (PQgetCopyData(repl_.get(), &buffer, 1) > 0) PQfreemem(buffer);
    if (!PQisBusy(repl_.get())) {
      PGresult* res = PQgetResult(repl_.get());
      if (!res) return;  // the server ended the stream: it has the confirmation
      PQclear(res);
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status PostgresSource::HandleMessage(const pgo::Message& m) {
  switch (m.type) {
    case 'B':
      in_txn_ = true;
      txn_lsn_ = m.final_lsn;
      txn_changes_ = 0;
      // The server restarts at transaction granularity: a transaction committed before the
      // position was handed out whole; the one the position is inside, in part.
      skip_txn_ = m.final_lsn < start_lsn_;
      skip_now_ = m.final_lsn == resume_txn_ ? resume_skip_ : 0;
      return Status::OK();
    case 'C':
      in_txn_ = false;
      lsn_ = std::max(lsn_, m.end_lsn);
      txn_changes_ = 0;
      return Status::OK();
    case 'R': {
      TableInfo t;
      t.schema = m.nspname;
      t.name = m.name;
      t.included = Included(t.schema, t.name);
      for (const auto& rc : m.columns) {
        Column c;
        c.name = rc.name;
        c.oid = rc.type_oid;
        c.typmod = rc.type_modifier;
        c.key = rc.key;
        t.columns.push_back(std::move(c));
      }
      if (t.included) {
        FJORD_RETURN_NOT_OK(LoadPrimaryKeys(m.relation_id, &t));
        FJORD_RETURN_NOT_OK(LoadColumnTypes(&t));
      }
      relations_[m.relation_id] = std::move(t);
      return Status::OK();
    }
    case 'I':
    case 'U':
    case 'D': {
      auto it = relations_.find(m.relation_id);
      if (it == relations_.end()) {
        return Status::Invalid(Where(), ": slot ", spec_.slot_name, " sent a change of relation ",
                               m.relation_id, " before its Relation message");
      }
      const TableInfo& t = it->second;
      if (!t.included) return Status::OK();
      if (skip_txn_ || skip_now_ > 0) {
        if (skip_now_ > 0) --skip_now_;
        ++txn_changes_;
        return Status::OK();
      }
      Pending p;
      const pgo::Tuple* old_row = m.old_kind == 'O' ? &m.old_tuple : nullptr;
      if (m.old_kind != 0) {
        FJORD_ASSIGN_OR_RAISE(
            cdc::CdcRecord before,
            MakeRecord(t, cdc::ChangeKind::kDelete, m.old_tuple, nullptr, m.old_kind == 'K'));
        p.records.push_back(std::move(before));
      }
      if (m.type != 'D') {
        FJORD_ASSIGN_OR_RAISE(cdc::CdcRecord after,
                              MakeRecord(t, cdc::ChangeKind::kInsert, m.new_tuple, old_row, false));
        p.records.push_back(std::move(after));
      }
      // The change's place: its transaction (commit LSN) and its number in it.
      std::string origin = "postgres " + spec_.database + " slot " + spec_.slot_name +
                           " transaction " + pgo::FormatLsn(txn_lsn_) + " change " +
                           std::to_string(txn_changes_ + static_cast<int64_t>(decoded_.size()) + 1);
      for (auto& r : p.records) r.origin = origin;
      decoded_.push_back(std::move(p));
      return Status::OK();
    }
    case 'T':
      for (uint32_t relid : m.relation_ids) {
        auto it = relations_.find(relid);
        if (it != relations_.end() && it->second.included) {
          return Status::NotImplemented(
              Where(), ": table ", QualifiedName(it->second.schema, it->second.name),
              " was truncated; Fjord's PostgreSQL source does not apply truncates (as Java "
              "Paimon's); publish only inserts, updates and deletes: ALTER PUBLICATION ",
              spec_.publication_name, " SET (publish = 'insert, update, delete')");
        }
      }
      return Status::OK();
    default:  // Origin, Type (user types are looked up in pg_type), logical messages
      return Status::OK();
  }
}

bool PostgresSource::HandOut(const CdcCut& cut, std::vector<cdc::CdcRecord>* out) {
  if (!out->empty() && cut) {
    for (const auto& r : held_->records) {
      if (cut(r)) return false;
    }
  }
  for (auto& r : held_->records) out->push_back(std::move(r));
  held_.reset();
  return true;
}

Status PostgresSource::Next(bool bounded, size_t max_records, const CdcCut& cut,
                            std::vector<cdc::CdcRecord>* out, bool* end) {
  if (!snapshotting_ && !streaming_) {
    return Status::Invalid(Where(), ": Next before Seek");
  }
  max_records = std::max<size_t>(max_records, 1);
  while (snapshotting_ && out->size() < max_records) {
    if (snap_rows_.empty()) {
      if (!cursor_open_) {
        if (snap_index_ >= tables_.size()) {
          FJORD_RETURN_NOT_OK(
              Exec(sql_.get(), "COMMIT", {}, PGRES_COMMAND_OK, "ending the snapshot transaction")
                  .status());
          snapshotting_ = false;
          snap_.reset();
          FJORD_RETURN_NOT_OK(StartStreaming(0));
          break;
        }
        FJORD_RETURN_NOT_OK(OpenSnapshotTable());
      }
      if (!snap_table_done_) {
        FJORD_RETURN_NOT_OK(FetchSnapshot(static_cast<size_t>(std::max<int64_t>(
            1, std::min<int64_t>(spec_.snapshot_fetch_rows, static_cast<int64_t>(max_records))))));
      }
      if (snap_table_done_ && snap_rows_.empty()) {
        FJORD_RETURN_NOT_OK(Exec(sql_.get(), "CLOSE fjord_snapshot", {}, PGRES_COMMAND_OK,
                                 "closing the snapshot cursor")
                                .status());
        cursor_open_ = false;
        ++snap_index_;
        snap_.reset();
        if (snap_index_ < tables_.size()) {
          snap_ = SnapshotProgress{
              QualifiedName(tables_[snap_index_].first, tables_[snap_index_].second), std::nullopt,
              0};
        }
        continue;
      }
    }
    held_ = Pending{std::move(snap_rows_.front().records), {}};
    std::vector<std::string> key = std::move(snap_rows_.front().key);
    if (!HandOut(cut, out)) {
      snap_rows_.front().records = std::move(held_->records);
      snap_rows_.front().key = std::move(key);
      held_.reset();
      return Status::OK();
    }
    snap_rows_.pop_front();
    ++snap_->rows;
    if (!snap_table_->primary_keys.empty()) snap_->after = std::move(key);
  }
  if (!streaming_) return Status::OK();

  auto now = std::chrono::steady_clock::now();
  if (confirm_target_.load() > confirm_sent_ ||
      now - last_status_ >= std::chrono::milliseconds(spec_.status_interval_ms)) {
    FJORD_RETURN_NOT_OK(SendStatus(false));
  }
  bool waited = false;
  while (out->size() < max_records) {
    if (held_) {
      if (!HandOut(cut, out)) return Status::OK();
      ++txn_changes_;
      continue;
    }
    if (!decoded_.empty()) {
      held_ = std::move(decoded_.front());
      decoded_.erase(decoded_.begin());
      continue;
    }
    char* buf = nullptr;
    int n = PQgetCopyData(repl_.get(), &buf, 1);
    if (n == 0 && !waited) {
      // Take what already arrived on the socket before deciding there is nothing.
      if (PQconsumeInput(repl_.get()) == 0) {
        return Status::IOError(Where(), ": reading replication slot ", spec_.slot_name, ": ",
                               PQerrorMessage(repl_.get()));
      }
      n = PQgetCopyData(repl_.get(), &buf, 1);
    }
    if (n == 0) {
      if (waited || !out->empty()) break;
      if (bounded && now - last_ping_ >= std::chrono::milliseconds(spec_.idle_wait_ms)) {
        // Ask for a keepalive: its WAL end tells when the stream has reached bounded_end_.
        FJORD_RETURN_NOT_OK(SendStatus(true));
        last_ping_ = now;
      }
      pollfd fd{PQsocket(repl_.get()), POLLIN, 0};
      poll(&fd, 1, static_cast<int>(spec_.idle_wait_ms));
      if (PQconsumeInput(repl_.get()) == 0) {
        return Status::IOError(Where(), ": reading replication slot ", spec_.slot_name, ": ",
                               PQerrorMessage(repl_.get()));
      }
      waited = true;
      continue;
    }
    if (n < 0) {
      std::string msg = PQerrorMessage(repl_.get());
      PgResult res(PQgetResult(repl_.get()));
      if (res) msg += PQresultErrorMessage(res.get());
      while (!msg.empty() && msg.back() == '\n') msg.pop_back();
      return Status::IOError(Where(), ": the replication stream of slot ", spec_.slot_name,
                             " ended: ", msg);
    }
    std::string data(buf, static_cast<size_t>(n));
    PQfreemem(buf);
    auto sm = pgo::DecodeStreamMessage(data);
    if (!sm.ok()) return sm.status().WithContext(Where(), ": slot ", spec_.slot_name);
    if (sm->type == 'k') {
      server_wal_end_ = std::max(server_wal_end_, sm->wal_end);
      // Between transactions everything up to the server's WAL end was sent: the position
      // may move there, which lets an idle slot be confirmed forward.
      if (!in_txn_) lsn_ = std::max(lsn_, sm->wal_end);
      if (sm->reply_requested) FJORD_RETURN_NOT_OK(SendStatus(false));
      continue;
    }
    auto m = pgo::DecodeMessage(sm->payload);
    if (!m.ok()) {
      return m.status().WithContext(Where(), ": slot ", spec_.slot_name, " at ",
                                    pgo::FormatLsn(sm->wal_start));
    }
    FJORD_RETURN_NOT_OK(HandleMessage(*m));
  }
  if (bounded && !in_txn_ && !held_ && decoded_.empty() && lsn_ >= bounded_end_) *end = true;
  return Status::OK();
}

std::string PostgresSource::Position() const {
  SourcePosition p;
  p.lsn = lsn_;
  if (in_txn_ && txn_changes_ > 0) {
    p.txn = txn_lsn_;
    p.skip = txn_changes_;
  }
  if (snapshotting_) p.snapshot = snap_;
  if (snapshotting_ && !p.snapshot && snap_index_ < tables_.size()) {
    p.snapshot = SnapshotProgress{
        QualifiedName(tables_[snap_index_].first, tables_[snap_index_].second), std::nullopt, 0};
  }
  return FormatPosition(p);
}

void PostgresSource::Committed(const std::string& position) {
  auto p = ParsePosition(position);
  if (!p.ok() || p->snapshot) return;  // nothing of the stream is committed during a snapshot
  // `lsn` covers whole transactions only: confirming it never drops a change not committed.
  uint64_t current = confirm_target_.load();
  while (p->lsn > current && !confirm_target_.compare_exchange_weak(current, p->lsn)) {
  }
}

}  // namespace

Result<std::unique_ptr<CdcSource>> MakePostgresSource(const PostgresSourceSpec& spec) {
  if (spec.database.empty()) return Status::Invalid("PostgreSQL source: no database given");
  if (spec.slot_name.empty()) return Status::Invalid("PostgreSQL source: no slot name given");
  if (spec.publication_name.empty()) {
    return Status::Invalid("PostgreSQL source: no publication name given");
  }
  if (spec.port <= 0 || spec.port > 65535) {
    return Status::Invalid("PostgreSQL source: bad port ", spec.port);
  }
  std::vector<std::regex> patterns;
  for (const auto& p : spec.tables) {
    try {
      patterns.emplace_back(p, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Status::Invalid("PostgreSQL source: bad table pattern '", p, "': ", e.what());
    }
  }
  return std::unique_ptr<CdcSource>(new PostgresSource(spec, std::move(patterns)));
}

}  // namespace fjord::runtime
