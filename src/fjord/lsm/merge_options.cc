#include "fjord/lsm/merge_options.h"

#include <charconv>
#include <limits>

#include "fjord/common/strings.h"
#include "fjord/options.h"

namespace fjord {

namespace {

std::string FieldKey(std::string_view field, std::string_view suffix) {
  std::string key = "fields.";
  key.append(field).append(".").append(suffix);
  return key;
}

}  // namespace

std::vector<std::string> SplitLikeJava(std::string_view text, char separator) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    size_t found = text.find(separator, begin);
    if (found == std::string_view::npos) {
      out.emplace_back(text.substr(begin));
      break;
    }
    out.emplace_back(text.substr(begin, found - begin));
    begin = found + 1;
  }
  // Java drops trailing empty strings, except that an empty input stays one empty piece.
  while (out.size() > 1 && out.back().empty()) out.pop_back();
  if (out.size() == 1 && out[0].empty() && !text.empty()) out.clear();
  return out;
}

int FindField(const std::vector<DataField>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<std::string> MergeOptions::Get(std::string_view key) const {
  auto it = options_.find(std::string(key));
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> MergeOptions::GetOrDefault(std::string_view key) const {
  if (std::optional<std::string> text = Get(key)) return text;
  const OptionDef* def = FindOptionDef(key);
  if (def == nullptr || !def->default_value) return std::nullopt;
  return std::string(*def->default_value);
}

std::string MergeOptions::GetString(std::string_view key) const {
  return GetOrDefault(key).value_or(std::string());
}

Result<bool> MergeOptions::GetBool(std::string_view key) const {
  std::optional<std::string> text = GetOrDefault(key);
  if (!text) return false;  // a deprecated alias without a default, not set
  Result<bool> parsed = ParseBoolean(*text);
  if (!parsed.ok()) return parsed.status().WithContext("option '", key, "'");
  return parsed;
}

Result<int32_t> MergeOptions::GetInt32(std::string_view key) const {
  std::string text = GetString(key);
  std::string_view t = Trim(text);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size() || t.empty() ||
      v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("option '", key, "': cannot parse '", text, "' as an INT");
  }
  return static_cast<int32_t>(v);
}

std::optional<std::string> MergeOptions::FieldOption(std::string_view field,
                                                     std::string_view suffix) const {
  return Get(FieldKey(field, suffix));
}

std::string MergeOptions::FieldString(std::string_view field, std::string_view suffix) const {
  return GetString(FieldKey(field, suffix));
}

Result<bool> MergeOptions::FieldBool(std::string_view field, std::string_view suffix) const {
  return GetBool(FieldKey(field, suffix));
}

Result<int32_t> MergeOptions::FieldInt32(std::string_view field, std::string_view suffix) const {
  return GetInt32(FieldKey(field, suffix));
}

Result<bool> MergeOptions::IgnoreDelete() const {
  for (std::string_view key : {"ignore-delete", "first-row.ignore-delete",
                               "deduplicate.ignore-delete", "partial-update.ignore-delete"}) {
    if (Get(key)) return GetBool(key);
  }
  return GetBool(kIgnoreDeleteOption);
}

std::vector<std::string> MergeOptions::SequenceFields() const {
  std::vector<std::string> out;
  std::optional<std::string> text = Get(kSequenceFieldOption);
  if (!text) return out;
  for (const std::string& piece : SplitLikeJava(*text, ',')) out.emplace_back(Trim(piece));
  return out;
}

}  // namespace fjord
