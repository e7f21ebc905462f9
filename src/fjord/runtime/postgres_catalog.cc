#include "fjord/runtime/postgres_catalog.h"

#include <algorithm>
#include <utility>

namespace fjord::runtime::pg {

std::string QuoteIdent(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

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

std::string Where(const PostgresSourceSpec& spec) {
  return "PostgreSQL " + spec.host + ":" + std::to_string(spec.port) + " database " + spec.database;
}

Result<PgConn> Connect(const PostgresSourceSpec& spec, bool replication) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"host", spec.host},
      {"port", std::to_string(spec.port)},
      {"dbname", spec.database},
      {"user", spec.user},
      {"application_name", "fjord " + spec.slot_name},
      {"connect_timeout", "10"},
      // The value text depends on these (cdc/postgres_types.h); the walsender formats values
      // with its own session's settings, so both connections set them.
      {"options",
       "-c DateStyle=ISO -c TimeZone=UTC -c bytea_output=hex -c extra_float_digits=3 "
       "-c IntervalStyle=postgres"}};
  if (!spec.password.empty()) kv.emplace_back("password", spec.password);
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
    return Status::IOError(Where(spec), ": cannot connect as user ", spec.user,
                           replication ? " (replication)" : "", ": ", msg);
  }
  // Server notices (e.g. CREATE PUBLICATION's) are not errors; libpq would print them.
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  return conn;
}

Result<PgResult> Exec(PGconn* conn, const std::string& where, const std::string& sql,
                      const std::vector<std::optional<std::string>>& params, ExecStatusType expect,
                      const std::string& what) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  PgResult res(params.empty() ? PQexec(conn, sql.c_str())
                              : PQexecParams(conn, sql.c_str(), static_cast<int>(params.size()),
                                             nullptr, values.data(), nullptr, nullptr, 0));
  if (res == nullptr || PQresultStatus(res.get()) != expect) {
    std::string msg = res ? PQresultErrorMessage(res.get()) : PQerrorMessage(conn);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return Status::IOError(where, ": ", what, " failed: ", msg);
  }
  return res;
}

namespace {

std::string SchemaList(const std::vector<std::string>& schemas) {
  std::string out;
  for (const auto& s : schemas) out += (out.empty() ? "" : ", ") + QuoteLiteral(s);
  return out.empty() ? "NULL" : out;
}

uint32_t Oid(const char* text) { return static_cast<uint32_t>(std::stoul(text)); }

}  // namespace

Result<std::vector<CatalogTable>> ListTables(PGconn* conn, const std::string& where,
                                             const std::vector<std::string>& schemas,
                                             const std::string& publication) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where,
           "SELECT c.oid, n.nspname, c.relname, p.tablename IS NOT NULL FROM pg_class c JOIN "
           "pg_namespace n ON n.oid = c.relnamespace LEFT JOIN (SELECT schemaname, tablename "
           "FROM pg_publication_tables WHERE pubname = $1) p ON p.schemaname = n.nspname AND "
           "p.tablename = c.relname WHERE c.relkind = 'r' AND n.nspname IN (" +
               SchemaList(schemas) + ")",
           {publication}, PGRES_TUPLES_OK, "listing the tables"));
  std::vector<CatalogTable> out;
  for (int i = 0; i < PQntuples(res.get()); ++i) {
    CatalogTable t;
    t.oid = Oid(PQgetvalue(res.get(), i, 0));
    t.schema = PQgetvalue(res.get(), i, 1);
    t.name = PQgetvalue(res.get(), i, 2);
    t.published = std::string(PQgetvalue(res.get(), i, 3)) == "t";
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(), [](const CatalogTable& x, const CatalogTable& y) {
    return QualifiedName(x.schema, x.name) < QualifiedName(y.schema, y.name);
  });
  return out;
}

