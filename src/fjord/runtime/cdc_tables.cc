#include "fjord/runtime/cdc_tables.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "fjord/table.h"

namespace fjord::runtime {

namespace {

namespace fs = std::filesystem;

std::string Lower(std::string text) {
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return text;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The columns' names and types: records of one layout ask the same of a table.
std::string Signature(const cdc::CdcRecord& record) {
  std::string s;
  for (const cdc::CdcColumn& c : record.columns) {
    s += c.name;
    s += '\x1f';
    s += c.type ? c.type->ToString() : "?";
    if (c.description) s += '\x1f' + *c.description;
    s += '\x1e';
  }
  if (record.comment) s += '\x1d' + *record.comment;
  return s;
}

}  // namespace

Result<std::unique_ptr<CdcTables>> CdcTables::Make(const JobSpec& spec) {
  std::unique_ptr<CdcTables> t(new CdcTables(spec));
  FJORD_ASSIGN_OR_RAISE(t->mapping_, cdc::TypeMapping::Parse(spec.source.type_mapping));
  auto metadata = ParseMetadataColumns(spec.sink.metadata_columns, spec.sink.metadata_column_prefix,
                                       spec.source.type, spec.source.cdc_format);
  if (!metadata.ok()) return metadata.status().WithContext(spec.file + ": sink.metadata-columns");
  t->metadata_ = std::move(*metadata);
  std::string warehouse = spec.sink.warehouse;
  if (!spec.sink.table.empty()) {
    // WAREHOUSE/DB.db/TABLE
    fs::path path = fs::path(spec.sink.table).lexically_normal();
    if (path.filename().empty()) path = path.parent_path();
    std::string db_dir = path.parent_path().filename().string();
    const std::string suffix = ".db";
    if (db_dir.size() <= suffix.size() ||
        db_dir.compare(db_dir.size() - suffix.size(), suffix.size(), suffix) != 0) {
      return Status::Invalid(spec.file, ": sink.table: a CDC job's table is WAREHOUSE/DB.db/TABLE",
                             " (it may be created), got ", spec.sink.table);
    }
    t->database_ = db_dir.substr(0, db_dir.size() - suffix.size());
    t->table_ = path.filename().string();
    warehouse = path.parent_path().parent_path().string();
  } else {
    t->database_ = spec.sink.database;
    try {
      t->including_ = std::regex(spec.sink.including_tables);
      if (!spec.sink.excluding_tables.empty()) {
        t->excluding_ = std::regex(spec.sink.excluding_tables);
      }
      t->including_dbs_ = std::regex(spec.sink.including_dbs);
      if (!spec.sink.excluding_dbs.empty()) {
        t->excluding_dbs_ = std::regex(spec.sink.excluding_dbs);
      }
    } catch (const std::regex_error& e) {
      return Status::Invalid(spec.file, ": sink: bad table pattern: ", e.what());
    }
  }
  auto catalog = Catalog::Open(warehouse);
  if (!catalog.ok()) return catalog.status().WithContext(spec.file + ": sink");
  t->catalog_ = std::move(*catalog);
  return t;
}

Result<std::optional<std::string>> CdcTables::Target(const cdc::CdcRecord& record) {
  if (!table_.empty()) return std::optional<std::string>(database_ + "." + table_);
  if (!record.table || record.table->empty()) {
    return Status::Invalid(record.origin,
                           ": the message names no table (database sync needs the source table)");
  }
  auto key = std::make_pair(record.database, *record.table);
  auto it = targets_.find(key);
  if (it != targets_.end()) return it->second.target;
  Routed routed;
  routed.skipped = Skipped(record.database, *record.table);
  if (routed.skipped.empty()) {
    FJORD_ASSIGN_OR_RAISE(std::string name, TableName(record));
    routed.target = database_ + "." + name;
  }
  std::optional<std::string> target = routed.target;
  targets_.emplace(key, std::move(routed));
  return target;
}

Result<std::optional<std::string>> CdcTables::Route(const cdc::CdcRecord& record,
                                                    std::vector<std::string>* log) {
  FJORD_ASSIGN_OR_RAISE(std::optional<std::string> target, Target(record));
  if (target) return target;
  ++events_.excluded;
  Routed& routed = targets_.at(std::make_pair(record.database, *record.table));
  if (!routed.reported) {
    routed.reported = true;
    log->push_back("source table " + (record.database ? *record.database + "." : "") +
                   *record.table + " is not synchronized (" + routed.skipped +
                   "): its records are skipped, the first " + record.origin);
  }
  return target;
}

// Java's RichCdcMultiplexRecordEventParser: the database patterns first (a record without a
// database passes them), then the table patterns on the source table's name.
std::string CdcTables::Skipped(const std::optional<std::string>& database,
                               const std::string& table) const {
  const SinkSpec& sink = spec_.sink;
  if (database && !std::regex_match(*database, including_dbs_)) {
    return "including-dbs '" + sink.including_dbs + "' does not match its database";
  }
  if (database && excluding_dbs_ && std::regex_match(*database, *excluding_dbs_)) {
    return "excluding-dbs '" + sink.excluding_dbs + "' matches its database";
  }
  if (!std::regex_match(table, including_)) {
    return "including-tables '" + sink.including_tables + "' does not match it";
  }
  if (excluding_ && std::regex_match(table, *excluding_)) {
    return "excluding-tables '" + sink.excluding_tables + "' matches it";
  }
  return "";
}

// Java's TableNameConverter.convert(Identifier): `table-mapping` of the name first, then the
// prefix and suffix of its database over the job's; without merge-shards the name is
// <database>_<table>. Keys of the maps are lower-cased, so are the names looked up.
Result<std::string> CdcTables::TableName(const cdc::CdcRecord& record) const {
  const SinkSpec& sink = spec_.sink;
  std::string name = *record.table;
  if (!sink.merge_shards) {
    if (!record.database || record.database->empty()) {
      return Status::Invalid(record.origin,
                             ": the message names no database (merge-shards false names the "
                             "table <database>_<table>)");
    }
    name = *record.database + "_" + name;
  }
  if (auto mapped = sink.table_mapping.find(Lower(name)); mapped != sink.table_mapping.end()) {
    return mapped->second;
  }
  std::string prefix = sink.table_prefix;
  std::string suffix = sink.table_suffix;
  if (record.database) {
    std::string db = Lower(*record.database);
    if (auto p = sink.table_prefix_db.find(db); p != sink.table_prefix_db.end()) prefix = p->second;
    if (auto p = sink.table_suffix_db.find(db); p != sink.table_suffix_db.end()) suffix = p->second;
  }
  return prefix + name + suffix;
}

Result<TableIdentifier> CdcTables::Identifier(const std::string& target) const {
  auto dot = target.find('.');
  if (dot == std::string::npos) return Status::Invalid("not a table identifier: ", target);
  return TableIdentifier{target.substr(0, dot), target.substr(dot + 1)};
}

std::string CdcTables::TablePath(const std::string& target) const {
  auto id = Identifier(target);
  return id.ok() ? catalog_->TablePath(*id) : std::string();
}

Status CdcTables::ReadSchema(const std::string& target, Known* known) {
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, Identifier(target));
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<Table> table, catalog_->GetTable(id));
  known->schema = table->schema();
  known->needs.clear();
  return Status::OK();
}

