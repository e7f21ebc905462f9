// The JSON of change messages as Java Paimon's CDC formats see it: the message is read by Jackson
// with USE_BIG_DECIMAL_FOR_FLOATS (KafkaDebeziumJsonDeserializationSchema) and its values are then
// turned into Java objects (Integer, Long, BigInteger, normalized BigDecimal, String, Boolean,
// LinkedHashMap, ArrayList) whose toString or Jackson text becomes the column value. A number
// keeps the text Java gives it: an integer its digits, a fraction or exponent the BigDecimal
// that Jackson's node factory normalizes (trailing zeros stripped, zero as "0") printed by
// BigDecimal.toString ("1.5", "1E+3", "1E-7"): numbers are read from their text, never
// through a double.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/result.h"

namespace fjord::cdc {

struct JsonNode {
  enum class Kind { kNull, kBool, kInteger, kDecimal, kString, kObject, kArray };
  Kind kind = Kind::kNull;
  // kBool: "true"/"false"; kInteger/kDecimal: Java's text of the number; kString: the value.
  std::string text;
  std::vector<std::pair<std::string, JsonNode>> members;  // kObject, in the message's order
  std::vector<JsonNode> items;                            // kArray

  bool is_null() const { return kind == Kind::kNull; }
  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  // Jackson's JsonNode.get: the member `key` of an object, null when absent or not an object.
  const JsonNode* Get(std::string_view key) const;
  // ObjectNode.set: replaces the member in place, or appends it.
  void Set(const std::string& key, JsonNode value);
};

// Parses one message as Jackson's readValue does: the first JSON value, ignoring what follows
// it; a duplicate key replaces the earlier value in its place (as ObjectNode). The error says
// where the text is not JSON.
// simdjson's on-demand parser builds the node; any text it does not read is parsed again by
// ParseCdcJsonReference, which decides and words the error.
Result<JsonNode> ParseCdcJson(std::string_view text);
// The same by nlohmann's SAX parser: the definition ParseCdcJson is tested against.
Result<JsonNode> ParseCdcJsonReference(std::string_view text);

// JsonNode.asText(): a string's value, a number's or boolean's text, "null" for null and "" for
// objects and arrays.
std::string JsonAsText(const JsonNode& node);
// Objects.toString of the Java object Jackson converts the node to: maps as "{a=1, b=x}", lists
// as "[1, x]", null as "null".
std::string JavaObjectText(const JsonNode& node);
// Jackson's compact writeValueAsString of that object: {"a":1,"b":"x"}.
std::string JacksonCompactText(const JsonNode& node);

// BigDecimal(text) normalized as Jackson's node factory does, printed by BigDecimal.toString; the
// text must be a JSON or Java decimal number ("12.30" -> "12.3", "100.0" -> "1E+2").
std::string NormalizedDecimalText(std::string_view number);
// Whether `text` is what Java's new BigDecimal(String) accepts.
bool IsJavaBigDecimal(std::string_view text);

}  // namespace fjord::cdc
