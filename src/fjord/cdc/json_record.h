// What the JSON CDC formats share, as Java Paimon's AbstractJsonRecordParser: reading a message,
// the "Invalid <format> format: missing '<field>' field." errors (here prefixed with the
// message's origin), the primary keys named by an array field, an update's before image merged
// over its after image, the all-STRING columns of a format without types, and the frame of a
// format (JsonCdcFormat) that each format fills with its own ops, names and columns.
#pragma once

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

  const char* format() const { return format_; }
  const CdcMessage& message() const { return message_; }

 private:
  const char* format_;
  const CdcMessage& message_;
};

// The database and table a change is in.
struct JsonTableName {
  std::optional<std::string> database;
  std::optional<std::string> table;
};

// Java's default names of a change: the `database` and `table` members of the message.
JsonTableName MemberTableName(const JsonNode& root);

// A JSON CDC format: Decode reads the message (a tombstone gives nothing) and appends the
// records DecodeRoot gives only when the whole message decodes, so a bad message adds nothing.
// Each format's ops, names and columns are its own DecodeRoot's.
class JsonCdcFormat : public CdcFormat {
 public:
  const char* name() const final { return format_; }
  Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) final;

 protected:
  // `keys_field`: the array member of a message naming its primary keys; nullptr: none.
  // `mapping`: the type mapping options, for the formats that type their columns.
  JsonCdcFormat(const char* format, const char* keys_field, TypeMapping mapping = {})
      : format_(format), keys_field_(keys_field), mapping_(std::move(mapping)) {}

  const TypeMapping& mapping() const { return mapping_; }

  // The records of the message `root` (not a tombstone), each appended by Add.
  virtual Status DecodeRoot(const JsonRecordContext& ctx, const JsonNode& root,
                            std::vector<CdcRecord>* records) const = 0;

  // Appends the change `kind` of `columns` in `name`, with the primary keys `root` names.
  Status Add(const JsonRecordContext& ctx, const JsonNode& root, const JsonTableName& name,
             ChangeKind kind, std::vector<CdcColumn> columns,
             std::vector<CdcRecord>* records) const;

 private:
  const char* format_;
  const char* keys_field_;
  TypeMapping mapping_;
};

// Java's mergeOldRecord: a copy of `data` with every field of `old` set over it.
JsonNode MergeOldRecord(const JsonNode& data, const JsonNode& old);

// JsonNode.asText of `node` when it is present and not null.
std::optional<std::string> TextOrNull(const JsonNode* node);

}  // namespace fjord::cdc
