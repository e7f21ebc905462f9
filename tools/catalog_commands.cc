// `fjord db ...` and `fjord table ...`: the filesystem catalog.

#include <cctype>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "cli_util.h"
#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

Result<std::pair<std::string, std::string>> KeyValue(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::Invalid("expected key=value, got '", text, "'");
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

Result<std::map<std::string, std::string>> KeyValues(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const std::string& i : items) {
    FJORD_ASSIGN_OR_RAISE(auto kv, KeyValue(i));
    out[kv.first] = kv.second;
  }
  return out;
}

struct CatalogArgs {
  std::string warehouse;
  std::vector<std::string> catalog_options;
  std::string name;  // db, or db.table
  bool ignore = false;
  bool cascade = false;
  // table create
  std::string columns;
  std::string primary_key;
  std::string partition_keys;
  std::vector<std::string> options;
  std::string comment;
  // table alter
  std::vector<std::string> add_columns, drop_columns, rename_columns, set_options, reset_options;
  std::vector<std::string> retype_columns;
  // table options
  std::string table_dir;
  bool explain = false;
};

Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto options, KeyValues(a.catalog_options));
  return Catalog::Open(a.warehouse, options);
}

std::vector<std::string> Split(const std::string& s) { return SplitList(s); }

Status RunDb(const std::string& action, const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, OpenCatalog(a));
  if (action == "create") return catalog->CreateDatabase(a.name, a.ignore);
  if (action == "drop") return catalog->DropDatabase(a.name, a.ignore, a.cascade);
  FJORD_ASSIGN_OR_RAISE(auto dbs, catalog->ListDatabases());
  for (const std::string& d : dbs) std::cout << d << "\n";
  return Status::OK();
}

Status RunTableCreate(const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, OpenCatalog(a));
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(a.name));
  TableSpec spec;
  FJORD_ASSIGN_OR_RAISE(spec.fields, ParseColumnList(a.columns));
  spec.primary_keys = Split(a.primary_key);
  spec.partition_keys = Split(a.partition_keys);
  for (const std::string& o : a.options) {
    FJORD_ASSIGN_OR_RAISE(auto kv, KeyValue(o));
    spec.options.push_back(kv);
  }
  if (!a.comment.empty()) spec.comment = a.comment;
  FJORD_RETURN_NOT_OK(catalog->CreateTable(id, spec, a.ignore));
  std::cout << catalog->TablePath(id) << "\n";
  return Status::OK();
}

// "v.b.c" as a nested field path {"v", "b", "c"} (docs/reading.md, "Nested schema evolution").
std::vector<std::string> FieldPath(const std::string& text) {
  std::vector<std::string> path;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    path.push_back(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return path;
    start = dot + 1;
  }
}

// "v.b TYPE": a nested path and its type; nullopt when the name before the first blank has no
// dot (a column list, parsed as before).
Result<std::optional<std::pair<std::vector<std::string>, DataTypePtr>>> NestedTyped(
    const std::string& text) {
  size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos) return std::nullopt;
  size_t blank = text.find_first_of(" \t", start);
  std::string name = text.substr(start, blank == std::string::npos ? blank : blank - start);
  if (name.find('.') == std::string::npos) return std::nullopt;
  if (blank == std::string::npos) return Status::Invalid("'", text, "': a type must follow ", name);
  FJORD_ASSIGN_OR_RAISE(DataTypePtr type, ParseDataType(text.substr(blank + 1)));
  return std::make_optional(std::make_pair(FieldPath(name), type));
}

// "... FIRST" or "... AFTER name" at the end of an --add-column text (Flink's and Spark's ALTER
// TABLE ADD syntax): the text before it and the position; `text` unchanged without one.
std::string Position(const std::string& text, SchemaChange* change) {
  std::vector<std::string> words;
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size();) {
    size_t start = text.find_first_not_of(" \t", i);
    if (start == std::string::npos) break;
    size_t end = text.find_first_of(" \t", start);
    if (end == std::string::npos) end = text.size();
    words.push_back(text.substr(start, end - start));
    starts.push_back(start);
    i = end;
  }
  auto upper = [](std::string w) {
    for (char& ch : w) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return w;
  };
  size_t n = words.size();
  if (n >= 3 && upper(words[n - 1]) == "FIRST") {
    change->First();
    return text.substr(0, starts[n - 1]);
  }
  if (n >= 4 && upper(words[n - 2]) == "AFTER") {
    change->After(words[n - 1]);
    return text.substr(0, starts[n - 2]);
  }
  return text;
}

