#include "fjord/cdc/json_record.h"

#include "fjord/data_type.h"

namespace fjord::cdc {

Result<std::optional<JsonNode>> JsonRecordContext::Parse() const {
  if (!message_.value) return std::optional<JsonNode>();
  auto parsed = ParseCdcJson(*message_.value);
  if (!parsed.ok()) {
    return Status::Invalid(message_.origin, ": Invalid ", format_,
                           " format: ", parsed.status().message());
  }
  if (parsed->is_null()) return std::optional<JsonNode>();
  return std::optional<JsonNode>(std::move(*parsed));
}

Status JsonRecordContext::Error(const std::string& what) const {
  return Status::Invalid(message_.origin, ": Invalid ", format_, " format: ", what);
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

Result<const JsonNode*> JsonRecordContext::RequireObject(const JsonNode* node,
                                                         std::string_view field) const {
  if (!node->is_object()) {
    return Error("'" + std::string(field) + "' is not a JSON object.");
  }
  return node;
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
