// Connections and catalog queries of the direct PostgreSQL source (runtime/postgres_source.h;
// docs/cdc.md, "The PostgreSQL source"): the tables of the included schemas and whether the
// publication holds them, the publication's kind, primary keys, columns and user types.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fjord/result.h"
#include "fjord/runtime/job_spec.h"

namespace fjord::runtime::pg {

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgConn = std::unique_ptr<PGconn, ConnDeleter>;
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

std::string QuoteIdent(const std::string& s);
// standard_conforming_strings is on (the default since 9.1): only quotes need doubling.
std::string QuoteLiteral(const std::string& s);
std::string QualifiedName(const std::string& schema, const std::string& table);

// "PostgreSQL host:port database db", the start of every error.
std::string Where(const PostgresSourceSpec& spec);

// A normal or a `replication=database` connection with the session settings the value texts
// depend on (cdc/postgres_types.h).
Result<PgConn> Connect(const PostgresSourceSpec& spec, bool replication);

// Runs `sql` (with text parameters when given); a status other than `expect` is IOError naming
// `what` and the server's message.
Result<PgResult> Exec(PGconn* conn, const std::string& where, const std::string& sql,
                      const std::vector<std::optional<std::string>>& params, ExecStatusType expect,
                      const std::string& what);

struct CatalogTable {
  uint32_t oid = 0;
  std::string schema;
  std::string name;
  bool published = false;  // in pg_publication_tables of the publication
};

// The plain tables (relkind r) of `schemas` as the connection's snapshot sees them, in byte order
// of "schema.table" (the order the snapshot reads them in, whatever the collation).
Result<std::vector<CatalogTable>> ListTables(PGconn* conn, const std::string& where,
                                             const std::vector<std::string>& schemas,
                                             const std::string& publication);

struct PublicationInfo {
  bool exists = false;
  bool all_tables = false;           // FOR ALL TABLES
  std::vector<std::string> schemas;  // FOR TABLES IN SCHEMA (PostgreSQL 15)
};
Result<PublicationInfo> ReadPublication(PGconn* conn, const std::string& where,
                                        const std::string& name);

// The primary key columns of table `relid` in key order (none: no primary key).
Result<std::vector<std::string>> ReadPrimaryKey(PGconn* conn, const std::string& where,
                                                uint32_t relid, const std::string& table);

struct CatalogColumn {
  std::string name;
  uint32_t oid = 0;
  int32_t typmod = -1;
  std::string sql_type;  // format_type()
};
// The stored (not generated, not dropped) columns of table `relid` in order; empty when the
// table does not exist (in the connection's snapshot).
Result<std::vector<CatalogColumn>> ReadColumns(PGconn* conn, const std::string& where,
                                               uint32_t relid, const std::string& table);

// The names of the NOT NULL columns of table `relid` (pg_attribute.attnotnull), as the catalog is
// now (in the connection's snapshot).
Result<std::set<std::string>> ReadNotNullColumns(PGconn* conn, const std::string& where,
                                                 uint32_t relid, const std::string& table);

struct CatalogType {
  std::string kind;       // pg_type.typtype: e enum, d domain, ...
  uint32_t base_oid = 0;  // a domain's base type
  std::string name;       // format_type()
};
Result<std::optional<CatalogType>> ReadType(PGconn* conn, const std::string& where, uint32_t oid);

// The names of the other tables called `table` in `schemas` (not in `schema`).
Result<std::vector<std::string>> SameNamedTables(PGconn* conn, const std::string& where,
                                                 const std::vector<std::string>& schemas,
                                                 const std::string& schema,
                                                 const std::string& table);

}  // namespace fjord::runtime::pg
