// The option reading the merge engines share (merge_deduplicate.cc, merge_partial_update.cc,
// merge_aggregate.cc, aggregators.cc): the engines' option names and a view of a table's effective
// options with Java's parsing rules. Engine-independent; it knows no engine.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord {

// Option names of the merge engines (spec/behaviour.md §3.4). Java: CoreOptions.
inline constexpr std::string_view kMergeEngineOption = "merge-engine";
inline constexpr std::string_view kIgnoreDeleteOption = "ignore-delete";
inline constexpr std::string_view kSequenceFieldOption = "sequence.field";
inline constexpr std::string_view kAggregationRemoveRecordOnDelete =
    "aggregation.remove-record-on-delete";
inline constexpr std::string_view kPartialUpdateRemoveRecordOnDelete =
    "partial-update.remove-record-on-delete";
inline constexpr std::string_view kPartialUpdateRemoveRecordOnSequenceGroup =
    "partial-update.remove-record-on-sequence-group";
inline constexpr std::string_view kDefaultAggregateFunction = "fields.default-aggregate-function";

// Read-only view of a table's effective options. An absent option takes the option registry's
// default (fjord/options.h); errors name the option and the bad value.
class MergeOptions {
 public:
  explicit MergeOptions(const std::map<std::string, std::string>& options) : options_(options) {}

  // The value set in the table, or nullopt.
  std::optional<std::string> Get(std::string_view key) const;
  // The value set, else the registry's default, else "".
  std::string GetString(std::string_view key) const;
  Result<bool> GetBool(std::string_view key) const;
  Result<int32_t> GetInt32(std::string_view key) const;
  // `fields.<field>.<suffix>`: set, or with the registry's default of `fields.#.<suffix>`.
  std::optional<std::string> FieldOption(std::string_view field, std::string_view suffix) const;
  std::string FieldString(std::string_view field, std::string_view suffix) const;
  Result<bool> FieldBool(std::string_view field, std::string_view suffix) const;
  Result<int32_t> FieldInt32(std::string_view field, std::string_view suffix) const;

  // `ignore-delete`, else its deprecated aliases first-row.ignore-delete,
  // deduplicate.ignore-delete, partial-update.ignore-delete (the first one set wins).
  Result<bool> IgnoreDelete() const;
  // `sequence.field` split on ',' and trimmed.
  std::vector<std::string> SequenceFields() const;

  const std::map<std::string, std::string>& all() const { return options_; }

 private:
  std::optional<std::string> GetOrDefault(std::string_view key) const;

  const std::map<std::string, std::string>& options_;
};

// Java's String.split(","): pieces between separators, trailing empty pieces dropped (so "" gives
// one empty piece, "a,b," gives two).
std::vector<std::string> SplitLikeJava(std::string_view text, char separator);

// Index of the column named `name`, or -1.
int FindField(const std::vector<DataField>& fields, std::string_view name);

}  // namespace fjord
