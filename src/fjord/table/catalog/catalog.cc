#include "fjord/table/catalog/catalog.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "fjord/common/strings.h"
#include "fjord/format/evolution_cast.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/options.h"
#include "fjord/table/catalog/nested_columns.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

namespace {

constexpr std::string_view kDbSuffix = ".db";

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Join(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out + "]";
}

Status CheckName(std::string_view what, const std::string& name) {
  if (name.empty()) return Status::Invalid(what, " name must not be empty");
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    return Status::Invalid(what, " name '", name, "' is not allowed");
  }
  return Status::OK();
}

std::optional<std::string> GetOption(const TableSchema& s, const std::string& key) {
  for (const auto& [k, v] : s.options) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void SetOptionValue(TableSchema* s, const std::string& key, const std::string& value) {
  for (auto& [k, v] : s->options) {
    if (k == key) {
      v = value;
      return;
    }
  }
  s->options.emplace_back(key, value);
}

// The column names a `fields.<...>.<suffix>` option refers to; empty for other keys.
std::vector<std::string> FieldsOfOption(const std::string& key) {
  if (key.rfind("fields.", 0) != 0) return {};
  if (key == "fields.default-aggregate-function") return {};
  size_t last = key.rfind('.');
  if (last <= 7) return {};
  return SplitCommaList(std::string_view(key).substr(7, last - 7));
}

}  // namespace

Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size() ||
      text.find('.', dot + 1) != std::string_view::npos) {
    return Status::Invalid("a table is named <database>.<table>, got '", text, "'");
  }
  return TableIdentifier{std::string(text.substr(0, dot)), std::string(text.substr(dot + 1))};
}

SchemaChange SchemaChange::AddColumn(std::string name, DataTypePtr type) {
  return SchemaChange{Kind::kAddColumn, std::move(name), "", std::move(type), "", std::nullopt};
}
SchemaChange SchemaChange::DropColumn(std::string name) {
  return SchemaChange{Kind::kDropColumn, std::move(name), "", nullptr, "", std::nullopt};
}
SchemaChange SchemaChange::RenameColumn(std::string name, std::string new_name) {
  return SchemaChange{Kind::kRenameColumn, std::move(name), std::move(new_name), nullptr, "",
                      std::nullopt};
}
SchemaChange SchemaChange::UpdateColumnType(std::string name, DataTypePtr type) {
  return SchemaChange{
      Kind::kUpdateColumnType, std::move(name), "", std::move(type), "", std::nullopt};
}
SchemaChange SchemaChange::AddNestedColumn(std::vector<std::string> path, DataTypePtr type,
                                           std::optional<std::string> comment) {
  SchemaChange c = AddColumn(path.empty() ? "" : path[0], std::move(type));
  c.comment = std::move(comment);
  c.path = std::move(path);
  return c;
}
SchemaChange SchemaChange::DropNestedColumn(std::vector<std::string> path) {
  SchemaChange c = DropColumn(path.empty() ? "" : path[0]);
  c.path = std::move(path);
  return c;
}
SchemaChange SchemaChange::RenameNestedColumn(std::vector<std::string> path, std::string new_name) {
  SchemaChange c = RenameColumn(path.empty() ? "" : path[0], std::move(new_name));
  c.path = std::move(path);
  return c;
}
SchemaChange SchemaChange::UpdateNestedColumnType(std::vector<std::string> path, DataTypePtr type) {
  SchemaChange c = UpdateColumnType(path.empty() ? "" : path[0], std::move(type));
  c.path = std::move(path);
  return c;
}
SchemaChange SchemaChange::UpdateNestedColumnComment(std::vector<std::string> path,
                                                     std::optional<std::string> comment) {
  SchemaChange c = UpdateColumnComment(path.empty() ? "" : path[0], std::move(comment));
  c.path = std::move(path);
  return c;
}
SchemaChange& SchemaChange::First() {
  position = Position::kFirst;
  after.clear();
  return *this;
}
SchemaChange& SchemaChange::After(std::string sibling) {
  position = Position::kAfter;
  after = std::move(sibling);
  return *this;
}
std::vector<std::string> SchemaChange::FieldPath() const {
  return path.empty() ? std::vector<std::string>{name} : path;
}
SchemaChange SchemaChange::SetOption(std::string key, std::string value) {
  return SchemaChange{Kind::kSetOption, std::move(key),   "",
                      nullptr,          std::move(value), std::nullopt};
}
SchemaChange SchemaChange::RemoveOption(std::string key) {
  return SchemaChange{Kind::kRemoveOption, std::move(key), "", nullptr, "", std::nullopt};
}
SchemaChange SchemaChange::UpdateColumnComment(std::string name,
                                               std::optional<std::string> comment) {
  return SchemaChange{Kind::kUpdateColumnComment, std::move(name), "", nullptr, "",
                      std::move(comment)};
}
SchemaChange SchemaChange::UpdateComment(std::optional<std::string> comment) {
  return SchemaChange{Kind::kUpdateComment, "", "", nullptr, "", std::move(comment)};
}