Status RunTableAlter(const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, OpenCatalog(a));
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(a.name));
  std::vector<SchemaChange> changes;
  for (const std::string& text : a.add_columns) {
    SchemaChange position = SchemaChange::AddColumn("", nullptr);
    std::string c = Position(text, &position);
    FJORD_ASSIGN_OR_RAISE(auto nested, NestedTyped(c));
    std::vector<SchemaChange> adds;
    if (nested) {
      adds.push_back(SchemaChange::AddNestedColumn(nested->first, nested->second));
    } else {
      FJORD_ASSIGN_OR_RAISE(auto fields, ParseColumnList(c));
      for (const DataField& f : fields) adds.push_back(SchemaChange::AddColumn(f.name, f.type));
    }
    if (position.position != SchemaChange::Position::kLast && adds.size() != 1) {
      return Status::Invalid("--add-column '", text, "': FIRST / AFTER need a single column");
    }
    for (SchemaChange& add : adds) {
      add.position = position.position;
      add.after = position.after;
      changes.push_back(std::move(add));
    }
  }
  for (const std::string& c : a.drop_columns) {
    changes.push_back(SchemaChange::DropNestedColumn(FieldPath(c)));
  }
  for (const std::string& c : a.rename_columns) {
    FJORD_ASSIGN_OR_RAISE(auto kv, KeyValue(c));
    changes.push_back(SchemaChange::RenameNestedColumn(FieldPath(kv.first), kv.second));
  }
  for (const std::string& c : a.retype_columns) {
    FJORD_ASSIGN_OR_RAISE(auto nested, NestedTyped(c));
    if (nested) {
      changes.push_back(SchemaChange::UpdateNestedColumnType(nested->first, nested->second));
      continue;
    }
    FJORD_ASSIGN_OR_RAISE(auto fields, ParseColumnList(c));
    for (const DataField& f : fields)
      changes.push_back(SchemaChange::UpdateColumnType(f.name, f.type));
  }
  for (const std::string& o : a.set_options) {
    FJORD_ASSIGN_OR_RAISE(auto kv, KeyValue(o));
    changes.push_back(SchemaChange::SetOption(kv.first, kv.second));
  }
  for (const std::string& k : a.reset_options) changes.push_back(SchemaChange::RemoveOption(k));
  if (changes.empty()) return Status::Invalid("nothing to alter");
  return catalog->AlterTable(id, changes);
}

Status RunTableList(const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, OpenCatalog(a));
  FJORD_ASSIGN_OR_RAISE(auto tables, catalog->ListTables(a.name));
  for (const std::string& t : tables) std::cout << t << "\n";
  return Status::OK();
}

Status RunTableDrop(const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, OpenCatalog(a));
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse(a.name));
  return catalog->DropTable(id, a.ignore);
}

Status RunTableOptions(const CatalogArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table_dir));
  FJORD_ASSIGN_OR_RAISE(auto catalog_options, KeyValues(a.catalog_options));
  std::map<std::string, std::string> table_options = table->schema().EffectiveOptions();
  Options options = Options::Layered(catalog_options, table_options);
  for (const Options::Explained& e : options.Explain()) {
    if (!a.explain) {
      if (e.layer != OptionLayer::kDefault) std::cout << e.key << " = " << e.value << "\n";
      continue;
    }
    std::string layer(OptionLayerName(e.layer));
    // A table value equal to the catalog's table-default was copied in at CREATE TABLE.
    for (const auto& [l, v] : e.overridden) {
      if (l == OptionLayer::kCatalog && v == e.value)
        layer = "table (copied from catalog table-default)";
    }
    std::cout << e.key << " = " << e.value << "    [" << layer;
    for (const auto& [l, v] : e.overridden) {
      if (!(l == OptionLayer::kCatalog && v == e.value)) {
        std::cout << "; overrides " << OptionLayerName(l) << " " << v;
      }
    }
    if (e.def == nullptr) std::cout << "; not a known option";
    if (e.def != nullptr && e.layer != OptionLayer::kDefault) {
      if (!OptionValueHonoured(*e.def, e.value)) {
        std::cout << "; not honoured by Fjord";
        if (!e.def->support_note.empty()) std::cout << ": " << e.def->support_note;
      } else if (e.def->support == OptionSupport::kPerformance) {
        std::cout << "; ignored by Fjord (performance only)";
      }
    }
    std::cout << "]\n";
  }
  return Status::OK();
}

