// Private to the merge engines (merge_function.cc, merge_partial_update.cc, merge_aggregate.cc,
// aggregators.cc): the option reading they share and the per-engine factories.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/lsm/merge_function.h"
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

// Read-only view of a table's effective options with Java's parsing rules. Absent options take
// Java's defaults, given by the caller.
class MergeOptions {
 public:
  explicit MergeOptions(const std::map<std::string, std::string>& options) : options_(options) {}

  std::optional<std::string> Get(std::string_view key) const;
  // Errors name the option and the bad value.
  Result<bool> GetBool(std::string_view key, bool fallback) const;
  Result<int32_t> GetInt32(std::string_view key, int32_t fallback) const;
  // `fields.<field>.<suffix>`.
  std::optional<std::string> FieldOption(std::string_view field, std::string_view suffix) const;
  Result<bool> FieldBool(std::string_view field, std::string_view suffix, bool fallback) const;

  // `ignore-delete`, else its deprecated aliases first-row.ignore-delete,
  // deduplicate.ignore-delete, partial-update.ignore-delete (the first one set wins).
  Result<bool> IgnoreDelete() const;
  // `sequence.field` split on ',' and trimmed.
  std::vector<std::string> SequenceFields() const;

  const std::map<std::string, std::string>& all() const { return options_; }

 private:
  const std::map<std::string, std::string>& options_;
};

// Java's String.split(","): pieces between separators, trailing empty pieces dropped (so "" gives
// one empty piece, "a,b," gives two).
std::vector<std::string> SplitLikeJava(std::string_view text, char separator);
std::string TrimCopy(std::string_view text);

// Index of the column named `name`, or -1.
int FindField(const std::vector<DataField>& fields, std::string_view name);

Result<std::unique_ptr<MergeFunction>> CreatePartialUpdateMergeFunction(
    const MergeContext& context);
Result<std::unique_ptr<MergeFunction>> CreateAggregateMergeFunction(const MergeContext& context);

}  // namespace fjord
