// A table schema version: the contents of schema/schema-N (spec/format.md §2).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord {

struct TableSchema {
  static constexpr int kCurrentVersion = 3;

  std::optional<int32_t> version;  // absent in the oldest files: treat as 1
  int64_t id = 0;
  std::vector<DataField> fields;
  int32_t highest_field_id = -1;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  // In file order; Java writes them in its map's order and we keep it.
  std::vector<std::pair<std::string, std::string>> options;
  std::optional<std::string> comment;
  std::optional<int64_t> time_millis;

  int32_t FormatVersion() const { return version.value_or(1); }
  // Options with the compatibility defaults of older schema versions applied: version <= 1 without
  // `bucket` means bucket=1; version <= 2 without `file.format` means orc.
  std::map<std::string, std::string> EffectiveOptions() const;
  std::optional<std::string> Option(const std::string& key) const;

  // Index of the column named `name`, or -1.
  int FieldIndex(const std::string& name) const;
  const DataField* FindField(const std::string& name) const;
  // Primary key columns that are not partition columns, in primary-key order.
  std::vector<std::string> TrimmedPrimaryKeys() const;
  // `bucket-key` if set, else the trimmed primary key; empty for append tables without it.
  std::vector<std::string> BucketKeys() const;
  std::vector<DataField> FieldsByName(const std::vector<std::string>& names) const;

  // Parses the JSON text of a schema file; `source` (the path) prefixes errors.
  static Result<TableSchema> FromJson(std::string_view text, std::string_view source);
  // The JSON text as Java writes it (Jackson pretty printer).
  std::string ToJson() const;
};

}  // namespace fjord
