// The filesystem catalog: a warehouse directory holding databases (`<name>.db/`) holding tables
// (spec/format.md §1.1, behaviour.md §9). Creating and altering tables writes schema files the way
// Java Paimon does, with Java's validation rules.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/file_io.h"
#include "fjord/meta/table_schema.h"

namespace fjord {

class Table;

struct TableIdentifier {
  std::string database;
  std::string table;
  // Parses "db.table".
  static Result<TableIdentifier> Parse(std::string_view text);
  std::string ToString() const { return database + "." + table; }
};

// What CREATE TABLE says. Field ids are assigned by the catalog (depth-first from 0).
struct TableSpec {
  std::vector<DataField> fields;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  std::vector<std::pair<std::string, std::string>> options;  // in the order given
  std::optional<std::string> comment;
};

// One ALTER TABLE step.
struct SchemaChange {
  enum class Kind {
    kAddColumn,
    kDropColumn,
    kRenameColumn,
    kUpdateColumnType,
    kSetOption,
    kRemoveOption
  };
  Kind kind;
  std::string name;                    // column, or option key
  std::string new_name;                // kRenameColumn
  DataTypePtr type;                    // kAddColumn, kUpdateColumnType
  std::string value;                   // kSetOption
  std::optional<std::string> comment;  // kAddColumn

  static SchemaChange AddColumn(std::string name, DataTypePtr type);
  static SchemaChange DropColumn(std::string name);
  static SchemaChange RenameColumn(std::string name, std::string new_name);
  static SchemaChange UpdateColumnType(std::string name, DataTypePtr type);
  static SchemaChange SetOption(std::string key, std::string value);
  static SchemaChange RemoveOption(std::string key);
};

// Checks a new table schema as Java's SchemaValidation does: keys exist, primary keys include the
// partition keys, bucket / bucket-key rules per table kind, option values, field-scoped options.
Status ValidateTableSchema(const TableSchema& schema);

// Applies `changes` to `schema` giving the next schema version (id + 1), or a clear error when a
// change is not allowed (partition or primary-key columns, immutable options, narrowing types...).
Result<TableSchema> ApplySchemaChanges(const TableSchema& schema,
                                       const std::vector<SchemaChange>& changes,
                                       int64_t now_millis);

class Catalog {
 public:
  // `options` are the catalog's own (e.g. table-default.*, s3.*). The warehouse directory is
  // created when missing.
  static Result<std::unique_ptr<Catalog>> Open(const std::string& warehouse,
                                               std::map<std::string, std::string> options = {});

  const std::string& warehouse() const { return warehouse_; }
  std::string DatabasePath(const std::string& db) const;
  std::string TablePath(const TableIdentifier& id) const;

  Status CreateDatabase(const std::string& name, bool ignore_if_exists = false);
  Result<std::vector<std::string>> ListDatabases() const;
  // A database with tables is refused unless `cascade`.
  Status DropDatabase(const std::string& name, bool ignore_if_not_exists = false,
                      bool cascade = false);

  // Validates and writes schema/schema-0 (catalog `table-default.*` options copied in for keys the
  // spec does not set). AlreadyExists unless `ignore_if_exists`.
  Status CreateTable(const TableIdentifier& id, const TableSpec& spec,
                     bool ignore_if_exists = false);
  Result<std::vector<std::string>> ListTables(const std::string& db) const;
  Status DropTable(const TableIdentifier& id, bool ignore_if_not_exists = false);
  // Writes the next schema file; a concurrent ALTER that wins the race is retried on top of it.
  Status AlterTable(const TableIdentifier& id, const std::vector<SchemaChange>& changes);
  Result<std::unique_ptr<Table>> GetTable(const TableIdentifier& id) const;

  const std::map<std::string, std::string>& options() const { return options_; }

 private:
  Catalog(std::shared_ptr<FileIO> io, std::string warehouse,
          std::map<std::string, std::string> options);

  std::shared_ptr<FileIO> io_;
  std::string warehouse_;
  std::map<std::string, std::string> options_;
};

// The schema CREATE TABLE would write (ids assigned, keys NOT NULL, options merged), validated.
Result<TableSchema> NewTableSchema(const TableSpec& spec,
                                   const std::map<std::string, std::string>& catalog_options,
                                   int64_t now_millis);

}  // namespace fjord
