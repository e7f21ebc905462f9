// JSON helpers shared by the metadata files: parsing with errors that name the file and field,
// typed field access, and a printer that lays JSON out the way Java Paimon (Jackson's default
// pretty printer) does, so that files Fjord writes look like Java's.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fjord/result.h"

namespace fjord {

// Keeps object keys in insertion order, as Java's LinkedHashMap-backed JSON does.
using Json = nlohmann::ordered_json;

// Parses `text`; `source` (usually a file path) prefixes any error.
Result<Json> ParseJson(std::string_view text, std::string_view source);

// Jackson's DefaultPrettyPrinter layout: objects one key per line with 2-space indent and " : ",
// arrays inline "[ a, b ]", empty containers "{ }" / "[ ]". No trailing newline.
std::string ToJacksonPretty(const Json& value);
// One line, no spaces.
std::string ToCompactJson(const Json& value);

// Typed access to object fields. `source` names the file; errors say which field is wrong.
Result<int64_t> JsonGetInt(const Json& obj, std::string_view key, std::string_view source);
Result<std::optional<int64_t>> JsonGetOptionalInt(const Json& obj, std::string_view key,
                                                  std::string_view source);
Result<std::string> JsonGetString(const Json& obj, std::string_view key, std::string_view source);
Result<std::optional<std::string>> JsonGetOptionalString(const Json& obj, std::string_view key,
                                                         std::string_view source);
// Appends `s` as a JSON string literal (quotes included) escaped as Jackson does.
void AppendJsonString(std::string* out, std::string_view s);

}  // namespace fjord
