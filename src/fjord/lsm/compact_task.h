// Executing one compaction unit of a primary-key bucket (behaviour.md §2.4): the unit's files are
// split into sections of overlapping key ranges; sections with several sorted runs and small
// files are merged and rewritten at the output level, big files of single-run sections are
// "upgraded" (their metadata moves to the output level, the file is kept). Retractions are
// dropped when `drop_delete` (the output is the highest level holding data).
//
// Tables that need lookup (but first-row) merge each key as Java's LookupMergeFunction does (see
// CompactContext::lookup_merge).
//
// First-row tables compact as Java's lookup rewriter does (behaviour.md §2.7, §3.4): when level-0
// files go to a level > 0 (rewritten, or a level-0 file upgraded below the max level, which is
// then rewritten), a key none of whose records comes from a level > 0 is dropped if a level above
// the output already holds it: readers of first-row tables skip level 0 and read levels >= 1
// without merging, so each key may live in one of them only. A retraction there is an error, or
// dropped with ignore-delete.
//
// changelog-producer = full-compaction (Java's FullChangelogMergeTreeCompactRewriter): a unit
// whose output level is the max level also writes changelog files (full_changelog.h): rewritten
// sections through the merge, where records of max-level files are the "before"; a file upgraded
// into the max level without rewriting gives +I for each of its records. Changelog files sit at
// the max level, with the file source of a writer's flush, named by `changelog_namer`.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/lsm/full_changelog.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/lookup_levels.h"
#include "fjord/lsm/universal_compaction.h"
#include "fjord/meta/manifest.h"

namespace fjord {

// Java's LookupMergeTreeCompactRewriter for tables whose merge needs lookup, but first-row
// (deletion vectors, changelog-producer = lookup, force-lookup): sections with level-0 files going
// to a level above 0, and level-0 files upgraded, merge through the lookup wrapper
// (kv_merge.h KvLookupMergeOptions), looking keys up in the levels above the output. A level-0
// file is upgraded as Java's upgrade strategy says: rewritten through the wrapper when deletion
// vectors are on and it may hold retractions, or when the merge engine can fold older values
// into it (not deduplicate without sequence.field) below the max level; else it moves up
// unchanged after a pass through the wrapper (changelog, deletion vectors). Files above level 0
// move up unchanged.
struct LookupCompaction {
  // The record of a key (KvLayout::KeyEncoder) in the lowest level >= start_level holding it.
  std::function<Result<std::optional<KvLookupHit>>(std::string_view key, int32_t start_level)>
      lookup;
  // Deletion vectors: the maintainer of the bucket's vectors.
  bool deletion_vectors = false;
  std::function<Status(const std::string& file_name, int64_t position)> on_deletion;
  std::function<void(const std::string& file_name)> on_rewritten;  // the file's vector goes
  // Writes the bucket's deletion-vector index file when the vectors changed.
  std::function<Result<std::optional<IndexFileMeta>>()> write_index;
  // changelog-producer = lookup, with its deduplication settings.
  bool produce_changelog = false;
  bool row_deduplicate = false;
  std::vector<int> compared_fields;
  // merge-engine = deduplicate without sequence.field: merging cannot change a level-0 record.
  bool deduplicate_without_sequence = false;
};

struct CompactResult {
  std::vector<DataFileMeta> before;
  std::vector<DataFileMeta> after;
  int64_t rewritten_bytes = 0;  // bytes of input files that were read and rewritten
  int64_t written_bytes = 0;
  int64_t upgraded_files = 0;
  std::vector<DataFileMeta> changelog;  // full-compaction or lookup changelog files written
  // Deletion vectors: the bucket's new index file, when the compaction changed its vectors.
  std::optional<IndexFileMeta> deletion_index;
  int64_t duration_millis = 0;
};

struct CompactContext {
  std::shared_ptr<FileIO> io;
  TableSchema schema;  // the schema new files are written in
  std::string bucket_dir;
  DataFileNamer* namer = nullptr;
  int32_t max_level = 5;
  // Files at least this big are upgraded instead of rewritten (70% of target-file-size).
  int64_t compaction_file_size = 0;
  // Reads the unit's files (in `schema`, files of older schemas evolved), from `bucket_dir`.
  KvFileReaderFactory* readers = nullptr;
  // First-row lookup compaction (see above): on for first-row tables; `lookup_levels` (payload
  // kExistence, SetFiles with the bucket's files at levels >= 1) answers which keys the levels
  // above the unit's output level hold.
  bool first_row_lookup = false;
  bool ignore_delete = false;
  // First-row with changelog-producer = lookup: the new keys of level-0 files going above level 0
  // are written as changelog (their records as they are), to files at the output level.
  bool first_row_changelog = false;
  LookupLevels* lookup_levels = nullptr;
  // Tables whose merge needs lookup, but first-row (LookupNeeds::merges_by_level): each key's
  // records are merged by Java's lookup rule (kv_merge.h run_levels), its level-0 records with
  // only the one of the lowest level above 0, as Java's LookupMergeFunction in its rewriters.
  bool lookup_merge = false;
  // changelog-producer = full-compaction (see above): the deduplication settings (max_level_runs
  // is filled per merge), and the namer of the changelog files.
  std::optional<FullChangelogOptions> full_changelog;
  DataFileNamer* changelog_namer = nullptr;  // also of lookup changelog files
  // Tables whose merge needs lookup, but first-row (see LookupCompaction); needs lookup_merge.
  std::optional<LookupCompaction> lookup;
  // The deletion vector of each file the unit reads (deletion-vector tables); may be empty.
  KvFileReaderFactory::DeletionOfFn deletion_of;
  // Whether the compaction's other threads have nothing left to do: its data files then encode
  // their row groups' columns at once (KvFileWriter::set_spare_threads). May be empty.
  std::function<bool()> spare_threads;
};

Result<CompactResult> RunCompaction(const CompactUnit& unit, bool drop_delete,
                                    const CompactContext& context);

}  // namespace fjord