Result<CdcTables::Known*> CdcTables::Load(const std::string& target) {
  auto it = known_.find(target);
  if (it != known_.end()) return &it->second;
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, Identifier(target));
  auto table = catalog_->GetTable(id);
  if (!table.ok()) {
    if (table.status().code() == StatusCode::kNotFound) return nullptr;
    return table.status();
  }
  Known& known = known_[target];
  known.schema = (*table)->schema();
  return &known;
}

Result<bool> CdcTables::Exists(const std::string& target) {
  FJORD_ASSIGN_OR_RAISE(Known * known, Load(target));
  return known != nullptr;
}

Status CdcTables::PrepareComputed(Known* known, const cdc::CdcRecord& record) {
  if (known->computed_ready) return Status::OK();
  // Java parses computed columns against the source's columns (the first record's).
  std::vector<DataField> fields;
  for (const cdc::CdcColumn& c : record.columns) {
    DataField f;
    f.name = c.name;
    f.type = c.type;
    fields.push_back(std::move(f));
  }
  auto computed = cdc::ParseComputedColumns(spec_.sink.computed_columns, fields);
  if (!computed.ok()) return computed.status().WithContext(spec_.file + ": sink.computed-columns");
  known->computed = std::move(*computed);
  known->computed_ready = true;
  return Status::OK();
}