Status ValidateTableSchema(const TableSchema& s) {
  std::set<std::string> names;
  for (const DataField& f : s.fields) {
    FJORD_RETURN_NOT_OK(CheckName("column", f.name));
    if (!names.insert(f.name).second) return Status::Invalid("duplicate column '", f.name, "'");
  }
  auto check_keys = [&](const std::vector<std::string>& keys, const char* what) -> Status {
    std::set<std::string> seen;
    for (const std::string& k : keys) {
      if (!names.count(k)) {
        return Status::Invalid(what, " '", k, "' is not a column of the table");
      }
      if (!seen.insert(k).second) return Status::Invalid("duplicate ", what, " '", k, "'");
      const DataField* f = s.FindField(k);
      if (f->type->IsNested()) {
        return Status::Invalid(what, " '", k, "' has type ", f->type->ToString(),
                               ", which cannot be a key");
      }
    }
    return Status::OK();
  };
  FJORD_RETURN_NOT_OK(check_keys(s.partition_keys, "partition key"));
  FJORD_RETURN_NOT_OK(check_keys(s.primary_keys, "primary key"));
  if (!s.fields.empty() && s.partition_keys.size() == s.fields.size()) {
    return Status::Invalid("all columns cannot be partition keys");
  }
  for (const std::string& k : s.primary_keys) {
    if (s.FindField(k)->type->nullable()) {
      return Status::Invalid("primary key '", k, "' must be NOT NULL");
    }
  }
  std::map<std::string, std::string> options = s.EffectiveOptions();
  for (const auto& [k, v] : options) FJORD_RETURN_NOT_OK(ValidateOptionValue(k, v));
  for (const auto& [k, v] : options) {
    for (const std::string& col : FieldsOfOption(k)) {
      if (!names.count(col)) {
        return Status::Invalid("option '", k, "' names column '", col,
                               "', which is not in the table");
      }
    }
  }
  bool pk = !s.primary_keys.empty();
  int64_t bucket = std::stoll(options.count("bucket") ? options["bucket"] : "-1");
  if (bucket == 0 || bucket < -2) {
    return Status::Invalid("option 'bucket' must be -1 (dynamic / unaware), -2 (postpone) or ",
                           "greater than 0, got ", bucket);
  }
  if (bucket == -2 && !pk) return Status::Invalid("bucket = -2 (postpone) needs a primary key");
  if (pk) {
    bool covers_partitions = true;
    for (const std::string& p : s.partition_keys) covers_partitions &= Contains(s.primary_keys, p);
    if (!covers_partitions && bucket != -1) {
      return Status::Invalid("primary key ", Join(s.primary_keys),
                             " must include all partition keys ", Join(s.partition_keys),
                             " unless bucket = -1 (cross-partition upsert)");
    }
    if (s.TrimmedPrimaryKeys().empty()) {
      return Status::Invalid("the primary key ", Join(s.primary_keys),
                             " must not consist of partition keys only");
    }
  }
  std::vector<std::string> bucket_keys =
      SplitCommaList(options.count("bucket-key") ? options["bucket-key"] : "");
  if (!bucket_keys.empty()) {
    if (bucket == -1)
      return Status::Invalid("option 'bucket-key' needs a fixed bucket number (bucket > 0)");
    for (const std::string& k : bucket_keys) {
      if (!names.count(k))
        return Status::Invalid("bucket key '", k, "' is not a column of the table");
      if (Contains(s.partition_keys, k)) {
        return Status::Invalid("bucket key '", k, "' must not be a partition key");
      }
      if (pk && !Contains(s.primary_keys, k)) {
        return Status::Invalid("bucket key '", k, "' must be part of the primary key ",
                               Join(s.primary_keys));
      }
    }
  } else if (!pk && bucket > 0) {
    return Status::Invalid("an append table with bucket = ", bucket,
                           " needs option 'bucket-key' (the columns to hash)");
  }
  for (const std::string& f :
       SplitCommaList(options.count("sequence.field") ? options["sequence.field"] : "")) {
    if (!names.count(f))
      return Status::Invalid("sequence field '", f, "' is not a column of the table");
    if (!pk) return Status::Invalid("option 'sequence.field' needs a primary key");
  }
  std::string engine = options.count("merge-engine") ? options["merge-engine"] : "deduplicate";
  if (!pk && engine != "deduplicate") {
    return Status::Invalid("merge-engine '", engine, "' needs a primary key");
  }
  if (engine == "first-row" && options.count("sequence.field")) {
    return Status::Invalid("merge-engine 'first-row' does not support 'sequence.field'");
  }
  std::string producer = options.count("changelog-producer") ? options["changelog-producer"] : "";
  if (engine == "first-row" && !producer.empty() && !EqualsIgnoreCase(producer, "none") &&
      !EqualsIgnoreCase(producer, "lookup")) {
    return Status::Invalid(
        "merge-engine 'first-row' supports only changelog-producer 'none' and "
        "'lookup' (as Java Paimon), not '",
        producer, "'");
  }
  return Status::OK();
}

