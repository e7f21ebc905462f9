// The changelog of a full compaction (changelog-producer = full-compaction), as Java Paimon's
// FullChangelogMergeFunctionWrapper decides it for each key of a compaction into the max level:
// the record the max level held for the key is the "before", the merged result of all the key's
// records is the "after" (behaviour.md §4).
//
//   - the key's only record is the max-level one: nothing (unchanged);
//   - a single other record: +I of it when it is an add, else nothing;
//   - several records, none from the max level: +I of the result when it is an add;
//   - several records with a max-level one: -D(before) when the result is a retraction (or there
//     is none), else -U(before) +U(after), unless `row_deduplicate` and the two are equal on
//     every field but the ignored ones.
//
// -U and -D carry the before's sequence number, +I and +U the after's. The merge reader applies
// this to each key (kv_merge.h, KvMergeOptions::full_changelog).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/lsm/merge_function.h"
#include "fjord/meta/core_options.h"
#include "fjord/schema.h"

namespace fjord {

struct FullChangelogOptions {
  // Per run of the merge: its records come from the max level (each key at most once over them).
  std::vector<bool> max_level_runs;
  // changelog-producer.row-deduplicate: equal -U/+U pairs are not emitted.
  bool row_deduplicate = false;
  // The table columns compared (all but row-deduplicate-ignore-fields), indices into the fields.
  std::vector<int> compared_fields;

  // The deduplication settings of `schema` (max_level_runs left empty). Ignore-fields naming no
  // column are ignored, as in Java.
  static FullChangelogOptions FromOptions(const TableSchema& schema, const CoreOptions& options);
};

enum class FullChangelogEmit : unsigned char {
  kNothing,
  kInsertAfter,   // +I(after)
  kDeleteBefore,  // -D(before)
  kUpdate,        // -U(before) +U(after), unless deduplicated (RowsEqualOn)
};

// What one key emits: `has_before` when one of its `records` came from the max level; `after`
// the kind of the merged result (for a single record: the record's own kind), nullopt when the
// merge gave none.
FullChangelogEmit DecideFullChangelog(bool has_before, size_t records,
                                      std::optional<RowKind> after);

// Java's generated RecordEqualiser on the listed fields: NULLs equal each other, numbers by value
// (NaN differs from itself, -0.0 equals 0.0), everything else by value.
bool RowsEqualOn(const std::vector<Value>& a, const std::vector<Value>& b,
                 const std::vector<int>& fields);

}  // namespace fjord
