#include "fjord/common/json.h"

namespace fjord {

namespace {

void AppendIndent(std::string* out, int level) { out->append(static_cast<size_t>(level) * 2, ' '); }

void PrettyInto(const Json& v, int level, std::string* out) {
  if (v.is_object()) {
    if (v.empty()) {
      out->append("{ }");
      return;
    }
    out->append("{");
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out->append(first ? "\n" : ",\n");
      first = false;
      AppendIndent(out, level + 1);
      AppendJsonString(out, it.key());
      out->append(" : ");
      PrettyInto(it.value(), level + 1, out);
    }
    out->append("\n");
    AppendIndent(out, level);
    out->append("}");
  } else if (v.is_array()) {
    if (v.empty()) {
      out->append("[ ]");
      return;
    }
    // Jackson's inline array indenter does not add a nesting level.
    out->append("[ ");
    bool first = true;
    for (const Json& e : v) {
      if (!first) out->append(", ");
      first = false;
      PrettyInto(e, level, out);
    }
    out->append(" ]");
  } else if (v.is_string()) {
    AppendJsonString(out, v.get_ref<const std::string&>());
  } else {
    out->append(v.dump());
  }
}

std::string Where(std::string_view source, std::string_view key) {
  return std::string(source) + ": field '" + std::string(key) + "'";
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  out->push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

Result<Json> ParseJson(std::string_view text, std::string_view source) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Parse again to learn where it failed; the callback-free non-throwing API gives no position.
    try {
      Json again = Json::parse(text.begin(), text.end());
      (void)again;
    } catch (const Json::exception& e) {
      // parse_error, but also out_of_range (a number too large for a double, e.g. 1e400).
      return Status::Corruption(source, ": invalid JSON: ", e.what());
    }
    return Status::Corruption(source, ": invalid JSON");
  }
  return j;
}

std::string ToJacksonPretty(const Json& value) {
  std::string out;
  PrettyInto(value, 0, &out);
  return out;
}

std::string ToCompactJson(const Json& value) { return value.dump(); }

Result<int64_t> JsonGetInt(const Json& obj, std::string_view key, std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, JsonGetOptionalInt(obj, key, source));
  if (!v) return Status::Corruption(Where(source, key), " is missing");
  return *v;
}

Result<std::optional<int64_t>> JsonGetOptionalInt(const Json& obj, std::string_view key,
                                                  std::string_view source) {
  if (!obj.is_object()) return Status::Corruption(source, ": expected a JSON object");
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<int64_t>();
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return Status::Corruption(Where(source, key), " is out of the 64-bit range");
  }
  if (it->is_number_integer()) return std::optional<int64_t>(it->get<int64_t>());
  return Status::Corruption(Where(source, key), " must be an integer, got ", it->type_name());
}

Result<std::string> JsonGetString(const Json& obj, std::string_view key, std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(std::optional<std::string> v, JsonGetOptionalString(obj, key, source));
  if (!v) return Status::Corruption(Where(source, key), " is missing");
  return *v;
}

Result<std::optional<std::string>> JsonGetOptionalString(const Json& obj, std::string_view key,
                                                         std::string_view source) {
  if (!obj.is_object()) return Status::Corruption(source, ": expected a JSON object");
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get<std::string>());
  return Status::Corruption(Where(source, key), " must be a string, got ", it->type_name());
}

}  // namespace fjord
