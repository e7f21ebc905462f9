#include "fjord/common/data_type_json.h"

#include <algorithm>

namespace fjord {

namespace {

// Splits "ARRAY NOT NULL" into the keyword and nullability.
std::pair<std::string, bool> SplitNestedKeyword(const std::string& text) {
  bool nullable = text.find("NOT NULL") == std::string::npos;
  std::string word = text.substr(0, text.find(' '));
  return {word, nullable};
}

std::string Child(std::string_view source, std::string_view key) {
  return std::string(source) + "." + std::string(key);
}

int32_t HighestIdInType(const DataType& type) {
  int32_t best = -1;
  switch (type.root()) {
    case TypeRoot::kRow:
      best = HighestFieldId(type.fields());
      break;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector:
      best = HighestIdInType(*type.element());
      break;
    case TypeRoot::kMap:
      best = std::max(HighestIdInType(*type.key()), HighestIdInType(*type.value()));
      break;
    default:
      break;
  }
  return best;
}

}  // namespace

Result<DataTypePtr> DataTypeFromJson(const Json& json, std::string_view source) {
  if (json.is_string()) {
    Result<DataTypePtr> parsed = ParseDataType(json.get_ref<const std::string&>());
    if (!parsed.ok()) return Status::Corruption(source, ": ", parsed.status().message());
    if ((*parsed)->IsNested()) {
      return Status::Corruption(source, ": nested type '", json.get<std::string>(),
                                "' must be written as a JSON object");
    }
    return parsed;
  }
  if (!json.is_object()) {
    return Status::Corruption(source, ": a type must be a string or an object, got ",
                              json.type_name());
  }
  FJORD_ASSIGN_OR_RAISE(std::string keyword_text, JsonGetString(json, "type", source));
  auto [keyword, nullable] = SplitNestedKeyword(keyword_text);
  if (keyword == "ARRAY" || keyword == "MULTISET") {
    if (!json.contains("element"))
      return Status::Corruption(source, ": ", keyword, " without 'element'");
    FJORD_ASSIGN_OR_RAISE(DataTypePtr element,
                          DataTypeFromJson(json["element"], Child(source, "element")));
    return keyword == "ARRAY" ? DataType::Array(element, nullable)
                              : DataType::Multiset(element, nullable);
  }
  if (keyword == "VECTOR") {
    if (!json.contains("element")) return Status::Corruption(source, ": VECTOR without 'element'");
    FJORD_ASSIGN_OR_RAISE(DataTypePtr element,
                          DataTypeFromJson(json["element"], Child(source, "element")));
    FJORD_ASSIGN_OR_RAISE(int64_t length, JsonGetInt(json, "length", source));
    return DataType::Vector(element, static_cast<int32_t>(length), nullable);
  }
  if (keyword == "MAP") {
    if (!json.contains("key") || !json.contains("value")) {
      return Status::Corruption(source, ": MAP needs 'key' and 'value'");
    }
    FJORD_ASSIGN_OR_RAISE(DataTypePtr key, DataTypeFromJson(json["key"], Child(source, "key")));
    FJORD_ASSIGN_OR_RAISE(DataTypePtr value,
                          DataTypeFromJson(json["value"], Child(source, "value")));
    return DataType::Map(key, value, nullable);
  }
  if (keyword == "ROW") {
    if (!json.contains("fields")) return Status::Corruption(source, ": ROW without 'fields'");
    FJORD_ASSIGN_OR_RAISE(std::vector<DataField> fields,
                          DataFieldsFromJson(json["fields"], Child(source, "fields")));
    return DataType::Row(std::move(fields), nullable);
  }
  return Status::Corruption(source, ": unknown nested type '", keyword_text, "'");
}

Result<DataField> DataFieldFromJson(const Json& json, std::string_view source) {
  DataField field;
  FJORD_ASSIGN_OR_RAISE(int64_t id, JsonGetInt(json, "id", source));
  field.id = static_cast<int32_t>(id);
  FJORD_ASSIGN_OR_RAISE(field.name, JsonGetString(json, "name", source));
  std::string where = std::string(source) + " (field '" + field.name + "').type";
  if (!json.contains("type")) return Status::Corruption(where, " is missing");
  FJORD_ASSIGN_OR_RAISE(field.type, DataTypeFromJson(json["type"], where));
  FJORD_ASSIGN_OR_RAISE(field.description, JsonGetOptionalString(json, "description", source));
  FJORD_ASSIGN_OR_RAISE(field.default_value, JsonGetOptionalString(json, "defaultValue", source));
  return field;
}

Result<std::vector<DataField>> DataFieldsFromJson(const Json& json, std::string_view source) {
  if (!json.is_array()) return Status::Corruption(source, ": expected an array of fields");
  std::vector<DataField> fields;
  for (size_t i = 0; i < json.size(); ++i) {
    FJORD_ASSIGN_OR_RAISE(DataField f, DataFieldFromJson(json[i], std::string(source) + "[" +
                                                                      std::to_string(i) + "]"));
    fields.push_back(std::move(f));
  }
  return fields;
}

Json DataTypeToJson(const DataType& type) {
  if (!type.IsNested()) return Json(type.ToString());
  std::string keyword;
  switch (type.root()) {
    case TypeRoot::kArray:
      keyword = "ARRAY";
      break;
    case TypeRoot::kMultiset:
      keyword = "MULTISET";
      break;
    case TypeRoot::kMap:
      keyword = "MAP";
      break;
    case TypeRoot::kRow:
      keyword = "ROW";
      break;
    default:
      keyword = "VECTOR";
  }
  Json out = Json::object();
  out["type"] = type.nullable() ? keyword : keyword + " NOT NULL";
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
      out["element"] = DataTypeToJson(*type.element());
      break;
    case TypeRoot::kVector:
      out["element"] = DataTypeToJson(*type.element());
      out["length"] = type.length();
      break;
    case TypeRoot::kMap:
      out["key"] = DataTypeToJson(*type.key());
      out["value"] = DataTypeToJson(*type.value());
      break;
    default: {
      Json fields = Json::array();
      for (const DataField& f : type.fields()) fields.push_back(DataFieldToJson(f));
      out["fields"] = std::move(fields);
    }
  }
  return out;
}

Json DataFieldToJson(const DataField& field) {
  Json out = Json::object();
  out["id"] = field.id;
  out["name"] = field.name;
  out["type"] = DataTypeToJson(*field.type);
  if (field.description) out["description"] = *field.description;
  if (field.default_value) out["defaultValue"] = *field.default_value;
  return out;
}

int32_t HighestFieldId(const std::vector<DataField>& fields) {
  int32_t best = -1;
  for (const DataField& f : fields) {
    best = std::max(best, f.id);
    best = std::max(best, HighestIdInType(*f.type));
  }
  return best;
}

}  // namespace fjord
