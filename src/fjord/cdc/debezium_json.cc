// `debezium-json` (docs/cdc.md), as Java Paimon's DebeziumJsonRecordParser: Debezium's change
// events as Kafka's JSON converter writes them, with the schema envelope {"schema", "payload"}
// (column types from the Connect schema of `after`, else `before`; values as
// DebeziumSchemaUtils turns them into text) or without it (all columns STRING). Ops: c and r
// insert, u deletes the before image merged over the after image and inserts the after image, d
// deletes the before image; any other op (t, m, or a message without op such as a transaction
// marker or a schema-change event) is invalid, as in Java. Primary keys: the payload's
// `pkNames`, which Java reads (the Kafka key is not used by Java's JSON parser). Database and
// table: the payload's source.db and source.table (for PostgreSQL the database, not the schema).
#include <map>

#include "fjord/cdc/debezium_types.h"
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

using Schema = std::map<std::string, DebeziumField>;

// The columns of `row`: typed by the schema when the message has one, else all STRING.
Result<std::vector<CdcColumn>> Columns(const JsonRecordContext& ctx,
                                       const std::optional<Schema>& schema, const JsonNode& row) {
  if (!schema) return ctx.StringColumns(row);
  std::vector<CdcColumn> columns;
  for (const auto& [name, value] : row.members) {
    auto it = schema->find(name);
    if (it == schema->end()) {
      return ctx.Error("field '" + name + "' is not in the message's schema.");
    }
    CdcColumn column;
    column.name = name;
    auto type = DebeziumFieldType(it->second);
    if (!type.ok()) return ctx.Error("field '" + name + "': " + type.status().message());
    column.type = *type;
    std::optional<std::string> raw;
    if (!value.is_null()) raw = JavaObjectText(value);
    auto text = DebeziumValueText(raw, it->second, ctx.mapping());
    if (!text.ok()) return ctx.Error("field '" + name + "': " + text.status().message());
    column.value = std::move(*text);
    columns.push_back(std::move(column));
  }
  return columns;
}

// The fields of the `after` struct of the schema, or of `before` when it has no `after`.
Result<Schema> ParseSchema(const JsonRecordContext& ctx, const JsonNode& schema) {
  const JsonNode* fields = schema.Get("fields");
  if (fields == nullptr || !fields->is_array()) {
    return ctx.Error("the schema has no 'fields' array.");
  }
  const JsonNode* row_fields = nullptr;
  for (const JsonNode& f : fields->items) {
    std::optional<std::string> name = TextOrNull(f.Get("field"));
    if (name == "after") {
      row_fields = f.Get("fields");
      break;
    }
    if (name == "before" && row_fields == nullptr) row_fields = f.Get("fields");
  }
  if (row_fields == nullptr || !row_fields->is_array()) {
    return ctx.Error("the schema describes neither 'after' nor 'before' fields.");
  }
  Schema out;
  for (const JsonNode& f : row_fields->items) {
    std::optional<std::string> name = TextOrNull(f.Get("field"));
    std::optional<std::string> type = TextOrNull(f.Get("type"));
    if (!name || !type) return ctx.Error("a schema field lacks 'field' or 'type'.");
    DebeziumField field;
    field.type = *type;
    field.name = TextOrNull(f.Get("name"));
    if (const JsonNode* params = f.Get("parameters"); params && params->is_object()) {
      for (const auto& [k, v] : params->members) {
        if (!v.is_null()) field.params[k] = JsonAsText(v);
      }
    }
    out[*name] = std::move(field);
  }
  return out;
}

Status DecodeDebezium(const JsonRecordContext& ctx, const JsonNode& message,
                      std::vector<CdcRecord>* records) {
  const JsonNode* root = &message;
  std::optional<Schema> schema;
  if (const JsonNode* schema_node = message.Get("schema")) {
    root = message.Get("payload");
    if (root == nullptr) return ctx.Error("missing 'payload' field.");
    // The envelope of a null value: a tombstone as the JSON converter writes it.
    if (root->is_null()) return Status::OK();
    if (!schema_node->is_null()) {
      FJORD_ASSIGN_OR_RAISE(schema, ParseSchema(ctx, *schema_node));
    }
  }

  FJORD_ASSIGN_OR_RAISE(const std::string op, ctx.RequireText(*root, "op"));
  // The names are the payload's source.db and source.table.
  const JsonNode* source = root->Get("source");
  const JsonTableName name{source ? TextOrNull(source->Get("db")) : std::nullopt,
                           source ? TextOrNull(source->Get("table")) : std::nullopt};
  auto add = [&](const JsonNode& row, ChangeKind kind) -> Status {
    FJORD_ASSIGN_OR_RAISE(std::vector<CdcColumn> columns, Columns(ctx, schema, row));
    return ctx.Add(*root, name, kind, std::move(columns), records);
  };
  if (op == "d") {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* before, ctx.RequireRow(*root, "before", "op", op));
    return add(*before, ChangeKind::kDelete);
  }
  if (op == "c" || op == "r") {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* after, ctx.RequireRow(*root, "after"));
    return add(*after, ChangeKind::kInsert);
  }
  if (op == "u") {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* after, ctx.RequireRow(*root, "after"));
    // Only merged over the after image: a `before` that is not an object merges nothing.
    FJORD_ASSIGN_OR_RAISE(const JsonNode* before, ctx.Require(*root, "before", "op", op));
    return AddMergedUpdate(*after, *before, add);
  }
  return ctx.UnknownOperation(op);
}

}  // namespace

std::unique_ptr<CdcFormat> MakeDebeziumJsonFormat(const TypeMapping& mapping) {
  return MakeJsonCdcFormat({"debezium-json", "pkNames", mapping, DecodeDebezium});
}

}  // namespace fjord::cdc
