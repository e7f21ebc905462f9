// `debezium-json` (docs/cdc.md), as Java Paimon's DebeziumJsonRecordParser: Debezium's change
// events as Kafka's JSON converter writes them, with the schema envelope {"schema", "payload"}
// (column types from the Connect schema of `after`, else `before`; values as
// DebeziumSchemaUtils turns them into text) or without it (all columns STRING). Ops: c and r
// insert, u deletes the before image merged over the after image and inserts the after image, d
// deletes the before image; any other op (t, m, or a message without op such as a transaction
// marker or a schema-change event) is invalid, as in Java. Primary keys: the payload's
// `pkNames`, which Java reads (the Kafka key is not used by Java's JSON parser). Database and
// table: the payload's source.db and source.table (for PostgreSQL the database, not the schema).
//
// Speed: the JSON converter repeats the whole Connect schema, several times the payload's size,
// in every message. The envelope is split first (cdc/json_envelope.h), each distinct schema
// text parsed once (its fields and their Paimon types kept, a bounded number of texts), and
// only the payload parsed per message; a message that does not split that way, or whose parts
// do not parse, goes the whole way, which gives the same records and errors.
#include <map>
#include <memory>

#include "fjord/cdc/debezium_types.h"
#include "fjord/cdc/geojson.h"
#include "fjord/cdc/json_envelope.h"
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

// A field of the schema with its Paimon type (or why it has none), worked out once.
struct SchemaField {
  DebeziumField field;
  DataTypePtr type;
  std::string type_error;
};
using Schema = std::map<std::string, SchemaField>;

constexpr const char* kName = "debezium-json";
constexpr const char* kKeys = "pkNames";
constexpr size_t kCachedSchemas = 64;

// The columns of `row`: typed by the schema when the message has one, else all STRING.
Result<std::vector<CdcColumn>> Columns(const JsonRecordContext& ctx, const Schema* schema,
                                       const JsonNode& row) {
  if (!schema) return ctx.StringColumns(row);
  std::vector<CdcColumn> columns;
  columns.reserve(row.members.size());
  for (const auto& [name, value] : row.members) {
    auto it = schema->find(name);
    if (it == schema->end()) {
      return ctx.Error("field '" + name + "' is not in the message's schema.");
    }
    CdcColumn column;
    column.name = name;
    if (!it->second.type) return ctx.Error("field '" + name + "': " + it->second.type_error);
    column.type = it->second.type;
    std::optional<std::string> raw;
    const std::string& logical = it->second.field.name ? *it->second.field.name : std::string();
    if (!value.is_null() && (logical == "io.debezium.data.geometry.Point" ||
                             logical == "io.debezium.data.geometry.Geometry")) {
      // Java: the struct's `wkb` (base64) as bytes, then MySqlTypeUtils.convertWkbArray.
      const JsonNode* wkb = value.is_object() ? value.Get("wkb") : nullptr;
      std::string bytes;
      if (wkb == nullptr || wkb->is_null() || !DecodeBase64(JsonAsText(*wkb), &bytes)) {
        return ctx.Error("field '" + name + "': a geometry value without base64 'wkb'.");
      }
      auto geojson = WkbToGeoJson(bytes);
      if (!geojson.ok()) {
        return ctx.Error("field '" + name + "': the geometry value is not one Java reads: " +
                         geojson.status().message());
      }
      column.value = std::move(*geojson);
      columns.push_back(std::move(column));
      continue;
    }
    if (!value.is_null()) raw = JavaObjectText(value);
    auto text = DebeziumValueText(raw, it->second.field, ctx.mapping());
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
    SchemaField field;
    field.field.type = *type;
    field.field.name = TextOrNull(f.Get("name"));
    if (const JsonNode* params = f.Get("parameters"); params && params->is_object()) {
      for (const auto& [k, v] : params->members) {
        if (!v.is_null()) field.field.params[k] = JsonAsText(v);
      }
    }
    auto paimon = DebeziumFieldType(field.field);
    if (paimon.ok()) {
      field.type = *paimon;
    } else {
      field.type_error = paimon.status().message();
    }
    out[*name] = std::move(field);
  }
  return out;
}