Result<cdc::CdcRecord> CdcTables::Planned(const Known& known, const cdc::CdcRecord& record) const {
  cdc::CdcRecord planned;
  planned.columns.reserve(record.columns.size() + known.computed.size());
  for (const cdc::CdcColumn& c : record.columns) {
    planned.columns.push_back({c.name, c.type, std::nullopt, c.description});
  }
  for (const cdc::ComputedColumn& c : known.computed) {
    planned.columns.push_back({c.name(), c.type(), std::nullopt, std::nullopt});
  }
  for (const MetadataColumn& c : metadata_) {
    planned.columns.push_back({c.name, c.type, std::nullopt, std::nullopt});
  }
  planned.comment = record.comment;
  planned.origin = record.origin;
  return planned;
}

Result<bool> CdcTables::NeedsChange(const std::string& target, const cdc::CdcRecord& record,
                                    std::vector<std::string>* log) {
  FJORD_ASSIGN_OR_RAISE(Known * known, Load(target));
  if (!known) return true;  // to be created
  std::string signature = Signature(record);
  auto it = known->needs.find(signature);
  if (it != known->needs.end()) return it->second;
  FJORD_RETURN_NOT_OK(PrepareComputed(known, record));
  FJORD_ASSIGN_OR_RAISE(cdc::CdcRecord planned, Planned(*known, record));
  auto plan = cdc::PlanSchemaChange(known->schema.fields, known->schema.comment, planned, mapping_,
                                    /*case_sensitive=*/true, target);
  bool needs = !plan.ok() || !plan->empty();
  if (plan.ok() && !plan->ignored.empty()) {
    for (const cdc::ColumnTypeChange& c : plan->ignored) {
      std::string key = target + "\x1f" + c.column + "\x1f" + c.to->ToString();
      if (!reported_ignored_.insert(key).second) continue;
      ++events_.ignored;
      log->push_back("table " + target + ": column " + c.column + " stays " + c.from->ToString() +
                     ", the narrower " + c.to->ToString() + " of " + record.origin +
                     " is ignored (as Paimon does)");
    }
  }
  if (plan.ok()) {
    for (const std::string& column : plan->missing_columns) {
      if (!reported_missing_.insert(target + "\x1f" + column).second) continue;
      ++events_.missing;
      log->push_back("table " + target + ": column " + column + " is missing from " +
                     record.origin + " (and maybe later records): NULL in their rows");
    }
  }
  known->needs.emplace(signature, needs);
  return needs;
}

