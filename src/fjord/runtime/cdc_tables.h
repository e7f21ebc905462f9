// The tables of a CDC job (docs/cdc.md): which Paimon table each change record goes to (table
// sync: the one table of `sink.table`; database sync: in `sink.database`, as Java's
// TableNameConverter names it: `table-mapping` of the source table's name, else the prefix +
// name + suffix, the prefix and suffix of `table-prefix-db` / `table-suffix-db` for its source
// database over `table-prefix` / `table-suffix`, the name being `<database>_<table>` without
// `merge-shards`; source databases that `including-dbs` does not match or `excluding-dbs`
// matches, and source tables that `including-tables` does not match or `excluding-tables`
// matches, are skipped), the computed and metadata columns of each, tables created from the
// first record's schema (primary and partition keys of the job, else the record's primary keys;
// `table-options`), and the schema changes records ask of existing tables
// (cdc/schema_change.h), applied through the catalog. Used on the job's source thread only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "fjord/catalog.h"
#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/computed_column.h"
#include "fjord/cdc/schema_change.h"
#include "fjord/result.h"
#include "fjord/runtime/cdc_metadata.h"
#include "fjord/runtime/job_spec.h"
#include "fjord/schema.h"

namespace fjord::runtime {

struct CdcTableEvents {
  int64_t created = 0;   // tables created
  int64_t altered = 0;   // schema changes applied (ALTER TABLE steps)
  int64_t ignored = 0;   // type changes ignored (narrowing), counted once per table and column
  int64_t missing = 0;   // table columns records lack (NULL in their rows), once per table, column
  int64_t excluded = 0;  // records of source tables the job does not synchronize
};

class CdcTables {
 public:
  static Result<std::unique_ptr<CdcTables>> Make(const JobSpec& spec);

  // The Paimon table ("database.table") of `record`, or nullopt when the job skips its source
  // table. Invalid naming the record's origin when database sync cannot tell its table.
  Result<std::optional<std::string>> Target(const cdc::CdcRecord& record);
  // Target, for a record the job takes: a skipped one is counted (events().excluded) and its
  // source table logged, once.
  Result<std::optional<std::string>> Route(const cdc::CdcRecord& record,
                                           std::vector<std::string>* log);
  // The directory of table `target`.
  std::string TablePath(const std::string& target) const;
  // Whether the table exists (created by the job or before it).
  Result<bool> Exists(const std::string& target);
  // Whether `record` asks something of its table: to be created, or a schema change (also one
  // that fails: Apply then says why). Type changes ignored (narrowing) are logged here, once per
  // table, column and type; so are the table's columns the record lacks, once per table and
  // column.
  Result<bool> NeedsChange(const std::string& target, const cdc::CdcRecord& record,
                           std::vector<std::string>* log);
  // Creates the table, or applies the record's schema changes to it. True when an existing
  // table's schema changed (its writers must reopen). Logs what it did and what it ignored.
  Result<bool> Apply(const std::string& target, const cdc::CdcRecord& record,
                     std::vector<std::string>* log);
  // Appends the table's computed columns, then the job's metadata columns, to `record`.
  Status Compute(const std::string& target, cdc::CdcRecord* record);
  // The table's current schema (after Exists or Apply said it is there).
  const TableSchema& Schema(const std::string& target) const { return known_.at(target).schema; }
  // The tables of the sink that exist now (table sync: the table; database sync: the database's).
  Result<std::vector<std::string>> ExistingTables();

  const CdcTableEvents& events() const { return events_; }

 private:
  struct Known {
    TableSchema schema;
    std::vector<cdc::ComputedColumn> computed;
    bool computed_ready = false;
    std::map<std::string, bool> needs;  // record layout signature -> needs a change
  };
  explicit CdcTables(const JobSpec& spec) : spec_(spec) {}
  Result<TableIdentifier> Identifier(const std::string& target) const;
  Result<Known*> Load(const std::string& target);
  Status ReadSchema(const std::string& target, Known* known);
  Status PrepareComputed(Known* known, const cdc::CdcRecord& record);
  // The record with the computed columns' names and types (no values), as planning needs it.
  Result<cdc::CdcRecord> Planned(const Known& known, const cdc::CdcRecord& record) const;
  Status Create(const std::string& target, const cdc::CdcRecord& record, Known* known,
                std::vector<std::string>* log);
  // Why database sync skips the source table, empty when it does not.
  std::string Skipped(const std::optional<std::string>& database, const std::string& table) const;
  // The Paimon table name of a source table (Java's TableNameConverter).
  Result<std::string> TableName(const cdc::CdcRecord& record) const;

  JobSpec spec_;
  cdc::TypeMapping mapping_;
  std::unique_ptr<Catalog> catalog_;
  std::string database_;  // table sync: the table's database
  std::string table_;     // table sync: the table's name
  std::vector<MetadataColumn> metadata_;
  std::regex including_;
  std::optional<std::regex> excluding_;
  std::regex including_dbs_;
  std::optional<std::regex> excluding_dbs_;
  struct Routed {
    std::optional<std::string> target;
    std::string skipped;  // why, when target is nullopt
    bool reported = false;
  };
  std::map<std::pair<std::optional<std::string>, std::string>, Routed> targets_;
  std::map<std::string, Known> known_;
  std::set<std::string> reported_ignored_;
  std::set<std::string> reported_missing_;
  CdcTableEvents events_;
};

}  // namespace fjord::runtime