// The changes of the payload `root` (schema: its fields, or null without the envelope).
Status DecodePayload(const JsonRecordContext& ctx, const JsonNode* root, const Schema* schema,
                     std::vector<CdcRecord>* records) {
  FJORD_ASSIGN_OR_RAISE(const std::string op, ctx.RequireText(*root, "op"));
  // The names are the payload's source.db and source.table.
  const JsonNode* source = root->Get("source");
  const JsonTableName name{source ? TextOrNull(source->Get("db")) : std::nullopt,
                           source ? TextOrNull(source->Get("table")) : std::nullopt};
  // The change's time (Java's op_ts metadata column): source.ts_ms, when it is an integer.
  std::optional<int64_t> ts_ms;
  if (const JsonNode* ts = source ? source->Get("ts_ms") : nullptr;
      ts && ts->kind == JsonNode::Kind::kInteger) {
    try {
      ts_ms = std::stoll(ts->text);
    } catch (...) {
    }
  }
  auto add = [&](const JsonNode& row, ChangeKind kind) -> Status {
    FJORD_ASSIGN_OR_RAISE(std::vector<CdcColumn> columns, Columns(ctx, schema, row));
    FJORD_RETURN_NOT_OK(ctx.Add(*root, name, kind, std::move(columns), records));
    records->back().op_ts_ms = ts_ms;
    return Status::OK();
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

// A whole message: {"schema", "payload"}, or the bare payload.
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
  return DecodePayload(ctx, root, schema ? &*schema : nullptr, records);
}

class DebeziumJsonFormat : public CdcFormat {
 public:
  explicit DebeziumJsonFormat(const TypeMapping& mapping)
      : spec_{kName, kKeys, mapping, DecodeDebezium}, whole_(MakeJsonCdcFormat(spec_)) {}

  const char* name() const override { return kName; }

  Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) override {
    if (message.value) {
      std::vector<CdcRecord> records;
      FJORD_ASSIGN_OR_RAISE(bool done, DecodeSplit(message, &records));
      if (done) {
        for (CdcRecord& r : records) out->push_back(std::move(r));
        return Status::OK();
      }
    }
    return whole_->Decode(message, out);
  }

 private:
  // The envelope's schema from the cache, its payload parsed alone. False: not this way.
  Result<bool> DecodeSplit(const CdcMessage& message, std::vector<CdcRecord>* records) {
    auto members = TopLevelMembers(*message.value);
    if (!members) return false;
    std::optional<std::string_view> schema_text;
    std::optional<std::string_view> payload_text;
    for (const auto& [key, value] : *members) {
      std::optional<std::string_view>* slot = key == "schema"    ? &schema_text
                                              : key == "payload" ? &payload_text
                                                                 : nullptr;
      if (!slot) {
        if (!ParseCdcJson(value).ok()) return false;  // the whole way names what is wrong
        continue;
      }
      if (*slot) return false;  // given twice: the whole way decides
      *slot = value;
    }
    if (!schema_text || !payload_text || *schema_text == "null") return false;
    if (*payload_text == "null") return true;  // a tombstone in the envelope
    JsonRecordContext ctx(spec_, message);
    const Schema* schema = Cached(ctx, *schema_text);
    if (!schema) return false;
    auto payload = ParseCdcJson(*payload_text);
    if (!payload.ok()) return false;
    Status decoded = DecodePayload(ctx, &*payload, schema, records);
    if (!decoded.ok()) return decoded;
    return true;
  }

  // The schema of `text`, parsed on its first sight; null when it does not parse.
  const Schema* Cached(const JsonRecordContext& ctx, std::string_view text) {
    auto it = schemas_.find(text);
    if (it != schemas_.end()) return it->second.get();
    auto node = ParseCdcJson(text);
    if (!node.ok()) return nullptr;
    auto schema = ParseSchema(ctx, *node);
    if (!schema.ok()) return nullptr;
    if (schemas_.size() >= kCachedSchemas) schemas_.clear();
    auto owned = std::make_shared<const Schema>(std::move(*schema));
    schemas_.emplace(std::string(text), owned);
    return owned.get();
  }

  JsonFormatSpec spec_;
  std::unique_ptr<CdcFormat> whole_;
  std::map<std::string, std::shared_ptr<const Schema>, std::less<>> schemas_;
};

}  // namespace

std::unique_ptr<CdcFormat> MakeDebeziumJsonFormat(const TypeMapping& mapping) {
  return std::make_unique<DebeziumJsonFormat>(mapping);
}

}  // namespace fjord::cdc