Result<TableSchema> NewTableSchema(const TableSpec& spec,
                                   const std::map<std::string, std::string>& catalog_options,
                                   int64_t now_millis) {
  TableSchema s;
  s.version = TableSchema::kCurrentVersion;
  s.id = 0;
  s.partition_keys = spec.partition_keys;
  s.primary_keys = spec.primary_keys;
  s.comment = spec.comment;
  s.time_millis = now_millis;
  for (const auto& [k, v] : spec.options) {
    if (k == "primary-key" || k == "partition") {
      std::vector<std::string>& target = k == "primary-key" ? s.primary_keys : s.partition_keys;
      if (!target.empty()) {
        return Status::Invalid("the ", k == "primary-key" ? "primary key" : "partition",
                               " is given both in the definition and as option '", k, "'");
      }
      target = SplitCommaList(v);
      continue;
    }
    if (GetOption(s, k)) return Status::Invalid("option '", k, "' is given twice");
    s.options.emplace_back(k, v);
  }
  for (const auto& [k, v] : catalog_options) {
    if (k.rfind(kTableDefaultPrefix, 0) != 0) continue;
    std::string key = k.substr(kTableDefaultPrefix.size());
    if (!GetOption(s, key)) s.options.emplace_back(key, v);
  }
  std::vector<DataField> fields = AssignFieldIdsDepthFirst(spec.fields, 0);
  for (DataField& f : fields) {
    if (Contains(s.primary_keys, f.name)) f.type = f.type->WithNullable(false);
  }
  s.fields = std::move(fields);
  s.highest_field_id = 0;
  for (const DataField& f : s.fields) s.highest_field_id = std::max(s.highest_field_id, f.id);
  // Nested ids count too.
  s.highest_field_id = static_cast<int32_t>(
      AssignFieldIdsDepthFirst(spec.fields, 0).empty() ? -1 : s.highest_field_id);
  {
    int32_t next = 0;
    std::vector<DataField> probe = AssignFieldIdsDepthFirst(spec.fields, 0);
    std::function<void(const DataType&)> walk = [&](const DataType& t) {
      if (t.root() == TypeRoot::kRow) {
        for (const DataField& f : t.fields()) {
          next = std::max(next, f.id);
          walk(*f.type);
        }
      } else if (t.root() == TypeRoot::kArray || t.root() == TypeRoot::kMultiset ||
                 t.root() == TypeRoot::kVector) {
        walk(*t.element());
      } else if (t.root() == TypeRoot::kMap) {
        walk(*t.key());
        walk(*t.value());
      }
    };
    for (const DataField& f : probe) {
      next = std::max(next, f.id);
      walk(*f.type);
    }
    s.highest_field_id = probe.empty() ? -1 : next;
  }
  FJORD_RETURN_NOT_OK(ValidateTableSchema(s));
  // Options Fjord does not honour are refused; performance-only and unknown ones warned about.
  FJORD_RETURN_NOT_OK(CheckOptions(s.EffectiveOptions(), OptionUse::kCreate));
  return s;
}

