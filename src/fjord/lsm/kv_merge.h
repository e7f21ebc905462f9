// K-way merge of sorted runs of key-value records (behaviour.md §3): records come out in key
// order; the records of one key, in (sequence fields, _SEQUENCE_NUMBER) order, are combined by
// the table's merge function. A key with a single record passes through unchanged (Java's rule).
// Used by merge-on-read, the write-buffer flush and compaction.
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/lsm/full_changelog.h"
#include "fjord/lsm/key_value.h"
#include "fjord/lsm/merge_function.h"

namespace fjord {

// One sorted run: batches in the KvLayout schema, ascending by (key, order). A run may repeat a
// key (a spilled write buffer does; data files do not).
class KvRunReader {
 public:
  virtual ~KvRunReader() = default;
  // The next batch, or nullptr at the end. Batches may be empty.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
  // Whether the records not yet returned are all in memory, so that reading them to the end
  // costs no decoding (KvMergeReader::SplitOff).
  virtual bool RestInMemory() const { return false; }
};

// A run over batches already in memory.
std::unique_ptr<KvRunReader> MakeBatchRunReader(
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches);

// A record the levels above a lookup compaction's output hold for a key (lookup_levels.h).
struct KvLookupHit {
  std::string file_name;
  int64_t position = -1;  // row position in that data file; -1 when not known
  // One row in the KvLayout schema, or null when the lookup gives positions only.
  std::shared_ptr<arrow::RecordBatch> record;
};

// Java's LookupChangelogMergeFunctionWrapper, for the lookup compaction of a table whose merge
// needs lookup (but first-row): a unit with level-0 files going to a level above 0. Every key goes
// through the merge function (none passes through alone). A key none of whose records comes from
// a level above 0 is looked up in the levels above the output: with deletion vectors the hit's row
// is marked deleted (`on_deletion`), and the hit's record, when there is one, joins the key's
// records in sequence order. The key's "before" is its record of the lowest level above 0 (of the
// unit, or the hit). With `produce_changelog`, a key with a level-0 record emits its changes
// (TakeChangelog): +I(after) when the before is missing or a retraction and the after an add;
// -D(before) when the before is an add and the after not; else -U(before) +U(after), unless
// `row_deduplicate` and the two are equal on `compared_fields`. Needs run_levels.
struct KvLookupMergeOptions {
  std::function<Result<std::optional<KvLookupHit>>(std::string_view key)> lookup;
  std::function<Status(const KvLookupHit&)> on_deletion;  // deletion vectors; may be empty
  bool produce_changelog = false;
  bool row_deduplicate = false;
  std::vector<int> compared_fields;
};

struct KvMergeOptions {
  // Drop results whose kind is -U/-D (readers do; flushes keep them so they shadow older files).
  bool drop_retracts = false;
  // A run never repeats a key (data files): a lone run then passes through without merging.
  bool runs_have_unique_keys = false;
  // Output every record in merge order without combining keys (merging spilled runs).
  bool keep_all_records = false;
  // Rows per output batch (a batch that passes through whole may be larger).
  int64_t batch_rows = 4096;
  // The output batches' buffers, when copied (null: Arrow's default pool).
  arrow::MemoryPool* pool = nullptr;
  // The changelog of a full compaction (full_changelog.h): each key's changelog records are
  // produced beside its result, handed out by TakeChangelog. Not with keep_all_records.
  std::optional<FullChangelogOptions> full_changelog;
  // Tables whose merge needs lookup (changelog-producer = lookup, deletion vectors, force-lookup;
  // not first-row, which Java does not wrap): the level of each run, for reads and compactions.
  // For a key, of the records above level 0 only the one of the lowest level is merged with the
  // level-0 records (Java's LookupMergeFunction: a lookup compaction wrote that record already
  // merged with the older levels). A key of several records still goes through the merge
  // function when one is left. The full-compaction changelog sees every record. Empty: every
  // record is merged.
  std::vector<int32_t> run_levels;
  // The lookup compaction's merge (see KvLookupMergeOptions). Not with full_changelog or
  // keep_all_records.
  std::optional<KvLookupMergeOptions> lookup;
};

class KvMergeReader {
 public:
  // `merge` is the table's merge function, or nullptr for "the last record wins" (deduplicate
  // without ignore-delete), which needs no per-record values.
  static Result<std::unique_ptr<KvMergeReader>> Make(const KvLayout& layout,
                                                     std::unique_ptr<MergeFunction> merge,
                                                     std::vector<std::unique_ptr<KvRunReader>> runs,
                                                     KvMergeOptions options = {});
  ~KvMergeReader();

  // The next batch of merged records in the KvLayout schema, or nullptr at the end. With
  // full_changelog a batch may be empty while its changelog is not.
  Result<std::shared_ptr<arrow::RecordBatch>> Next();
  // With full_changelog or a lookup changelog: the changelog records of the keys of the last
  // batch Next returned, in key order (-U before +U), in the KvLayout schema; nullptr when there
  // are none.
  std::shared_ptr<arrow::RecordBatch> TakeChangelog();

  // Hands the upper part of the keys not yet merged to a new reader and keeps the lower part:
  // the two readers' batches, this one's first, are the batches this one would have given.
  // Called between calls to Next; `merge` is a fresh instance of the merge function (nullptr as
  // for Make). Returns nullptr, changing nothing that Next gives, when it cannot: a run whose
  // rest is not in memory (KvRunReader::RestInMemory), fewer than `min_rows` records left, a
  // lone run passed through, or a changelog, lookup or unmerged merge. The split key is the
  // middle one of the run with the most records left.
  Result<std::unique_ptr<KvMergeReader>> SplitOff(std::unique_ptr<MergeFunction> merge,
                                                  int64_t min_rows);

  // Records read from the runs so far, and records produced.
  int64_t records_in() const;
  int64_t records_out() const;

  class Impl;

 private:
  explicit KvMergeReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The merge function of a table for the key-value layer: nullptr when the table deduplicates
// without ignore-delete (the last record wins), else CreateMergeFunction's.
Result<std::unique_ptr<MergeFunction>> CreateKvMergeFunction(const TableSchema& schema);

// Selects the rows of `batch` at `indices` (Take), as one batch, its buffers from `pool` (null:
// Arrow's default pool).
Result<std::shared_ptr<arrow::RecordBatch>> TakeRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<int64_t>& indices,
    arrow::MemoryPool* pool = nullptr);

}  // namespace fjord
