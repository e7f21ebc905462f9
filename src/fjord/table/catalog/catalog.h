// The filesystem catalog behind fjord/catalog.h: a warehouse directory holding databases
// (`<name>.db/`) holding tables (spec/format.md §1.1, behaviour.md §9). Creating and altering
// tables writes schema files the way Java Paimon does, with Java's validation rules.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/catalog.h"
#include "fjord/data_type.h"
#include "fjord/file_io.h"
#include "fjord/schema.h"

namespace fjord {

class FileStoreTable;

// Checks a new table schema as Java's SchemaValidation does: keys exist, primary keys include the
// partition keys, bucket / bucket-key rules per table kind, option values, field-scoped options.
Status ValidateTableSchema(const TableSchema& schema);

// Applies `changes` to `schema` giving the next schema version (id + 1), or a clear error when a
// change is not allowed (partition or primary-key columns, immutable options, narrowing types...).
Result<TableSchema> ApplySchemaChanges(const TableSchema& schema,
                                       const std::vector<SchemaChange>& changes,
                                       int64_t now_millis);

// ALTER TABLE of the table at `table_path` (what FileSystemCatalog::AlterTable does by name):
// applies `changes` to its latest schema and writes the next schema file, re-applying them on top
// of a concurrent ALTER that won the race. NotFound when the directory holds no schema; the
// errors of ApplySchemaChanges name `display_name`.
Status AlterTableAt(const std::shared_ptr<FileIO>& io, const std::string& table_path,
                    const std::vector<SchemaChange>& changes, const std::string& display_name);

class FileSystemCatalog {
 public:
  // `options` are the catalog's own (e.g. table-default.*, s3.*). The warehouse directory is
  // created when missing.
  static Result<std::unique_ptr<FileSystemCatalog>> Open(
      const std::string& warehouse, std::map<std::string, std::string> options = {});

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
  Result<std::unique_ptr<FileStoreTable>> GetTable(const TableIdentifier& id) const;

  const std::map<std::string, std::string>& options() const { return options_; }

 private:
  FileSystemCatalog(std::shared_ptr<FileIO> io, std::string warehouse,
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
