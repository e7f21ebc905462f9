// Executing one compaction unit of a primary-key bucket (behaviour.md §2.4): the unit's files are
// split into sections of overlapping key ranges; sections with several sorted runs and small
// files are merged and rewritten at the output level, big files of single-run sections are
// "upgraded" (their metadata moves to the output level, the file is kept). Retractions are
// dropped when `drop_delete` (the output is the highest level holding data).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/universal_compaction.h"

namespace fjord {

struct CompactResult {
  std::vector<DataFileMeta> before;
  std::vector<DataFileMeta> after;
  int64_t rewritten_bytes = 0;  // bytes of input files that were read and rewritten
  int64_t written_bytes = 0;
  int64_t upgraded_files = 0;
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
  // Opens the given files of one sorted run (key order) as key-value batches of the schema's
  // KvLayout, files of older schemas evolved.
  std::function<Result<std::unique_ptr<KvRunReader>>(std::vector<DataFileMeta>)> open_run;
  // First-row tables (behaviour.md §3.4): the sorted runs above the output level. A key they hold
  // already has its first row, so a compaction below the max level drops level-0 records of such
  // keys and rewrites a level-0 file instead of upgrading it (Java: lookup through
  // FirstRowMergeFunctionWrapper and LookupMergeTreeCompactRewriter#upgradeStrategy). Without
  // this, a key would be read twice once it sits in two levels >= 1.
  bool first_row = false;
  std::vector<std::vector<DataFileMeta>> higher_runs;
};

Result<CompactResult> RunCompaction(const CompactUnit& unit, bool drop_delete,
                                    const CompactContext& context);

}  // namespace fjord
