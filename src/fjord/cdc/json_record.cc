#include "fjord/cdc/json_record.h"

#include "fjord/data_type.h"

namespace fjord::cdc {

Result<std::optional<JsonNode>> JsonRecordContext::Parse() const {
  if (!message_.value) return std::optional<JsonNode>();
  auto parsed = ParseCdcJson(*message_.value);
  if (!parsed.ok()) {
    return Status::Invalid(message_.origin, ": Invalid ", spec_.name,
                           " format: ", parsed.status().message());
  }
  if (parsed->is_null()) return std::optional<JsonNode>();
  return std::optional<JsonNode>(std::move(*parsed));
}

Status JsonRecordContext::Error(const std::string& what) const {
  return Status::Invalid(message_.origin, ": Invalid ", spec_.name, " format: ", what);
}

Result<const JsonNode*> JsonRecordContext::Require(const JsonNode& root,
                                                   std::string_view key) const {
  const JsonNode* node = root.Get(key);
  if (node == nullptr || node->is_null()) {
    return Error("missing '" + std::string(key) + "' field.");
  }
  return node;
}

Result<const JsonNode*> JsonRecordContext::Require(const JsonNode& root, std::string_view key,
                                                   std::string_view cond_key,
                                                   std::string_view cond_value) const {
  const JsonNode* node = root.Get(key);
  if (node == nullptr || node->is_null()) {
    return Error("missing '" + std::string(key) + "' field when '" + std::string(cond_key) +
                 "' is '" + std::string(cond_value) + "'.");
  }
  return node;
}

Result<std::string> JsonRecordContext::RequireText(const JsonNode& root,
                                                   std::string_view key) const {
  FJORD_ASSIGN_OR_RAISE(const JsonNode* node, Require(root, key));
  return JsonAsText(*node);
}

Result<const JsonNode*> JsonRecordContext::RequireObject(const JsonNode* node,
                                                         std::string_view field) const {
  if (!node->is_object()) {
    return Error("'" + std::string(field) + "' is not a JSON object.");
  }
  return node;
}

Result<const JsonNode*> JsonRecordContext::RequireRow(const JsonNode& root,
                                                      std::string_view key) const {
  FJORD_ASSIGN_OR_RAISE(const JsonNode* node, Require(root, key));
  return RequireObject(node, key);
}

Result<const JsonNode*> JsonRecordContext::RequireRow(const JsonNode& root, std::string_view key,
                                                      std::string_view cond_key,
                                                      std::string_view cond_value) const {
  FJORD_ASSIGN_OR_RAISE(const JsonNode* node, Require(root, key, cond_key, cond_value));
  return RequireObject(node, key);
}

Status JsonRecordContext::UnknownOperation(const std::string& op) const {
  return Error("unknown record operation '" + op + "'.");
}

Result<std::vector<std::string>> JsonRecordContext::PrimaryKeys(const JsonNode& root,
                                                                std::string_view key) const {
  std::vector<std::string> keys;
  const JsonNode* node = root.Get(key);
  if (node == nullptr || node->is_null()) return keys;
  if (!node->is_array()) {
    return Error("'" + std::string(key) + "' is not a JSON array.");
  }
  for (const JsonNode& item : node->items) keys.push_back(JsonAsText(item));
  return keys;
}

std::vector<CdcColumn> JsonRecordContext::StringColumns(const JsonNode& row) const {
  std::vector<CdcColumn> columns;
  columns.reserve(row.members.size());
  for (const auto& [name, value] : row.members) {
    CdcColumn c;
    c.name = name;
    c.type = DataType::String();
    c.value =
        value.is_object() || value.is_array() ? JacksonCompactText(value) : JavaObjectText(value);
    columns.push_back(std::move(c));
  }
  return columns;
}

JsonTableName MemberTableName(const JsonNode& root) {
  return JsonTableName{TextOrNull(root.Get("database")), TextOrNull(root.Get("table"))};
}

Status JsonRecordContext::Add(const JsonNode& root, const JsonTableName& name, ChangeKind kind,
                              std::vector<CdcColumn> columns,
                              std::vector<CdcRecord>* records) const {
  CdcRecord record;
  record.database = name.database;
  record.table = name.table;
  record.kind = kind;
  record.columns = std::move(columns);
  if (spec_.keys_field != nullptr) {
    FJORD_ASSIGN_OR_RAISE(record.primary_keys, PrimaryKeys(root, spec_.keys_field));
  }
  records->push_back(std::move(record));
  return Status::OK();
}

namespace {

class JsonCdcFormat : public CdcFormat {
 public:
  explicit JsonCdcFormat(JsonFormatSpec spec) : spec_(std::move(spec)) {}

  const char* name() const override { return spec_.name; }

  Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) override {
    JsonRecordContext ctx(spec_, message);
    FJORD_ASSIGN_OR_RAISE(std::optional<JsonNode> root, ctx.Parse());
    if (!root) return Status::OK();
    std::vector<CdcRecord> records;
    FJORD_RETURN_NOT_OK(spec_.decode(ctx, *root, &records));
    for (CdcRecord& r : records) out->push_back(std::move(r));
    return Status::OK();
  }

 private:
  JsonFormatSpec spec_;
};

}  // namespace

std::unique_ptr<CdcFormat> MakeJsonCdcFormat(JsonFormatSpec spec) {
  return std::make_unique<JsonCdcFormat>(std::move(spec));
}

JsonNode MergeOldRecord(const JsonNode& data, const JsonNode& old) {
  JsonNode merged = data;
  for (const auto& [name, value] : old.members) merged.Set(name, value);
  return merged;
}

std::optional<std::string> TextOrNull(const JsonNode* node) {
  if (node == nullptr || node->is_null()) return std::nullopt;
  return JsonAsText(*node);
}

}  // namespace fjord::cdc
