// The filesystem catalog: a warehouse directory (local or `s3://`) holding databases
// (`<name>.db/`) holding tables, laid out as Java Paimon's filesystem catalog lays them out, so
// Flink, Spark and pypaimon pointed at the same warehouse see the same tables.
//
// Thread safety: a Catalog holds no mutable state of its own; its methods may be called from
// several threads at once. Two processes (or threads) altering the same table race on the next
// schema file: one wins, the other retries on top of it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/file_io.h"
#include "fjord/result.h"

namespace fjord {

class FileSystemCatalog;
class Table;

// "database.table".
struct TableIdentifier {
  std::string database;
  std::string table;
  // Parses "db.table"; Invalid unless both parts are non-empty.
  static Result<TableIdentifier> Parse(std::string_view text);
  std::string ToString() const { return database + "." + table; }
};

// What CREATE TABLE says. Field ids are assigned by the catalog (depth-first from 0); primary-key
// columns become NOT NULL as Java makes them.
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
    kRemoveOption,
    kUpdateColumnComment,
    kUpdateComment
  };
  // Where kAddColumn puts the new field among its siblings (Java's SchemaChange.Move).
  enum class Position { kLast, kFirst, kAfter };
  Kind kind;
  std::string name;                    // column, or option key
  std::string new_name;                // kRenameColumn
  DataTypePtr type;                    // kAddColumn, kUpdateColumnType
  std::string value;                   // kSetOption
  std::optional<std::string> comment;  // kAddColumn, kUpdateColumnComment, kUpdateComment
  // A nested field (Java's field-name paths): the column, then a field name per ROW level and
  // one step (any name; "element" / "value" by convention) through each ARRAY / MAP value.
  // Empty: the column `name` itself. Set by the Nested factories, with `name` = path[0].
  std::vector<std::string> path;
  Position position = Position::kLast;  // kAddColumn
  std::string after;                    // kAddColumn with kAfter: the sibling it follows

  static SchemaChange AddColumn(std::string name, DataTypePtr type);
  static SchemaChange DropColumn(std::string name);
  static SchemaChange RenameColumn(std::string name, std::string new_name);
  static SchemaChange UpdateColumnType(std::string name, DataTypePtr type);
  static SchemaChange SetOption(std::string key, std::string value);
  static SchemaChange RemoveOption(std::string key);
  // A column's comment (nullopt: none), and the table's comment.
  static SchemaChange UpdateColumnComment(std::string name, std::optional<std::string> comment);
  static SchemaChange UpdateComment(std::optional<std::string> comment);

  // Changes of nested fields as Java's SchemaManager applies them (docs/schema-evolution.md):
  // e.g. {"v", "b"} is field b of ROW column v, {"v", "element", "x"} field x of the ROWs in
  // ARRAY column v, {"m", "value"} the value type of MAP column m.
  static SchemaChange AddNestedColumn(std::vector<std::string> path, DataTypePtr type,
                                      std::optional<std::string> comment = std::nullopt);
  static SchemaChange DropNestedColumn(std::vector<std::string> path);
  static SchemaChange RenameNestedColumn(std::vector<std::string> path, std::string new_name);
  static SchemaChange UpdateNestedColumnType(std::vector<std::string> path, DataTypePtr type);
  static SchemaChange UpdateNestedColumnComment(std::vector<std::string> path,
                                                std::optional<std::string> comment);
  // kAddColumn: first among its siblings, or right after `sibling`.
  SchemaChange& First();
  SchemaChange& After(std::string sibling);
  // `path`, or {name} when it is empty.
  std::vector<std::string> FieldPath() const;
};

class Catalog {
 public:
  // Opens the catalog of `warehouse`, creating the directory when missing. `options` are the
  // catalog's own: `table-default.<key>` gives new tables a default for <key>; `s3.*` configure
  // the object store (file_io.h). Errors: IOError when the warehouse cannot be reached.
  static Result<std::unique_ptr<Catalog>> Open(const std::string& warehouse,
                                               std::map<std::string, std::string> options = {});
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  const std::string& warehouse() const;
  const std::map<std::string, std::string>& options() const;
  // Where a database and a table live (nothing is checked or created).
  std::string DatabasePath(const std::string& database) const;
  std::string TablePath(const TableIdentifier& id) const;

  // AlreadyExists unless `ignore_if_exists`.
  Status CreateDatabase(const std::string& name, bool ignore_if_exists = false);
  // Sorted by name.
  Result<std::vector<std::string>> ListDatabases() const;
  // NotFound unless `ignore_if_not_exists`; a database that still has tables is refused
  // (Invalid) unless `cascade`, which drops them with it.
  Status DropDatabase(const std::string& name, bool ignore_if_not_exists = false,
                      bool cascade = false);

  // Validates `spec` as Java's SchemaValidation does (keys exist, primary keys include the
  // partition keys, bucket rules, option values and immutability) and writes schema/schema-0 with
  // the catalog's `table-default.*` options under the spec's own. AlreadyExists unless
  // `ignore_if_exists`; Invalid naming the offending column or option; NotImplemented naming
  // each option (and value) Fjord does not honour (docs/options.md); NotFound for a missing
  // database. Performance-only options and unknown keys are kept, with a warning (warning.h).
  Status CreateTable(const TableIdentifier& id, const TableSpec& spec,
                     bool ignore_if_exists = false);
  // Sorted by name.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  // Removes the table directory with everything in it. NotFound unless `ignore_if_not_exists`.
  Status DropTable(const TableIdentifier& id, bool ignore_if_not_exists = false);
  // Applies `changes` in order as one new schema version. A change Java refuses (partition or
  // primary-key columns, immutable options, narrowing casts, deletion vectors switched without
  // `deletion-vectors.modifiable`, ...) is Invalid, setting an option Fjord does not honour is
  // NotImplemented, and nothing is written. A concurrent ALTER that wins the race for the schema id
  // is retried on top of it.
  Status AlterTable(const TableIdentifier& id, const std::vector<SchemaChange>& changes);
  // Opens a table of the catalog (its latest schema). NotFound when it does not exist.
  Result<std::unique_ptr<Table>> GetTable(const TableIdentifier& id) const;

 private:
  explicit Catalog(std::unique_ptr<FileSystemCatalog> impl);
  std::unique_ptr<FileSystemCatalog> impl_;
};

}  // namespace fjord