Status CdcTables::Create(const std::string& target, const cdc::CdcRecord& record, Known* known,
                         std::vector<std::string>* log) {
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, Identifier(target));
  FJORD_RETURN_NOT_OK(PrepareComputed(known, record));
  TableSpec spec;
  std::vector<std::string> names;
  for (const cdc::CdcColumn& c : record.columns) {
    DataField f;
    f.name = c.name;
    f.type = c.type;
    f.description = c.description;
    spec.fields.push_back(std::move(f));
    names.push_back(c.name);
  }
  for (const cdc::ComputedColumn& c : known->computed) {
    if (std::find(names.begin(), names.end(), c.name()) != names.end()) {
      return Status::Invalid(spec_.file, ": sink.computed-columns: column '", c.name(),
                             "' of table ", target, " is also a source column");
    }
    DataField f;
    f.name = c.name();
    f.type = c.type();
    spec.fields.push_back(std::move(f));
    names.push_back(c.name());
  }
  for (const MetadataColumn& c : metadata_) {
    // Java's checkDuplicateFields.
    if (std::find(names.begin(), names.end(), c.name) != names.end()) {
      return Status::Invalid(spec_.file, ": sink.metadata-columns: column '", c.name, "' of table ",
                             target, " is also a source or computed column");
    }
    DataField f;
    f.name = c.name;
    f.type = c.type;
    spec.fields.push_back(std::move(f));
    names.push_back(c.name);
  }
  auto all_there = [&](const std::vector<std::string>& keys) {
    return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) {
      return std::find(names.begin(), names.end(), k) != names.end();
    });
  };
  bool table_sync = !table_.empty();
  // Primary keys: the job's (all must exist, in table sync; database sync falls back to the
  // record's, as Java), else the record's; table sync needs one.
  if (!spec_.sink.primary_key.empty() && all_there(spec_.sink.primary_key)) {
    spec.primary_keys = spec_.sink.primary_key;
  } else if (!spec_.sink.primary_key.empty() && table_sync) {
    return Status::Invalid(spec_.file, ": sink.primary-key: not all of [",
                           Join(spec_.sink.primary_key), "] are columns of ", record.origin,
                           " (columns: ", Join(names), ")");
  } else if (!record.primary_keys.empty()) {
    spec.primary_keys = record.primary_keys;
  } else if (table_sync) {
    return Status::Invalid(spec_.file, ": table ", target,
                           " cannot be created: give sink.primary-key, the first message (",
                           record.origin, ") names no primary key");
  }
  // Partition keys: the source table's of multiple-table-partition-keys (database sync), else
  // the job's; database sync creates the table unpartitioned when they are not all columns.
  const std::vector<std::string>* partition_keys = &spec_.sink.partition_keys;
  if (record.table) {
    auto it = spec_.sink.table_partition_keys.find(*record.table);
    if (it != spec_.sink.table_partition_keys.end()) partition_keys = &it->second;
  }
  if (!partition_keys->empty()) {
    if (all_there(*partition_keys)) {
      spec.partition_keys = *partition_keys;
    } else if (table_sync) {
      return Status::Invalid(spec_.file, ": sink.partition-keys: not all of [",
                             Join(*partition_keys), "] are columns of ", record.origin,
                             " (columns: ", Join(names), ")");
    }
  }
  spec.options = spec_.sink.table_options;
  spec.comment = record.comment;
  FJORD_RETURN_NOT_OK(catalog_->CreateDatabase(id.database, /*ignore_if_exists=*/true));
  Status created = catalog_->CreateTable(id, spec, /*ignore_if_exists=*/true);
  if (!created.ok())
    return created.WithContext("creating table " + target + " for " + record.origin);
  ++events_.created;
  log->push_back("created table " + target + " (" + std::to_string(spec.fields.size()) +
                 " columns, primary key [" + Join(spec.primary_keys) + "], partition keys [" +
                 Join(spec.partition_keys) + "]) from " + record.origin);
  return ReadSchema(target, known);
}

