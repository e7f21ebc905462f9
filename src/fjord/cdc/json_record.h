// What the JSON CDC formats share, as Java Paimon's AbstractJsonRecordParser: reading a message,
// the "Invalid <format> format: missing '<field>' field." errors (here prefixed with the
// message's origin), the primary keys named by an array field, an update's before image merged
// over its after image, and the all-STRING columns of a format without types.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/cdc/cdc_json.h"
#include "fjord/cdc/cdc_record.h"
#include "fjord/result.h"

namespace fjord::cdc {

class JsonRecordContext {
 public:
  JsonRecordContext(const char* format, const CdcMessage& message)
      : format_(format), message_(message) {}

  // The message's JSON; nullopt for a tombstone (no value, or the JSON value null).
  Result<std::optional<JsonNode>> Parse() const;

  // "<origin>: Invalid <format> format: <what>".
  Status Error(const std::string& what) const;
  // Java's getAndCheck: the field `key` of `root`, Invalid when it is missing or null.
  Result<const JsonNode*> Require(const JsonNode& root, std::string_view key) const;
  // The same, saying the field is needed when `cond_key` is `cond_value`.
  Result<const JsonNode*> Require(const JsonNode& root, std::string_view key,
                                  std::string_view cond_key, std::string_view cond_value) const;
  // `node` as a row object (the data of a change); Invalid naming `field` otherwise.
  Result<const JsonNode*> RequireObject(const JsonNode* node, std::string_view field) const;
  // The texts of the array field `key` of `root`; empty when it is missing or null.
  Result<std::vector<std::string>> PrimaryKeys(const JsonNode& root, std::string_view key) const;
  // Columns of `row`, all STRING, each value Objects.toString of the Java value (a JSON null is
  // the text "null", as Java's AbstractJsonRecordParser gives it), objects and arrays as compact
  // JSON.
  std::vector<CdcColumn> StringColumns(const JsonNode& row) const;

  const char* format() const { return format_; }
  const CdcMessage& message() const { return message_; }

 private:
  const char* format_;
  const CdcMessage& message_;
};

// Java's mergeOldRecord: a copy of `data` with every field of `old` set over it.
JsonNode MergeOldRecord(const JsonNode& data, const JsonNode& old);

// JsonNode.asText of `node` when it is present and not null.
std::optional<std::string> TextOrNull(const JsonNode* node);

}  // namespace fjord::cdc
