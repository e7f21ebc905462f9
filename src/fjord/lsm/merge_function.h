// Merge functions: how the records of one primary key, fed in merge order (key, then user
// sequence fields, then system sequence number, ascending), become one result (behaviour.md §3.4).
// Used by merge-on-read, by the write buffer and by compaction. This header is the interface every
// engine implements; the factory that knows the engines is merge_engine.h.
//
// Contract: Reset(), then Add() for each record of one key in order, then GetResult(). A key with
// a single record is passed through by callers without calling the function (Java does the same,
// so a lone retract record stays a retract and a lone aggregation row is not re-aggregated).
// Not thread-safe; one instance per reader.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

enum class RowKind : int8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };

inline bool IsRetract(RowKind kind) {
  return kind == RowKind::kUpdateBefore || kind == RowKind::kDelete;
}
// "+I", "-U", "+U", "-D".
std::string_view RowKindShortString(RowKind kind);
// Inverse of RowKindShortString; also accepts Java's enum names (INSERT, UPDATE_BEFORE,
// UPDATE_AFTER, DELETE) in any case. Anything else is Invalid.
Result<RowKind> ParseRowKind(std::string_view text);

struct MergeRecord {
  RowKind kind = RowKind::kInsert;
  int64_t sequence_number = 0;
  std::vector<Value> row;  // all table columns, in schema order
};

class MergeFunction {
 public:
  virtual ~MergeFunction() = default;
  virtual void Reset() = 0;
  // Errors (e.g. a retract the engine cannot handle) name the column and the option to set.
  virtual Status Add(const MergeRecord& record) = 0;
  // The merged record, or nullopt when the key has no result (e.g. first-row saw only ignored
  // retracts). A result whose kind is a retract is dropped by readers.
  virtual Result<std::optional<MergeRecord>> GetResult() = 0;
};

// Table facts a merge function needs. `options` are the table's effective options.
struct MergeContext {
  std::vector<DataField> fields;          // table columns
  std::vector<std::string> primary_keys;  // full primary key
  std::map<std::string, std::string> options;
};

}  // namespace fjord