Result<bool> CdcTables::Apply(const std::string& target, const cdc::CdcRecord& record,
                              std::vector<std::string>* log) {
  FJORD_ASSIGN_OR_RAISE(Known * known, Load(target));
  if (!known) {
    Known& fresh = known_[target];
    Status st = Create(target, record, &fresh, log);
    if (!st.ok()) {
      known_.erase(target);
      return st;
    }
    return false;
  }
  FJORD_RETURN_NOT_OK(PrepareComputed(known, record));
  FJORD_ASSIGN_OR_RAISE(cdc::CdcRecord planned, Planned(*known, record));
  auto planned_change = cdc::PlanSchemaChange(known->schema.fields, known->schema.comment, planned,
                                              mapping_, /*case_sensitive=*/true, target);
  // A change Java's sink refuses fails the job at this record, and again after a restart.
  if (!planned_change.ok()) return planned_change.status().WithContext(record.origin);
  cdc::SchemaChangePlan plan = std::move(*planned_change);
  std::vector<SchemaChange> changes;
  std::string what;
  for (const DataField& f : plan.add_columns) {
    SchemaChange c = SchemaChange::AddColumn(f.name, f.type);
    c.comment = f.description;
    changes.push_back(std::move(c));
    what += " add column " + f.name + " " + f.type->ToString() + ";";
  }
  for (const cdc::ColumnTypeChange& t : plan.alter_types) {
    // Java's CDC sink applies the column's change as NestedSchemaUtils splits it: nested fields
    // added (numbered by the catalog), types changed and comments set, each on its field path.
    for (const cdc::ColumnStep& step : t.steps) {
      switch (step.kind) {
        case cdc::ColumnStep::kUpdateType:
          changes.push_back(SchemaChange::UpdateNestedColumnType(step.path, step.type));
          break;
        case cdc::ColumnStep::kAddField: {
          SchemaChange c = SchemaChange::AddNestedColumn(step.path, step.type, step.description);
          if (step.after) {
            c.After(*step.after);
          } else {
            c.First();
          }
          changes.push_back(std::move(c));
          break;
        }
        case cdc::ColumnStep::kComment:
          changes.push_back(SchemaChange::UpdateNestedColumnComment(step.path, step.description));
          break;
      }
    }
    what += " column " + t.column + " " + t.from->ToString() + " -> " + t.to->ToString() + ";";
  }
  for (const auto& [column, comment] : plan.column_comments) {
    changes.push_back(SchemaChange::UpdateColumnComment(column, comment));
    what += " comment of column " + column + ";";
  }
  if (plan.table_comment) {
    changes.push_back(SchemaChange::UpdateComment(plan.table_comment));
    what += " table comment;";
  }
  known->needs.clear();
  if (changes.empty()) return false;
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, Identifier(target));
  Status altered = catalog_->AlterTable(id, changes);
  if (!altered.ok()) return altered.WithContext("table " + target + ", for " + record.origin);
  events_.altered += static_cast<int64_t>(changes.size());
  log->push_back("table " + target + " altered for " + record.origin + ":" + what);
  FJORD_RETURN_NOT_OK(ReadSchema(target, known));
  return true;
}

Status CdcTables::Compute(const std::string& target, cdc::CdcRecord* record) {
  Known& known = known_.at(target);
  if (!known.computed.empty() || !spec_.sink.computed_columns.empty()) {
    FJORD_RETURN_NOT_OK(PrepareComputed(&known, *record));
    FJORD_RETURN_NOT_OK(cdc::ApplyComputedColumns(known.computed, record));
  }
  return AppendMetadataColumns(metadata_, record);
}

Result<std::vector<std::string>> CdcTables::ExistingTables() {
  std::vector<std::string> out;
  if (!table_.empty()) {
    FJORD_ASSIGN_OR_RAISE(bool exists, Exists(database_ + "." + table_));
    if (exists) out.push_back(database_ + "." + table_);
    return out;
  }
  auto tables = catalog_->ListTables(database_);
  if (!tables.ok()) {
    if (tables.status().code() == StatusCode::kNotFound) return out;
    return tables.status();
  }
  for (const std::string& t : *tables) out.push_back(database_ + "." + t);
  return out;
}

}  // namespace fjord::runtime
