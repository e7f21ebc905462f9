#include "fjord/table/write/compaction_metrics.h"

#include <algorithm>

namespace fjord {

void FillLevelMetrics(const Levels& levels, const UniversalCompactionOptions& options,
                      BucketCompactionMetrics* m) {
  m->level0_files = levels.Level0Count();
  m->sorted_runs = levels.NumberOfSortedRuns();
  m->files_per_level.clear();
  m->total_file_size = 0;
  for (const DataFileMeta& f : levels.AllFiles()) {
    m->files_per_level[f.level]++;
    m->total_file_size += f.file_size;
  }
  m->runs_above_trigger = std::max(0, m->sorted_runs - options.compaction_trigger);
  m->backlog_bytes = 0;
  m->backlog_files = 0;
  // The stateless universal picker: what would be compacted now if a compaction were triggered.
  if (auto unit = PickUniversal(levels.SortedRuns(), levels.MaxLevel(), options)) {
    for (const DataFileMeta& f : unit->files) m->backlog_bytes += f.file_size;
    m->backlog_files = static_cast<int32_t>(unit->files.size());
  }
}

void AddCompaction(const CompactResult& result, int32_t output_level, int32_t max_level,
                   BucketCompactionMetrics* m) {
  m->compactions++;
  if (output_level == max_level) m->full_compactions++;
  m->files_in += static_cast<int64_t>(result.before.size());
  m->files_out += static_cast<int64_t>(result.after.size());
  for (const DataFileMeta& f : result.before) m->bytes_in += f.file_size;
  for (const DataFileMeta& f : result.after) m->bytes_out += f.file_size;
  m->rewritten_bytes += result.rewritten_bytes;
  m->upgraded_files += result.upgraded_files;
  m->total_millis += result.duration_millis;
  m->last_millis = result.duration_millis;
}

}  // namespace fjord
