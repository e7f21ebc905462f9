// The direct PostgreSQL CDC source (docs/cdc.md, "The PostgreSQL source"): an initial snapshot
// of the included tables, then their changes read from a logical replication slot with the
// built-in `pgoutput` plugin, through libpq. One change (an insert, update or delete) is one
// message of CdcSource (runtime/cdc_source.h); the position is the replication LSN plus the
// changes of the transaction in progress already handed out, or the snapshot's progress.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/result.h"
#include "fjord/runtime/cdc_source.h"

namespace fjord::runtime {

struct PostgresSourceSpec {
  std::string host = "127.0.0.1";
  int port = 5432;
  std::string user = "postgres";
  std::string password;  // empty: none (trust, or ~/.pgpass / PGPASSWORD as libpq reads them)
  std::string database;
  // The schemas whose tables are included (exact names); empty: "public".
  std::vector<std::string> schemas;
  // Regular expressions (ECMAScript, whole match) on the table name or on "schema.table", as
  // Java's postgres_sync_table --table_name; a table is included when one matches. Empty: every
  // table of `schemas`.
  std::vector<std::string> tables;
  std::string slot_name = "fjord";
  std::string publication_name = "fjord";
  // Create the slot / the publication (FOR TABLE the included tables, publishing inserts,
  // updates and deletes) when missing; otherwise a missing one is NotFound.
  bool create_slot = true;
  bool create_publication = true;
  // How often a standby status update goes to the server (also what keeps the walsender from
  // timing the connection out).
  int64_t status_interval_ms = 10000;
  int64_t idle_wait_ms = 150;
  // Rows fetched per query of the initial snapshot.
  int64_t snapshot_fetch_rows = 5000;
  cdc::TypeMapping type_mapping;  // to-string maps every column to STRING
};

// Checks the spec and builds the source; nothing connects before Seek.
Result<std::unique_ptr<CdcSource>> MakePostgresSource(const PostgresSourceSpec& spec);

}  // namespace fjord::runtime