Result<TableSchema> ApplySchemaChanges(const TableSchema& schema,
                                       const std::vector<SchemaChange>& changes,
                                       int64_t now_millis) {
  TableSchema s = schema;
  s.id = schema.id + 1;
  s.version = TableSchema::kCurrentVersion;
  s.time_millis = now_millis;
  NestedChangeContext nested;
  nested.null_to_not_null_disabled = !EqualsIgnoreCase(
      GetOption(schema, "alter-column-null-to-not-null.disabled").value_or("true"), "false");
  nested.explicit_casts = !EqualsIgnoreCase(
      GetOption(schema, "disable-explicit-type-casting").value_or("false"), "true");
  for (const SchemaChange& c : changes) {
    switch (c.kind) {
      case SchemaChange::Kind::kAddColumn:
        FJORD_RETURN_NOT_OK(ApplyFieldPathChange(c, nested, &s.fields, &s.highest_field_id));
        break;
      case SchemaChange::Kind::kDropColumn: {
        if (c.FieldPath().size() > 1) {
          FJORD_RETURN_NOT_OK(ApplyFieldPathChange(c, nested, &s.fields, &s.highest_field_id));
          break;
        }
        int i = s.FieldIndex(c.name);
        if (i < 0) return Status::Invalid("column '", c.name, "' does not exist");
        if (Contains(s.partition_keys, c.name) || Contains(s.primary_keys, c.name)) {
          return Status::Invalid("cannot drop partition or primary-key column '", c.name, "'");
        }
        if (s.fields.size() == 1) return Status::Invalid("cannot drop the only column");
        s.fields.erase(s.fields.begin() + i);
        break;
      }
      case SchemaChange::Kind::kRenameColumn: {
        if (c.FieldPath().size() > 1) {
          FJORD_RETURN_NOT_OK(ApplyFieldPathChange(c, nested, &s.fields, &s.highest_field_id));
          break;
        }
        int i = s.FieldIndex(c.name);
        if (i < 0) return Status::Invalid("column '", c.name, "' does not exist");
        if (s.FindField(c.new_name))
          return Status::Invalid("column '", c.new_name, "' already exists");
        if (Contains(s.partition_keys, c.name)) {
          return Status::Invalid("cannot rename partition column '", c.name, "'");
        }
        s.fields[static_cast<size_t>(i)].name = c.new_name;
        for (std::string& k : s.primary_keys) {
          if (k == c.name) k = c.new_name;
        }
        // Options that name the column follow it.
        for (auto& [k, v] : s.options) {
          std::string prefix = "fields." + c.name + ".";
          if (k.rfind(prefix, 0) == 0) k = "fields." + c.new_name + "." + k.substr(prefix.size());
          if (k == "bucket-key" || k == "sequence.field") {
            std::vector<std::string> cols = SplitCommaList(v);
            std::string joined;
            for (std::string& col : cols) {
              if (col == c.name) col = c.new_name;
              joined += (joined.empty() ? "" : ",") + col;
            }
            v = joined;
          }
        }
        break;
      }
      case SchemaChange::Kind::kUpdateColumnType: {
        if (c.FieldPath().size() > 1) {
          FJORD_RETURN_NOT_OK(ApplyFieldPathChange(c, nested, &s.fields, &s.highest_field_id));
          break;
        }
        int i = s.FieldIndex(c.name);
        if (i < 0) return Status::Invalid("column '", c.name, "' does not exist");
        if (Contains(s.partition_keys, c.name) || Contains(s.primary_keys, c.name)) {
          return Status::Invalid("cannot change the type of partition or primary-key column '",
                                 c.name, "'");
        }
        // The nullability and cast checks, as for a nested field.
        FJORD_RETURN_NOT_OK(ApplyFieldPathChange(c, nested, &s.fields, &s.highest_field_id));
        break;
      }
      case SchemaChange::Kind::kUpdateColumnComment: {
        if (c.FieldPath().size() > 1) {
          FJORD_RETURN_NOT_OK(ApplyFieldPathChange(c, nested, &s.fields, &s.highest_field_id));
          break;
        }
        int i = s.FieldIndex(c.name);
        if (i < 0) return Status::Invalid("column '", c.name, "' does not exist");
        s.fields[static_cast<size_t>(i)].description = c.comment;
        break;
      }
      case SchemaChange::Kind::kUpdateComment:
        s.comment = c.comment;
        break;
      case SchemaChange::Kind::kSetOption:
      case SchemaChange::Kind::kRemoveOption: {
        const OptionDef* def = FindOptionDef(c.name);
        bool set = c.kind == SchemaChange::Kind::kSetOption;
        std::optional<std::string> old = GetOption(s, c.name);
        if (def != nullptr && def->immutable && (set ? old != c.value : old.has_value())) {
          return Status::Invalid("option '", c.name, "' is immutable and cannot be changed");
        }
        if (c.name == "bucket") {
          // The current count: the schema's, else the registry's default. Only this option is
          // parsed, so that an ALTER can still repair other options that do not parse.
          Options current;
          if (old) current.Set(OptionLayer::kTable, c.name, *old);
          FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> from_option, current.GetInt(c.name));
          int64_t from = *from_option;
          if (!set) return Status::Invalid("option 'bucket' cannot be reset");
          FJORD_RETURN_NOT_OK(ValidateOptionValue(c.name, c.value));
          int64_t to = std::stoll(c.value);
          if ((from > 0) != (to > 0) || from < 0 || to < 0) {
            if (from != to) {
              return Status::Invalid("option 'bucket' can change only between positive values (",
                                     from, " to ", to, ")");
            }
          }
        }
        for (const char* key : {"ignore-delete", "ignore-update-before"}) {
          if (c.name == key && old && *old == "true" && (!set || c.value != "true")) {
            return Status::Invalid("option '", key, "' cannot go from true back to false");
          }
        }
        // Java's rule: deletion vectors switch on or off only on a table that allows it.
        // (A value that does not parse may be repaired.)
        Result<bool> dv_before = ParseBoolean(old.value_or("false"));
        Result<bool> dv_after = ParseBoolean(set ? c.value : std::string("false"));
        if (c.name == "deletion-vectors.enabled" && dv_before.ok() && dv_after.ok() &&
            *dv_before != *dv_after) {
          std::optional<std::string> modifiable = GetOption(s, "deletion-vectors.modifiable");
          if (!modifiable || Lower(Trim(*modifiable)) != "true") {
            return Status::Invalid(
                "option 'deletion-vectors.enabled' can change only when "
                "'deletion-vectors.modifiable' = true (without a full compaction the table may "
                "show duplicate rows)");
          }
        }
        if (set) {
          FJORD_RETURN_NOT_OK(ValidateOptionValue(c.name, c.value));
          FJORD_RETURN_NOT_OK(CheckOptions({{c.name, c.value}}, OptionUse::kCreate));
          SetOptionValue(&s, c.name, c.value);
        } else {
          s.options.erase(std::remove_if(s.options.begin(), s.options.end(),
                                         [&](const auto& kv) { return kv.first == c.name; }),
                          s.options.end());
        }
        break;
      }
    }
  }
  FJORD_RETURN_NOT_OK(ValidateTableSchema(s));
  return s;
}

