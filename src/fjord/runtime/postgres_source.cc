#include "fjord/runtime/postgres_source.h"

#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

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
#include "fjord/runtime/postgres_catalog.h"

namespace fjord::runtime {

namespace {

namespace pgo = cdc::pgoutput;
using pg::PgConn;
using pg::PgResult;
using pg::QualifiedName;
using pg::QuoteIdent;
using pg::QuoteLiteral;

struct Column {
  std::string name;
  uint32_t oid = 0;        // as the catalog or the Relation message gives it
  uint32_t value_oid = 0;  // the built-in type whose text form the values have (enum: text)
  int32_t typmod = -1;
  bool key = false;       // part of the replica identity (Relation) or primary key
  bool not_null = false;  // NOT NULL in PostgreSQL
  std::string sql_type;   // format_type(), for the snapshot's key comparisons
  DataTypePtr type;
};

struct TableInfo {
  std::string schema;
  std::string name;
  std::vector<Column> columns;
  std::vector<std::string> primary_keys;
  bool included = false;
};

// A table a snapshot reads.
struct SnapTable {
  uint32_t oid = 0;
  std::string schema;
  std::string name;
};

struct SnapshotProgress {
  std::string table;                              // "schema.table" being read
  std::optional<std::vector<std::string>> after;  // primary key texts of the last row out
  int64_t rows = 0;                               // rows of `table` handed out
};

// A table found after the start (docs/cdc.md): read from a snapshot that holds exactly the
// transactions committing before `at`; its changes in those transactions are dropped from the
// stream, the later ones handed out.
struct NewTable {
  std::string table;  // "schema.table" when found
  uint64_t at = 0;
  bool reading = true;  // its snapshot is not wholly handed out
  std::optional<std::vector<std::string>> after;
  int64_t rows = 0;
};

struct SourcePosition {
  uint64_t lsn = 0;  // every transaction ending at or before it is wholly handed out
  uint64_t txn = 0;  // commit LSN of the transaction in progress, 0: none
  int64_t skip = 0;  // changes of `txn` handed out
  std::optional<SnapshotProgress> snapshot;
  // A publication that lists its tables: the tables (OIDs) whose rows are handed out (their
  // snapshot, or its part and their changes from the stream).
  std::optional<std::set<uint32_t>> tables;
  std::map<uint32_t, NewTable> fresh;  // by OID
};

Json ProgressJson(const std::optional<std::vector<std::string>>& after) {
  return after ? Json(*after) : Json(nullptr);
}

Result<std::optional<std::vector<std::string>>> ParseAfter(const Json& j, const char* where) {
  if (!j.contains("after") || !j["after"].is_array()) {
    return std::optional<std::vector<std::string>>();
  }
  std::vector<std::string> after;
  for (const Json& v : j["after"]) {
    if (!v.is_string()) return Status::Invalid(where, ": snapshot.after holds a non-string");
    after.push_back(v.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(after));
}

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
    s["after"] = ProgressJson(p.snapshot->after);
    s["rows"] = p.snapshot->rows;
    j["snapshot"] = std::move(s);
  }
  if (p.tables) {
    Json tables = Json::array();
    for (uint32_t oid : *p.tables) tables.push_back(static_cast<int64_t>(oid));
    j["tables"] = std::move(tables);
  }
  if (!p.fresh.empty()) {
    Json fresh = Json::array();
    for (const auto& [oid, t] : p.fresh) {
      Json e = Json::object();
      e["oid"] = static_cast<int64_t>(oid);
      e["table"] = t.table;
      e["at"] = pgo::FormatLsn(t.at);
      if (t.reading) {
        e["after"] = ProgressJson(t.after);
        e["rows"] = t.rows;
      }
      fresh.push_back(std::move(e));
    }
    j["new"] = std::move(fresh);
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
    FJORD_ASSIGN_OR_RAISE(progress.after, ParseAfter(s, where));
    p.snapshot = std::move(progress);
  }
  if (j.contains("tables")) {
    if (!j["tables"].is_array()) return Status::Invalid(where, ": tables is not an array");
    std::set<uint32_t> tables;
    for (const Json& v : j["tables"]) {
      if (!v.is_number_integer()) return Status::Invalid(where, ": tables holds a non-integer");
      tables.insert(static_cast<uint32_t>(v.get<int64_t>()));
    }
    p.tables = std::move(tables);
  }
  if (j.contains("new")) {
    if (!j["new"].is_array()) return Status::Invalid(where, ": new is not an array");
    for (const Json& e : j["new"]) {
      NewTable t;
      FJORD_ASSIGN_OR_RAISE(int64_t oid, JsonGetInt(e, "oid", where));
      FJORD_ASSIGN_OR_RAISE(t.table, JsonGetString(e, "table", where));
      FJORD_ASSIGN_OR_RAISE(std::string at, JsonGetString(e, "at", where));
      FJORD_ASSIGN_OR_RAISE(t.at, pgo::ParseLsn(at));
      t.reading = e.contains("rows");
      if (t.reading) {
        FJORD_ASSIGN_OR_RAISE(t.rows, JsonGetInt(e, "rows", where));
        FJORD_ASSIGN_OR_RAISE(t.after, ParseAfter(e, where));
      }
      p.fresh[static_cast<uint32_t>(oid)] = std::move(t);
    }
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
      : spec_(std::move(spec)), patterns_(std::move(patterns)), where_(pg::Where(spec_)) {
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
  const std::string& Where() const { return where_; }
  // Two included tables of one name: records name tables without their schema.
  Status SameName(const std::string& schema_a, const std::string& schema_b,
                  const std::string& table) const {
    return Status::Invalid(Where(), ": tables ", QualifiedName(schema_a, table), " and ",
                           QualifiedName(schema_b, table),
                           " are both included; change records name tables without their "
                           "schema, so include only one of them");
  }
  // A table without a primary key is refused, as Java Paimon's postgres_sync_table refuses it:
  // its rows cannot be told apart, so a restart inside a snapshot would hand them out twice.
  Status NoPrimaryKey(const std::string& qualified) const {
    return Status::Invalid(Where(), ": table ", qualified,
                           " has no primary key; the PostgreSQL source reads only tables with one "
                           "(as Java Paimon's PostgreSQL CDC), since the rows of a table without "
                           "one could be read twice after a restart: add one (ALTER TABLE ",
                           qualified,
                           " ADD PRIMARY KEY (...)) or leave the table out of "
                           "source.tables");
  }
  // Refuses the first of `tables` that has no primary key.
  Status CheckPrimaryKeys(const std::vector<pg::CatalogTable>& tables);
  Result<PgResult> Exec(PGconn* conn, const std::string& sql,
                        const std::vector<std::optional<std::string>>& params,
                        ExecStatusType expect, const std::string& what) {
    return pg::Exec(conn, where_, sql, params, expect, what);
  }
  bool Included(const std::string& schema, const std::string& table) const;
  // The included tables of a listing; two of the same name are refused.
  Result<std::vector<pg::CatalogTable>> IncludedTables(
      const std::vector<pg::CatalogTable>& listed) const;
  Status AddToPublication(const pg::CatalogTable& t);
  Status EnsurePublication(bool add_missing);
  Status EnsureSlot(bool create, std::string* snapshot_name);
  Status BeginSnapshot(const std::string& snapshot_name);
  Status LoadColumnTypes(TableInfo* table, uint32_t relid);
  Result<uint32_t> ValueOid(uint32_t oid, const std::string& where);
  Result<cdc::CdcRecord> MakeRecord(const TableInfo& table, cdc::ChangeKind kind,
                                    const pgo::Tuple& tuple, const pgo::Tuple* old_row,
                                    bool key_only);
  // Opens the cursor of snap_list_[snap_index_]; false when the table is gone.
  Result<bool> OpenSnapshotTable();
  Status FetchSnapshot(size_t rows);
  Status ReadSnapshot(size_t max_records, const CdcCut& cut, std::vector<cdc::CdcRecord>* out);
  Status StartStreaming(uint64_t lsn);
  // Looks for included tables not read yet (a publication that lists its tables); true when
  // some were found and the temporary slot of their snapshot is being created.
  Result<bool> CheckNewTables();
  // The temporary slot of the new tables' snapshot: true once created and its snapshot imported.
  Result<bool> PollNewTablesSlot();
  Status HandleMessage(const pgo::Message& m);
  Status SendStatus(bool reply_requested);
  // The confirmation of the last committed checkpoint, sent before the connection closes (Next
  // sends them otherwise), then the end of the COPY stream; best effort, bounded to a second.
  void ConfirmAtClose();
  // Hands out pending_ if the cut rule lets it; false when it stays for the next call.
  bool HandOut(const CdcCut& cut, std::vector<cdc::CdcRecord>* out);

  PostgresSourceSpec spec_;
  std::vector<std::regex> patterns_;
  std::string where_;
  PgConn sql_;
  PgConn repl_;
  std::map<uint32_t, uint32_t> value_oids_;  // resolved user types
  uint64_t slot_confirmed_ = 0;              // the slot's confirmed_flush_lsn
  uint64_t bounded_end_ = 0;                 // pg_current_wal_insert_lsn() at Seek

  // The publication lists its tables (FOR TABLE): new tables are looked for in the catalog,
  // added to it and read from a snapshot. Otherwise (FOR TABLES IN SCHEMA, FOR ALL TABLES) the
  // stream holds every change of a new table from its CREATE on.
  bool listed_ = false;
  std::set<uint32_t> known_;            // listed_: the tables whose rows are handed out
  std::map<uint32_t, NewTable> fresh_;  // tables found after the start, by OID
  std::chrono::steady_clock::time_point last_check_{};
  bool check_now_ = false;               // a change of an included table not known yet came
  bool checked_ = false;                 // a check ran since Seek
  PgConn temp_;                          // creating the temporary slot of a new tables' snapshot
  std::vector<pg::CatalogTable> found_;  // the tables that snapshot is for

  // A snapshot: the initial one, or (snap_new_) the one of new tables.
  bool snapshotting_ = false;
  bool snap_new_ = false;
  std::vector<SnapTable> snap_list_;
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
  int64_t txn_ts_ms_ = 0;         // the commit time of the transaction (op_ts)
  int64_t txn_changes_ = 0;       // changes of the transaction handed out (or dropped as such)
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

Result<std::vector<pg::CatalogTable>> PostgresSource::IncludedTables(
    const std::vector<pg::CatalogTable>& listed) const {
  std::vector<pg::CatalogTable> out;
  std::map<std::string, std::string> by_name;
  for (const auto& t : listed) {
    if (!Included(t.schema, t.name)) continue;
    // Records name the table without its schema, as Java's PostgresRecordParser does.
    auto [it, fresh] = by_name.emplace(t.name, t.schema);
    if (!fresh) {
      return SameName(it->second, t.schema, t.name);
    }
    out.push_back(t);
  }
  return out;
}

Status PostgresSource::CheckPrimaryKeys(const std::vector<pg::CatalogTable>& tables) {
  for (const auto& t : tables) {
    std::string qualified = QualifiedName(t.schema, t.name);
    FJORD_ASSIGN_OR_RAISE(auto keys, pg::ReadPrimaryKey(sql_.get(), Where(), t.oid, qualified));
    if (keys.empty()) return NoPrimaryKey(qualified);
  }
  return Status::OK();
}

Status PostgresSource::AddToPublication(const pg::CatalogTable& t) {
  const std::string& pub = spec_.publication_name;
  return Exec(sql_.get(),
              "ALTER PUBLICATION " + QuoteIdent(pub) + " ADD TABLE " + QuoteIdent(t.schema) + "." +
                  QuoteIdent(t.name),
              {}, PGRES_COMMAND_OK,
              "adding table " + QualifiedName(t.schema, t.name) + " to publication " + pub)
      .status();
}

Status PostgresSource::EnsurePublication(bool add_missing) {
  const std::string& pub = spec_.publication_name;
  FJORD_ASSIGN_OR_RAISE(pg::PublicationInfo info, pg::ReadPublication(sql_.get(), Where(), pub));
  if (!info.exists) {
    if (!spec_.create_publication) {
      return Status::NotFound(Where(), ": publication ", pub, " does not exist");
    }
    // Truncates are not published: Java Paimon's PostgreSQL CDC does not apply them either.
    const std::string with = " WITH (publish = 'insert, update, delete')";
    bool created = false;
    if (spec_.tables.empty() && PQserverVersion(sql_.get()) >= 150000) {
      // Whole schemas: the server publishes tables created later itself. PostgreSQL 15 asks a
      // superuser for it; otherwise the publication lists the tables.
      std::string schemas;
      for (const auto& s : spec_.schemas) schemas += (schemas.empty() ? "" : ", ") + QuoteIdent(s);
      created =
          Exec(sql_.get(),
               "CREATE PUBLICATION " + QuoteIdent(pub) + " FOR TABLES IN SCHEMA " + schemas + with,
               {}, PGRES_COMMAND_OK, "creating publication " + pub)
              .ok();
    }
    if (!created) {
      FJORD_ASSIGN_OR_RAISE(auto listed, pg::ListTables(sql_.get(), Where(), spec_.schemas, pub));
      FJORD_ASSIGN_OR_RAISE(auto included, IncludedTables(listed));
      std::string sql = "CREATE PUBLICATION " + QuoteIdent(pub) + " FOR TABLE ";
      for (size_t i = 0; i < included.size(); ++i) {
        if (i > 0) sql += ", ";
        sql += QuoteIdent(included[i].schema) + "." + QuoteIdent(included[i].name);
      }
      FJORD_RETURN_NOT_OK(
          Exec(sql_.get(), sql + with, {}, PGRES_COMMAND_OK, "creating publication " + pub)
              .status());
    }
    FJORD_ASSIGN_OR_RAISE(info, pg::ReadPublication(sql_.get(), Where(), pub));
  }
  listed_ = !info.all_tables;
  if (listed_) {
    bool all_schemas = true;
    for (const auto& s : spec_.schemas) {
      all_schemas = all_schemas &&
                    std::find(info.schemas.begin(), info.schemas.end(), s) != info.schemas.end();
    }
    listed_ = !all_schemas;
  }
  if (!listed_) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(auto listed, pg::ListTables(sql_.get(), Where(), spec_.schemas, pub));
  FJORD_ASSIGN_OR_RAISE(auto included, IncludedTables(listed));
  for (const auto& t : included) {
    if (t.published) continue;
    if (!spec_.create_publication) {
      return Status::Invalid(Where(), ": table ", QualifiedName(t.schema, t.name),
                             " is not in publication ", pub, " (ALTER PUBLICATION ", pub,
                             " ADD TABLE ", QualifiedName(t.schema, t.name), ")");
    }
    // At a fresh start the snapshot taken after this reads the table; when streaming, the
    // check for new tables adds it and reads it from its own snapshot.
    if (add_missing) FJORD_RETURN_NOT_OK(AddToPublication(t));
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
  FJORD_ASSIGN_OR_RAISE(std::optional<pg::CatalogType> type,
                        pg::ReadType(sql_.get(), Where(), oid));
  if (!type) return Status::NotFound(Where(), ": ", where, " has unknown type ", oid);
  uint32_t resolved = 0;
  if (type->kind == "e") {
    resolved = cdc::pg_oid::kText;  // enums are strings, as in Java
  } else if (type->kind == "d") {
    FJORD_ASSIGN_OR_RAISE(resolved, ValueOid(type->base_oid, where));
  } else if (spec_.type_mapping.Has(cdc::TypeMappingMode::kToString)) {
    resolved = oid;  // STRING, the text as PostgreSQL writes it
  } else {
    return Status::NotImplemented(Where(), ": ", where, " has type ", type->name,
                                  ", which Java Paimon's PostgreSQL CDC does not support");
  }
  value_oids_[oid] = resolved;
  return resolved;
}

Status PostgresSource::LoadColumnTypes(TableInfo* table, uint32_t relid) {
  // NOT NULL columns stay NOT NULL unless to-nullable, as in Java's postgres_sync_table.
  FJORD_ASSIGN_OR_RAISE(std::set<std::string> not_null,
                        pg::ReadNotNullColumns(sql_.get(), Where(), relid,
                                               QualifiedName(table->schema, table->name)));
  for (Column& c : table->columns) {
    std::string where = "column " + c.name + " of " + QualifiedName(table->schema, table->name);
    FJORD_ASSIGN_OR_RAISE(c.value_oid, ValueOid(c.oid, where));
    c.not_null = not_null.count(c.name) > 0;
    auto type = cdc::PostgresColumnType(c.value_oid, c.typmod, c.not_null, spec_.type_mapping);
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
  r.schema = table.schema;
  r.kind = kind;
  r.primary_keys = table.primary_keys;
  for (size_t i = 0; i < tuple.size(); ++i) {
    const Column& c = table.columns[i];
    if (key_only && !c.key) {
      // A key-only old row: a NOT NULL column gets its type's zero value, as Debezium fills it
      // in for Java's postgres_sync_table (with or without to-nullable), so the -D row fits a
      // NOT NULL Paimon column.
      if (!c.not_null) continue;
      auto zero = cdc::PostgresZeroValueText(c.value_oid, c.typmod);
      if (!zero.ok()) return zero.status().WithContext(Where(), ": column ", c.name, " of ", name);
      r.columns.push_back({c.name, c.type, std::move(*zero), std::nullopt});
      continue;
    }
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

Status PostgresSource::BeginSnapshot(const std::string& snapshot_name) {
  FJORD_RETURN_NOT_OK(Exec(sql_.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {},
                           PGRES_COMMAND_OK, "starting the snapshot transaction")
                          .status());
  if (!snapshot_name.empty()) {
    FJORD_RETURN_NOT_OK(Exec(sql_.get(), "SET TRANSACTION SNAPSHOT " + QuoteLiteral(snapshot_name),
                             {}, PGRES_COMMAND_OK, "importing the slot's snapshot")
                            .status());
  }
  snapshotting_ = true;
  snap_index_ = 0;
  snap_.reset();
  snap_rows_.clear();
  snap_table_.reset();
  cursor_open_ = false;
  return Status::OK();
}

Status PostgresSource::Seek(const std::string& position) {
  temp_.reset();
  repl_.reset();
  sql_.reset();
  snapshotting_ = streaming_ = snap_new_ = false;
  snap_list_.clear();
  snap_rows_.clear();
  snap_table_.reset();
  cursor_open_ = false;
  held_.reset();
  decoded_.clear();
  relations_.clear();
  known_.clear();
  fresh_.clear();
  found_.clear();
  check_now_ = checked_ = false;
  last_check_ = {};
  in_txn_ = false;
  skip_txn_ = false;
  skip_now_ = 0;
  confirm_target_ = 0;
  SourcePosition pos;
  if (!position.empty()) {
    FJORD_ASSIGN_OR_RAISE(pos, ParsePosition(position));
  }

  FJORD_ASSIGN_OR_RAISE(sql_, pg::Connect(spec_, false));
  FJORD_ASSIGN_OR_RAISE(repl_, pg::Connect(spec_, true));
  FJORD_RETURN_NOT_OK(
      Exec(repl_.get(), "IDENTIFY_SYSTEM", {}, PGRES_TUPLES_OK, "IDENTIFY_SYSTEM").status());
  // The insert position, not pg_current_wal_lsn() (the write position): with asynchronous
  // commits the last transactions may not be written yet.
  FJORD_ASSIGN_OR_RAISE(PgResult wal, Exec(sql_.get(), "SELECT pg_current_wal_insert_lsn()", {},
                                           PGRES_TUPLES_OK, "reading the WAL end"));
  FJORD_ASSIGN_OR_RAISE(bounded_end_, pgo::ParseLsn(PQgetvalue(wal.get(), 0, 0)));
  {
    FJORD_ASSIGN_OR_RAISE(
        auto listed, pg::ListTables(sql_.get(), Where(), spec_.schemas, spec_.publication_name));
    FJORD_ASSIGN_OR_RAISE(auto included, IncludedTables(listed));
    if (included.empty()) {
      std::string schemas;
      for (const auto& s : spec_.schemas) schemas += (schemas.empty() ? "" : ", ") + s;
      return Status::NotFound(Where(), ": no table of schema(s) ", schemas,
                              " matches the table patterns of the source");
    }
    // Before anything is created: no publication, no slot for a job that cannot run.
    FJORD_RETURN_NOT_OK(CheckPrimaryKeys(included));
  }
  FJORD_RETURN_NOT_OK(EnsurePublication(/*add_missing=*/position.empty()));

  lsn_ = pos.lsn;
  resume_txn_ = pos.txn;
  resume_skip_ = pos.skip;
  if (position.empty() || pos.snapshot) {
    std::string snapshot_name;
    FJORD_RETURN_NOT_OK(EnsureSlot(position.empty(), &snapshot_name));
    // Without the slot's exported snapshot (a resumed snapshot, or a slot that existed) the
    // rows are read in a newer snapshot; the stream then replays the changes since the slot's
    // confirmed position over them, which ends in the same rows for primary-key tables.
    FJORD_RETURN_NOT_OK(BeginSnapshot(snapshot_name));
    // The tables as the snapshot sees them: a table created before the slot's consistent point
    // is read here, a later one comes from the stream (or the check for new tables).
    FJORD_ASSIGN_OR_RAISE(
        auto listed, pg::ListTables(sql_.get(), Where(), spec_.schemas, spec_.publication_name));
    FJORD_ASSIGN_OR_RAISE(auto included, IncludedTables(listed));
    for (const auto& t : included) {
      if (!t.published) continue;
      // A resumed snapshot reads only the tables of the first start; others are new tables.
      if (listed_ && pos.tables && pos.tables->count(t.oid) == 0) continue;
      snap_list_.push_back({t.oid, t.schema, t.name});
      if (listed_) known_.insert(t.oid);
    }
    if (pos.snapshot) {
      // Tables are read in (schema, table) order: resume at the table the position names.
      while (snap_index_ < snap_list_.size() &&
             QualifiedName(snap_list_[snap_index_].schema, snap_list_[snap_index_].name) <
                 pos.snapshot->table) {
        ++snap_index_;
      }
      if (snap_index_ < snap_list_.size() &&
          QualifiedName(snap_list_[snap_index_].schema, snap_list_[snap_index_].name) ==
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
  if (listed_) {
    if (pos.tables) {
      known_ = *pos.tables;
    } else {
      // A position of an older version: the published tables are taken as read.
      FJORD_ASSIGN_OR_RAISE(
          auto listed, pg::ListTables(sql_.get(), Where(), spec_.schemas, spec_.publication_name));
      for (const auto& t : listed) {
        if (t.published && Included(t.schema, t.name)) known_.insert(t.oid);
      }
    }
    fresh_ = pos.fresh;
  }
  FJORD_RETURN_NOT_OK(StartStreaming(pos.lsn));
  // New tables whose snapshot was not wholly handed out: the rest is read in a new snapshot
  // (the one at `at` died with the connection); their changes from `at` on are replayed over it.
  for (const auto& [oid, t] : fresh_) {
    if (!t.reading) continue;
    if (!snapshotting_) FJORD_RETURN_NOT_OK(BeginSnapshot(""));
    snap_new_ = true;
    snap_list_.push_back({oid, "", t.table});
  }
  return Status::OK();
}

Result<bool> PostgresSource::OpenSnapshotTable() {
  const SnapTable& st = snap_list_[snap_index_];
  std::string qualified =
      st.schema.empty() ? st.name : QualifiedName(st.schema, st.name);  // new: as found
  FJORD_ASSIGN_OR_RAISE(auto cols, pg::ReadColumns(sql_.get(), Where(), st.oid, qualified));
  if (cols.empty()) {
    if (snap_new_) return false;  // dropped since it was found
    return Status::NotFound(Where(), ": table ", qualified, " has disappeared");
  }
  TableInfo t;
  t.included = true;
  {
    // Its name now (a new table may have been renamed since it was found).
    FJORD_ASSIGN_OR_RAISE(
        PgResult name,
        Exec(sql_.get(),
             "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n "
             "ON n.oid = c.relnamespace WHERE c.oid = $1",
             {std::to_string(st.oid)}, PGRES_TUPLES_OK, "reading the name of " + qualified));
    if (PQntuples(name.get()) != 1)
      return snap_new_ ? Result<bool>(false)
                       : Status::NotFound(Where(), ": table ", qualified, " has disappeared");
    t.schema = PQgetvalue(name.get(), 0, 0);
    t.name = PQgetvalue(name.get(), 0, 1);
  }
  qualified = QualifiedName(t.schema, t.name);
  for (const auto& cc : cols) {
    Column c;
    c.name = cc.name;
    c.oid = cc.oid;
    c.typmod = cc.typmod;
    c.sql_type = cc.sql_type;
    t.columns.push_back(std::move(c));
  }
  FJORD_ASSIGN_OR_RAISE(t.primary_keys, pg::ReadPrimaryKey(sql_.get(), Where(), st.oid, qualified));
  if (t.primary_keys.empty()) return NoPrimaryKey(qualified);  // dropped since it was checked
  for (Column& c : t.columns) {
    c.key = std::find(t.primary_keys.begin(), t.primary_keys.end(), c.name) != t.primary_keys.end();
  }
  FJORD_RETURN_NOT_OK(LoadColumnTypes(&t, st.oid));
  if (snap_new_) {
    const NewTable& n = fresh_[st.oid];
    snap_ = SnapshotProgress{qualified, n.after, n.rows};
  }

  std::string sql = "DECLARE fjord_snapshot NO SCROLL CURSOR FOR SELECT ";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    sql += (i > 0 ? ", " : "") + QuoteIdent(t.columns[i].name);
  }
  sql += " FROM " + QuoteIdent(t.schema) + "." + QuoteIdent(t.name);
  std::vector<std::optional<std::string>> params;
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
      values += (i > 0 ? ", " : "") + std::string("$") + std::to_string(i + 1) + "::" + c->sql_type;
      params.emplace_back((*snap_->after)[i]);
    }
    sql += " WHERE (" + keys + ") > (" + values + ")";
  } else if (snap_ && snap_->rows > 0) {
    snap_->rows = 0;
  }
  sql += " ORDER BY " + keys;
  if (!snap_) snap_ = SnapshotProgress{qualified, std::nullopt, 0};
  FJORD_RETURN_NOT_OK(
      Exec(sql_.get(), sql, params, PGRES_COMMAND_OK, "opening the snapshot of " + qualified)
          .status());
  snap_table_ = std::move(t);
  cursor_open_ = true;
  snap_table_done_ = false;
  return true;
}

Status PostgresSource::ReadSnapshot(size_t max_records, const CdcCut& cut,
                                    std::vector<cdc::CdcRecord>* out) {
  while (snapshotting_ && out->size() < max_records) {
    if (snap_rows_.empty()) {
      if (!cursor_open_) {
        if (snap_index_ >= snap_list_.size()) {
          FJORD_RETURN_NOT_OK(
              Exec(sql_.get(), "COMMIT", {}, PGRES_COMMAND_OK, "ending the snapshot transaction")
                  .status());
          snapshotting_ = false;
          snap_.reset();
          if (!snap_new_) FJORD_RETURN_NOT_OK(StartStreaming(0));
          snap_new_ = false;
          snap_list_.clear();
          break;
        }
        FJORD_ASSIGN_OR_RAISE(bool opened, OpenSnapshotTable());
        if (!opened) {
          fresh_[snap_list_[snap_index_].oid].reading = false;
          ++snap_index_;
          snap_.reset();
          continue;
        }
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
        if (snap_new_) {
          NewTable& n = fresh_[snap_list_[snap_index_].oid];
          n.reading = false;
          n.after.reset();
          n.rows = 0;
        }
        ++snap_index_;
        snap_.reset();
        if (!snap_new_ && snap_index_ < snap_list_.size()) {
          snap_ = SnapshotProgress{
              QualifiedName(snap_list_[snap_index_].schema, snap_list_[snap_index_].name),
              std::nullopt, 0};
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
    snap_->after = std::move(key);
    if (snap_new_) {
      NewTable& n = fresh_[snap_list_[snap_index_].oid];
      n.rows = snap_->rows;
      n.after = snap_->after;
    }
  }
  return Status::OK();
}

Result<bool> PostgresSource::CheckNewTables() {
  last_check_ = std::chrono::steady_clock::now();
  check_now_ = false;
  checked_ = true;
  const std::string& pub = spec_.publication_name;
  FJORD_ASSIGN_OR_RAISE(auto listed, pg::ListTables(sql_.get(), Where(), spec_.schemas, pub));
  std::set<uint32_t> still;  // known tables still included and published
  std::map<std::string, std::string> names;
  std::vector<pg::CatalogTable> candidates;
  for (const auto& t : listed) {
    if (!Included(t.schema, t.name)) continue;
    if (known_.count(t.oid) != 0 && t.published) {
      still.insert(t.oid);
      names.emplace(t.name, t.schema);
    } else if (known_.count(t.oid) == 0) {
      candidates.push_back(t);
    }
  }
  // A table dropped, renamed out of the patterns or taken out of the publication is forgotten:
  // should it come back, it is read again from a snapshot.
  known_ = std::move(still);
  found_.clear();
  for (const auto& t : candidates) {
    auto [it, fresh] = names.emplace(t.name, t.schema);
    if (!fresh) {
      return SameName(it->second, t.schema, t.name);
    }
    FJORD_RETURN_NOT_OK(CheckPrimaryKeys({t}));
    if (!t.published) {
      // Not ours to change: its changes stay unread until someone adds it.
      if (!spec_.create_publication) continue;
      FJORD_RETURN_NOT_OK(AddToPublication(t));
    }
    found_.push_back(t);
  }
  if (found_.empty()) return false;
  // The snapshot of the new tables comes from a temporary slot: it holds exactly the
  // transactions that commit before the slot's consistent point, and the main stream holds the
  // later ones (the ALTER PUBLICATION above committed before it). Creating a slot waits for the
  // transactions running now; the stream waits meanwhile.
  FJORD_ASSIGN_OR_RAISE(temp_, pg::Connect(spec_, true));
  // Unique: the session of a killed process may still hold its temporary slot for a while.
  static std::atomic<uint32_t> counter{0};
  std::string name = spec_.slot_name.substr(0, 40) + "_new_" + std::to_string(getpid()) + "_" +
                     std::to_string(++counter);
  std::string sql = "CREATE_REPLICATION_SLOT " + QuoteIdent(name) +
                    " TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')";
  if (PQsendQuery(temp_.get(), sql.c_str()) != 1) {
    return Status::IOError(Where(), ": creating temporary replication slot ", name,
                           " failed: ", PQerrorMessage(temp_.get()));
  }
  return true;
}

Result<bool> PostgresSource::PollNewTablesSlot() {
  PGconn* conn = temp_.get();
  pollfd fd{PQsocket(conn), POLLIN, 0};
  poll(&fd, 1, static_cast<int>(spec_.idle_wait_ms));
  if (PQconsumeInput(conn) == 0) {
    return Status::IOError(Where(),
                           ": creating the temporary slot of new tables: ", PQerrorMessage(conn));
  }
  if (PQisBusy(conn)) return false;
  PgResult res(PQgetResult(conn));
  while (PGresult* extra = PQgetResult(conn)) PQclear(extra);
  if (res == nullptr || PQresultStatus(res.get()) != PGRES_TUPLES_OK) {
    std::string msg = res ? PQresultErrorMessage(res.get()) : PQerrorMessage(conn);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return Status::IOError(Where(), ": creating the temporary slot of new tables failed: ", msg);
  }
  FJORD_ASSIGN_OR_RAISE(uint64_t at, pgo::ParseLsn(PQgetvalue(res.get(), 0, 1)));
  std::string snapshot_name = PQgetvalue(res.get(), 0, 2);
  FJORD_RETURN_NOT_OK(BeginSnapshot(snapshot_name));
  temp_.reset();  // the snapshot lives on in our transaction; the slot goes with its session
  snap_new_ = true;
  for (const auto& t : found_) {
    known_.insert(t.oid);
    fresh_[t.oid] = NewTable{QualifiedName(t.schema, t.name), at, true, std::nullopt, 0};
    snap_list_.push_back({t.oid, t.schema, t.name});
  }
  found_.clear();
  return true;
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
    r.op_ts_ms = 0;  // a snapshot read has no change time (Java's op_ts is 0 too)
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
      txn_ts_ms_ = m.timestamp / 1000 + 946684800000;  // microseconds since 2000-01-01
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
        std::string qualified = QualifiedName(t.schema, t.name);
        FJORD_ASSIGN_OR_RAISE(t.primary_keys,
                              pg::ReadPrimaryKey(sql_.get(), Where(), m.relation_id, qualified));
        // A table created without one under a schema publication, or one whose key was dropped.
        if (t.primary_keys.empty()) return NoPrimaryKey(qualified);
        FJORD_RETURN_NOT_OK(LoadColumnTypes(&t, m.relation_id));
        if (!listed_ && spec_.schemas.size() > 1 && relations_.count(m.relation_id) == 0) {
          // A new table of the stream: records name tables without their schema.
          FJORD_ASSIGN_OR_RAISE(
              auto same, pg::SameNamedTables(sql_.get(), Where(), spec_.schemas, t.schema, t.name));
          for (const std::string& other : same) {
            if (Included(other.substr(0, other.size() - t.name.size() - 1), t.name)) {
              return Status::Invalid(Where(), ": tables ", other, " and ", qualified,
                                     " are both included; change records name tables without "
                                     "their schema, so include only one of them");
            }
          }
        }
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
      if (listed_ && known_.count(m.relation_id) == 0) {
        // Published but not found yet (someone added it to the publication): its rows, these
        // changes among them, come from its snapshot once the check finds it.
        check_now_ = true;
        ++txn_changes_;
        return Status::OK();
      }
      if (auto fresh = fresh_.find(m.relation_id);
          fresh != fresh_.end() && txn_lsn_ < fresh->second.at) {
        ++txn_changes_;  // committed before its snapshot: the snapshot holds it
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
      for (auto& r : p.records) {
        r.origin = origin;
        r.op_ts_ms = txn_ts_ms_;
      }
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
  auto now = std::chrono::steady_clock::now();
  if (streaming_ && (confirm_target_.load() > confirm_sent_ ||
                     now - last_status_ >= std::chrono::milliseconds(spec_.status_interval_ms))) {
    FJORD_RETURN_NOT_OK(SendStatus(false));
  }
  if (temp_) {
    FJORD_ASSIGN_OR_RAISE(bool ready, PollNewTablesSlot());
    if (!ready) return Status::OK();
  }
  FJORD_RETURN_NOT_OK(ReadSnapshot(max_records, cut, out));
  if (!streaming_ || snapshotting_) return Status::OK();

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
    if (!in_txn_) {
      // Between transactions: new tables' entries end once the stream is past their snapshot;
      // new tables are looked for.
      for (auto it = fresh_.begin(); it != fresh_.end();) {
        it = !it->second.reading && it->second.at <= lsn_ ? fresh_.erase(it) : std::next(it);
      }
      if (listed_ && (check_now_ || !checked_ ||
                      std::chrono::steady_clock::now() - last_check_ >=
                          std::chrono::milliseconds(spec_.discovery_interval_ms))) {
        FJORD_ASSIGN_OR_RAISE(bool found, CheckNewTables());
        if (found) return Status::OK();
      }
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
  if (bounded && !in_txn_ && !held_ && decoded_.empty() && lsn_ >= bounded_end_ && !temp_ &&
      (!listed_ || checked_)) {
    *end = true;
  }
  return Status::OK();
}

std::string PostgresSource::Position() const {
  SourcePosition p;
  p.lsn = lsn_;
  if (in_txn_ && txn_changes_ > 0) {
    p.txn = txn_lsn_;
    p.skip = txn_changes_;
  }
  if (snapshotting_ && !snap_new_) {
    p.snapshot = snap_;
    if (!p.snapshot && snap_index_ < snap_list_.size()) {
      p.snapshot = SnapshotProgress{
          QualifiedName(snap_list_[snap_index_].schema, snap_list_[snap_index_].name), std::nullopt,
          0};
    }
  }
  if (listed_) p.tables = known_;
  p.fresh = fresh_;
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