Result<PublicationInfo> ReadPublication(PGconn* conn, const std::string& where,
                                        const std::string& name) {
  PublicationInfo info;
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where, "SELECT oid, puballtables FROM pg_publication WHERE pubname = $1", {name},
           PGRES_TUPLES_OK, "looking up publication " + name));
  if (PQntuples(res.get()) == 0) return info;
  info.exists = true;
  info.all_tables = std::string(PQgetvalue(res.get(), 0, 1)) == "t";
  if (PQserverVersion(conn) >= 150000) {
    FJORD_ASSIGN_OR_RAISE(
        PgResult schemas,
        Exec(conn, where,
             "SELECT n.nspname FROM pg_publication_namespace p JOIN pg_namespace n ON n.oid = "
             "p.pnnspid WHERE p.pnpubid = $1",
             {std::string(PQgetvalue(res.get(), 0, 0))}, PGRES_TUPLES_OK,
             "reading the schemas of publication " + name));
    for (int i = 0; i < PQntuples(schemas.get()); ++i) {
      info.schemas.push_back(PQgetvalue(schemas.get(), i, 0));
    }
  }
  return info;
}

Result<std::vector<std::string>> ReadPrimaryKey(PGconn* conn, const std::string& where,
                                                uint32_t relid, const std::string& table) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where,
           "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND "
           "a.attnum = ANY (i.indkey) WHERE i.indrelid = $1 AND i.indisprimary "
           "ORDER BY array_position(i.indkey::int2[], a.attnum)",
           {std::to_string(relid)}, PGRES_TUPLES_OK, "reading the primary key of " + table));
  std::vector<std::string> keys;
  for (int i = 0; i < PQntuples(res.get()); ++i) keys.push_back(PQgetvalue(res.get(), i, 0));
  return keys;
}

Result<std::vector<CatalogColumn>> ReadColumns(PGconn* conn, const std::string& where,
                                               uint32_t relid, const std::string& table) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where,
           "SELECT a.attname, a.atttypid, a.atttypmod, format_type(a.atttypid, a.atttypmod) FROM "
           "pg_attribute a WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped AND "
           "a.attgenerated = '' ORDER BY a.attnum",
           {std::to_string(relid)}, PGRES_TUPLES_OK, "reading the columns of " + table));
  std::vector<CatalogColumn> out;
  for (int i = 0; i < PQntuples(res.get()); ++i) {
    CatalogColumn c;
    c.name = PQgetvalue(res.get(), i, 0);
    c.oid = Oid(PQgetvalue(res.get(), i, 1));
    c.typmod = std::stoi(PQgetvalue(res.get(), i, 2));
    c.sql_type = PQgetvalue(res.get(), i, 3);
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::set<std::string>> ReadNotNullColumns(PGconn* conn, const std::string& where,
                                                 uint32_t relid, const std::string& table) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where,
           "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = $1 AND a.attnum > 0 AND "
           "NOT a.attisdropped AND a.attnotnull",
           {std::to_string(relid)}, PGRES_TUPLES_OK, "reading the NOT NULL columns of " + table));
  std::set<std::string> out;
  for (int i = 0; i < PQntuples(res.get()); ++i) out.insert(PQgetvalue(res.get(), i, 0));
  return out;
}

Result<std::optional<CatalogType>> ReadType(PGconn* conn, const std::string& where, uint32_t oid) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where,
           "SELECT typtype, typbasetype, format_type(oid, NULL) FROM pg_type WHERE oid = $1",
           {std::to_string(oid)}, PGRES_TUPLES_OK, "looking up type " + std::to_string(oid)));
  if (PQntuples(res.get()) != 1) return std::optional<CatalogType>();
  CatalogType t;
  t.kind = PQgetvalue(res.get(), 0, 0);
  t.base_oid = Oid(PQgetvalue(res.get(), 0, 1));
  t.name = PQgetvalue(res.get(), 0, 2);
  return std::optional<CatalogType>(std::move(t));
}

Result<std::vector<std::string>> SameNamedTables(PGconn* conn, const std::string& where,
                                                 const std::vector<std::string>& schemas,
                                                 const std::string& schema,
                                                 const std::string& table) {
  FJORD_ASSIGN_OR_RAISE(
      PgResult res,
      Exec(conn, where,
           "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE "
           "c.relkind = 'r' AND c.relname = $1 AND n.nspname <> $2 AND n.nspname IN (" +
               SchemaList(schemas) + ")",
           {table, schema}, PGRES_TUPLES_OK, "looking up tables named " + table));
  std::vector<std::string> out;
  for (int i = 0; i < PQntuples(res.get()); ++i) {
    out.push_back(QualifiedName(PQgetvalue(res.get(), i, 0), table));
  }
  return out;
}

}  // namespace fjord::runtime::pg