FileSystemCatalog::FileSystemCatalog(std::shared_ptr<FileIO> io, std::string warehouse,
                                     std::map<std::string, std::string> options)
    : io_(std::move(io)), warehouse_(std::move(warehouse)), options_(std::move(options)) {}

Result<std::unique_ptr<FileSystemCatalog>> FileSystemCatalog::Open(
    const std::string& warehouse, std::map<std::string, std::string> options) {
  std::string root = warehouse;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<FileIO> io, FileIO::Open(root, options));
  FJORD_RETURN_NOT_OK(io->MakeDirs(root));
  return std::unique_ptr<FileSystemCatalog>(new FileSystemCatalog(io, root, std::move(options)));
}

std::string FileSystemCatalog::DatabasePath(const std::string& db) const {
  return JoinPath(warehouse_, db + std::string(kDbSuffix));
}

std::string FileSystemCatalog::TablePath(const TableIdentifier& id) const {
  return JoinPath(DatabasePath(id.database), id.table);
}

Status FileSystemCatalog::CreateDatabase(const std::string& name, bool ignore_if_exists) {
  FJORD_RETURN_NOT_OK(CheckName("database", name));
  FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(DatabasePath(name)));
  if (exists) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("database '", name, "' already exists");
  }
  return io_->MakeDirs(DatabasePath(name));
}

Result<std::vector<std::string>> FileSystemCatalog::ListDatabases() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> entries, io_->List(warehouse_));
  std::vector<std::string> out;
  for (const FileStatus& e : entries) {
    std::string name = BaseName(e.path);
    if (e.is_dir && name.size() > kDbSuffix.size() &&
        name.compare(name.size() - kDbSuffix.size(), kDbSuffix.size(), kDbSuffix) == 0) {
      out.push_back(name.substr(0, name.size() - kDbSuffix.size()));
    }
  }
  return out;
}