void AddCatalogFlags(CLI::App* cmd, CatalogArgs* a) {
  cmd->add_option("warehouse", a->warehouse, "Warehouse directory (local path or s3://)")
      ->required();
  cmd->add_option("-c,--catalog-option", a->catalog_options,
                  "Catalog option key=value, e.g. table-default.bucket=4 (repeatable)");
}

}  // namespace

void AddCatalogCommands(CLI::App* app, Handler* handler) {
  auto* db = app->add_subcommand("db", "Create, list or drop databases");
  db->require_subcommand(1);
  for (const char* action : {"create", "list", "drop"}) {
    auto a = std::make_shared<CatalogArgs>();
    auto* cmd = db->add_subcommand(action, std::string(action) + " databases");
    AddCatalogFlags(cmd, a.get());
    if (std::string(action) != "list") cmd->add_option("database", a->name, "Database")->required();
    if (std::string(action) == "create") cmd->add_flag("--if-not-exists", a->ignore);
    if (std::string(action) == "drop") {
      cmd->add_flag("--if-exists", a->ignore);
      cmd->add_flag("--cascade", a->cascade, "Drop the tables too");
    }
    std::string act = action;
    cmd->callback([handler, a, act] { SetHandler(handler, [a, act] { return RunDb(act, *a); }); });
  }

  auto* table = app->add_subcommand("table", "Create, alter, list, drop tables; show options");
  table->require_subcommand(1);

  auto create = std::make_shared<CatalogArgs>();
  auto* c = table->add_subcommand("create", "Create a table");
  AddCatalogFlags(c, create.get());
  c->add_option("table", create->name, "<database>.<table>")->required();
  c->add_option("--columns", create->columns, "\"id INT NOT NULL, name STRING, ...\"")->required();
  c->add_option("--primary-key", create->primary_key, "Comma-separated primary key columns");
  c->add_option("--partition-keys", create->partition_keys, "Comma-separated partition columns");
  c->add_option("-o,--option", create->options, "Table option key=value (repeatable)");
  c->add_option("--comment", create->comment, "Table comment");
  c->add_flag("--if-not-exists", create->ignore);
  c->callback(
      [handler, create] { SetHandler(handler, [create] { return RunTableCreate(*create); }); });

  auto alter = std::make_shared<CatalogArgs>();
  auto* al = table->add_subcommand("alter", "Change a table's schema or options");
  AddCatalogFlags(al, alter.get());
  al->add_option("table", alter->name, "<database>.<table>")->required();
  al->add_option("--add-column", alter->add_columns,
                 "\"name TYPE [FIRST | AFTER sibling]\" (repeatable; col.field: a nested field)");
  al->add_option("--drop-column", alter->drop_columns, "Column or col.field (repeatable)");
  al->add_option("--rename-column", alter->rename_columns, "old=new or col.field=new (repeatable)");
  al->add_option("--change-type", alter->retype_columns,
                 "\"name NEWTYPE\" (repeatable; col.element / col.value / col.field: inside)");
  al->add_option("--set", alter->set_options, "Option key=value (repeatable)");
  al->add_option("--reset", alter->reset_options, "Option key (repeatable)");
  al->callback(
      [handler, alter] { SetHandler(handler, [alter] { return RunTableAlter(*alter); }); });

  auto list = std::make_shared<CatalogArgs>();
  auto* l = table->add_subcommand("list", "List the tables of a database");
  AddCatalogFlags(l, list.get());
  l->add_option("database", list->name, "Database")->required();
  l->callback([handler, list] { SetHandler(handler, [list] { return RunTableList(*list); }); });

  auto drop = std::make_shared<CatalogArgs>();
  auto* d = table->add_subcommand("drop", "Drop a table and its files");
  AddCatalogFlags(d, drop.get());
  d->add_option("table", drop->name, "<database>.<table>")->required();
  d->add_flag("--if-exists", drop->ignore);
  d->callback([handler, drop] { SetHandler(handler, [drop] { return RunTableDrop(*drop); }); });

  auto opts = std::make_shared<CatalogArgs>();
  auto* o = table->add_subcommand("options", "Show a table's options");
  o->add_option("table", opts->table_dir, "Table directory")->required();
  o->add_flag("--explain", opts->explain, "Every effective option and the layer that set it");
  o->add_option("-c,--catalog-option", opts->catalog_options,
                "The catalog's options, to attribute copied table-default values");
  o->callback([handler, opts] { SetHandler(handler, [opts] { return RunTableOptions(*opts); }); });
}

}  // namespace fjord::cli
