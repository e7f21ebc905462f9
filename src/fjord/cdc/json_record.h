// What the JSON CDC formats share, as Java Paimon's AbstractJsonRecordParser: reading a message,
// the "Invalid <format> format: missing '<field>' field." errors (here prefixed with the
// message's origin), the primary keys named by an array field, an update's before image merged
// over its after image, the all-STRING columns of a format without types, and the CdcFormat
// around a format's own decode function (MakeJsonCdcFormat).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/cdc_json.h"
#include "fjord/cdc/cdc_record.h"
#include "fjord/result.h"

namespace fjord::cdc {

class JsonRecordContext;

// The database and table a change is in.
struct JsonTableName {
  std::optional<std::string> database;
  std::optional<std::string> table;
};

// How a format turns one message `root` (not a tombstone) into its records, each appended to
// `records` by ctx.Add.
using JsonDecodeFn = Status (*)(const JsonRecordContext& ctx, const JsonNode& root,
                                std::vector<CdcRecord>* records);

// What makes one JSON format.
struct JsonFormatSpec {
  const char* name;        // as in the job file ("maxwell-json")
  const char* keys_field;  // the array member naming a message's primary keys; nullptr: none
  TypeMapping mapping;     // the type mapping options, for the formats that type their columns
  JsonDecodeFn decode;
};

// The CdcFormat of `spec`: it reads each message (a tombstone gives nothing) and appends the
// records spec.decode gives only when the whole message decodes, so a bad message adds nothing.
std::unique_ptr<CdcFormat> MakeJsonCdcFormat(JsonFormatSpec spec);

// One message of a format as its decode function sees it.
class JsonRecordContext {
 public:
  JsonRecordContext(const JsonFormatSpec& spec, const CdcMessage& message)
      : spec_(spec), message_(message) {}

  // The message's JSON; nullopt for a tombstone (no value, or the JSON value null).
  Result<std::optional<JsonNode>> Parse() const;

  // "<origin>: Invalid <format> format: <what>".
  Status Error(const std::string& what) const;
  // Java's getAndCheck: the field `key` of `root`, Invalid when it is missing or null.
  Result<const JsonNode*> Require(const JsonNode& root, std::string_view key) const;
  // The same, saying the field is needed when `cond_key` is `cond_value`.
  Result<const JsonNode*> Require(const JsonNode& root, std::string_view key,
                                  std::string_view cond_key, std::string_view cond_value) const;
  // Require's field as text (JsonNode.asText): the op of a change.
  Result<std::string> RequireText(const JsonNode& root, std::string_view key) const;
  // `node` as a row object (the data of a change); Invalid naming `field` otherwise.
  Result<const JsonNode*> RequireObject(const JsonNode* node, std::string_view field) const;
  // Require and RequireObject: the row object in the field `key` of `root`.
  Result<const JsonNode*> RequireRow(const JsonNode& root, std::string_view key) const;
  Result<const JsonNode*> RequireRow(const JsonNode& root, std::string_view key,
                                     std::string_view cond_key, std::string_view cond_value) const;
  // "unknown record operation '<op>'.", for an op the format does not know.
  Status UnknownOperation(const std::string& op) const;
  // The texts of the array field `key` of `root`; empty when it is missing or null.
  Result<std::vector<std::string>> PrimaryKeys(const JsonNode& root, std::string_view key) const;
  // Columns of `row`, all STRING, each value Objects.toString of the Java value (a JSON null is
  // the text "null", as Java's AbstractJsonRecordParser gives it), objects and arrays as compact
  // JSON.
  std::vector<CdcColumn> StringColumns(const JsonNode& row) const;
  // Appends to `records` the change `kind` of `columns` in `name`, with the primary keys that
  // `root` names in the format's keys field.
  Status Add(const JsonNode& root, const JsonTableName& name, ChangeKind kind,
             std::vector<CdcColumn> columns, std::vector<CdcRecord>* records) const;

  const char* format() const { return spec_.name; }
  const TypeMapping& mapping() const { return spec_.mapping; }
  const CdcMessage& message() const { return message_; }

 private:
  const JsonFormatSpec& spec_;
  const CdcMessage& message_;
};

// Java's default names of a change: the `database` and `table` members of the message.
JsonTableName MemberTableName(const JsonNode& root);

// Java's mergeOldRecord: a copy of `data` with every field of `old` set over it.
JsonNode MergeOldRecord(const JsonNode& data, const JsonNode& old);

// An update whose `old` holds previous values of changed fields (Maxwell's `old`, Canal's `old`
// rows, Debezium's `before`): `add` the delete of `old` merged over `row`, then the insert of
// `row`, as Java's parsers emit them. `add(const JsonNode& row, ChangeKind kind)` is the format's.
template <typename AddFn>
Status AddMergedUpdate(const JsonNode& row, const JsonNode& old, AddFn&& add) {
  FJORD_RETURN_NOT_OK(add(MergeOldRecord(row, old), ChangeKind::kDelete));
  return add(row, ChangeKind::kInsert);
}

// JsonNode.asText of `node` when it is present and not null.
std::optional<std::string> TextOrNull(const JsonNode* node);

}  // namespace fjord::cdc
