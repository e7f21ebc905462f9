#include "fjord/schema.h"

#include <sstream>

#include "fjord/common/data_type_json.h"
#include "fjord/common/json.h"
#include "fjord/common/strings.h"

namespace fjord {

namespace {

Result<std::vector<std::string>> StringArray(const Json& obj, const char* key,
                                             std::string_view source) {
  std::vector<std::string> out;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return out;
  if (!it->is_array()) {
    return Status::Corruption(source, ": field '", key, "' must be an array of strings");
  }
  for (const Json& v : *it) {
    if (!v.is_string()) {
      return Status::Corruption(source, ": field '", key, "' must be an array of strings");
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> TableSchema::EffectiveOptions() const {
  std::map<std::string, std::string> out(options.begin(), options.end());
  if (FormatVersion() <= 1 && !out.count("bucket")) out["bucket"] = "1";
  if (FormatVersion() <= 2 && !out.count("file.format")) out["file.format"] = "orc";
  return out;
}

std::optional<std::string> TableSchema::Option(const std::string& key) const {
  auto opts = EffectiveOptions();
  auto it = opts.find(key);
  if (it == opts.end()) return std::nullopt;
  return it->second;
}

int TableSchema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const DataField* TableSchema::FindField(const std::string& name) const {
  int i = FieldIndex(name);
  return i < 0 ? nullptr : &fields[static_cast<size_t>(i)];
}

std::vector<std::string> TableSchema::TrimmedPrimaryKeys() const {
  std::vector<std::string> out;
  for (const std::string& k : primary_keys) {
    bool is_partition = false;
    for (const std::string& p : partition_keys) is_partition |= (p == k);
    if (!is_partition) out.push_back(k);
  }
  return out;
}

std::vector<std::string> TableSchema::BucketKeys() const {
  auto bucket_key = Option("bucket-key");
  if (bucket_key && !bucket_key->empty()) return SplitCommaList(*bucket_key);
  return TrimmedPrimaryKeys();
}

std::vector<DataField> TableSchema::FieldsByName(const std::vector<std::string>& names) const {
  std::vector<DataField> out;
  for (const std::string& n : names) {
    if (const DataField* f = FindField(n)) out.push_back(*f);
  }
  return out;
}

Result<TableSchema> TableSchema::FromJson(std::string_view text, std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(Json j, ParseJson(text, source));
  if (!j.is_object()) return Status::Corruption(source, ": a schema must be a JSON object");
  TableSchema s;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> version, JsonGetOptionalInt(j, "version", source));
  if (version) s.version = static_cast<int32_t>(*version);
  FJORD_ASSIGN_OR_RAISE(s.id, JsonGetInt(j, "id", source));
  if (!j.contains("fields")) return Status::Corruption(source, ": field 'fields' is missing");
  FJORD_ASSIGN_OR_RAISE(s.fields,
                        DataFieldsFromJson(j["fields"], std::string(source) + ": fields"));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> highest,
                        JsonGetOptionalInt(j, "highestFieldId", source));
  s.highest_field_id = highest ? static_cast<int32_t>(*highest) : HighestFieldId(s.fields);
  FJORD_ASSIGN_OR_RAISE(s.partition_keys, StringArray(j, "partitionKeys", source));
  FJORD_ASSIGN_OR_RAISE(s.primary_keys, StringArray(j, "primaryKeys", source));
  if (auto it = j.find("options"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return Status::Corruption(source, ": field 'options' must be an object");
    for (auto o = it->begin(); o != it->end(); ++o) {
      if (!o.value().is_string()) {
        return Status::Corruption(source, ": option '", o.key(), "' must be a string");
      }
      s.options.emplace_back(o.key(), o.value().get<std::string>());
    }
  }
  FJORD_ASSIGN_OR_RAISE(s.comment, JsonGetOptionalString(j, "comment", source));
  FJORD_ASSIGN_OR_RAISE(s.time_millis, JsonGetOptionalInt(j, "timeMillis", source));
  for (const auto& keys : {s.partition_keys, s.primary_keys}) {
    for (const std::string& k : keys) {
      if (s.FieldIndex(k) < 0) {
        return Status::Corruption(source, ": key column '", k, "' is not a field");
      }
    }
  }
  return s;
}

std::string TableSchema::ToJson() const {
  Json j = Json::object();
  if (version) j["version"] = *version;
  j["id"] = id;
  Json fields_json = Json::array();
  for (const DataField& f : fields) fields_json.push_back(DataFieldToJson(f));
  j["fields"] = std::move(fields_json);
  j["highestFieldId"] = highest_field_id;
  j["partitionKeys"] = partition_keys;
  j["primaryKeys"] = primary_keys;
  Json opts = Json::object();
  for (const auto& [k, v] : options) opts[k] = v;
  j["options"] = std::move(opts);
  if (comment) j["comment"] = *comment;
  if (time_millis) j["timeMillis"] = *time_millis;
  return ToJacksonPretty(j);
}

}  // namespace fjord