Status FileSystemCatalog::DropDatabase(const std::string& name, bool ignore_if_not_exists,
                                       bool cascade) {
  FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(DatabasePath(name)));
  if (!exists) {
    if (ignore_if_not_exists) return Status::OK();
    return Status::NotFound("database '", name, "' does not exist");
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> tables, ListTables(name));
  if (!tables.empty() && !cascade) {
    return Status::Invalid("database '", name, "' is not empty (", tables.size(),
                           " tables); drop it with cascade");
  }
  return io_->DeleteDirRecursive(DatabasePath(name));
}

Result<std::vector<std::string>> FileSystemCatalog::ListTables(const std::string& db) const {
  FJORD_ASSIGN_OR_RAISE(bool exists, io_->Exists(DatabasePath(db)));
  if (!exists) return Status::NotFound("database '", db, "' does not exist");
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> entries, io_->List(DatabasePath(db)));
  std::vector<std::string> out;
  for (const FileStatus& e : entries) {
    if (!e.is_dir) continue;
    SnapshotManager sm(io_, e.path);
    FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> schemas, sm.ListSchemaIds());
    if (!schemas.empty()) out.push_back(BaseName(e.path));
  }
  return out;
}

Status FileSystemCatalog::CreateTable(const TableIdentifier& id, const TableSpec& spec,
                                      bool ignore_if_exists) {
  FJORD_RETURN_NOT_OK(CheckName("table", id.table));
  FJORD_ASSIGN_OR_RAISE(bool db_exists, io_->Exists(DatabasePath(id.database)));
  if (!db_exists) return Status::NotFound("database '", id.database, "' does not exist");
  std::string path = TablePath(id);
  SnapshotManager sm(io_, path);
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> schemas, sm.ListSchemaIds());
  if (!schemas.empty()) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("table '", id.ToString(), "' already exists");
  }
  Result<TableSchema> schema = NewTableSchema(spec, options_, NowMillis());
  if (!schema.ok()) return schema.status().WithContext("cannot create table '", id.ToString(), "'");
  Status st = io_->CreateIfAbsent(sm.paths().SchemaFile(0), schema->ToJson());
  if (st.IsAlreadyExists()) {
    if (ignore_if_exists) return Status::OK();
    return Status::AlreadyExists("table '", id.ToString(), "' already exists");
  }
  return st;
}

Status FileSystemCatalog::DropTable(const TableIdentifier& id, bool ignore_if_not_exists) {
  std::string path = TablePath(id);
  SnapshotManager sm(io_, path);
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> schemas, sm.ListSchemaIds());
  if (schemas.empty()) {
    if (ignore_if_not_exists) return Status::OK();
    return Status::NotFound("table '", id.ToString(), "' does not exist");
  }
  return io_->DeleteDirRecursive(path);
}

Status AlterTableAt(const std::shared_ptr<FileIO>& io, const std::string& table_path,
                    const std::vector<SchemaChange>& changes, const std::string& display_name) {
  SnapshotManager sm(io, table_path);
  for (int attempt = 0; attempt < 10; ++attempt) {
    Result<TableSchema> latest = sm.LatestSchema();
    if (!latest.ok()) {
      if (latest.status().IsNotFound()) {
        return Status::NotFound("table '", display_name, "' does not exist");
      }
      return latest.status();
    }
    Result<TableSchema> next = ApplySchemaChanges(*latest, changes, NowMillis());
    if (!next.ok()) return next.status().WithContext("cannot alter table '", display_name, "'");
    Status st = io->CreateIfAbsent(sm.paths().SchemaFile(next->id), next->ToJson());
    if (!st.IsAlreadyExists()) return st;  // lost a race: re-apply on the newer schema
  }
  return Status::Conflict("table '", display_name, "' kept changing; ALTER gave up after 10 tries");
}

Status FileSystemCatalog::AlterTable(const TableIdentifier& id,
                                     const std::vector<SchemaChange>& changes) {
  return AlterTableAt(io_, TablePath(id), changes, id.ToString());
}

Result<std::unique_ptr<FileStoreTable>> FileSystemCatalog::GetTable(
    const TableIdentifier& id) const {
  Result<std::unique_ptr<FileStoreTable>> t = FileStoreTable::Open(TablePath(id));
  if (!t.ok() && t.status().IsNotFound()) {
    return Status::NotFound("table '", id.ToString(), "' does not exist");
  }
  return t;
}

}  // namespace fjord
