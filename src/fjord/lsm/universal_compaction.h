// Java Paimon's universal compaction picker (behaviour.md §2.2): chooses which sorted runs of a
// bucket to merge, and into which level, from their sizes and count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "fjord/lsm/levels.h"
#include "fjord/meta/core_options.h"

namespace fjord {

struct CompactUnit {
  int32_t output_level = 0;
  std::vector<DataFileMeta> files;
  // Each file is rewritten alone (Java's FileRewriteCompactTask: a full compaction of max-level
  // files only, to apply their deletion vectors).
  bool file_rewrite = false;
};

struct UniversalCompactionOptions {
  int32_t max_size_amplification_percent = 200;  // compaction.max-size-amplification-percent
  int32_t size_ratio = 1;                        // compaction.size-ratio
  int32_t compaction_trigger = 5;                // num-sorted-run.compaction-trigger
  int32_t stop_trigger = 8;                      // num-sorted-run.stop-trigger
  int32_t num_levels = 6;                        // num-levels
  // Off-peak hours [start, end) (wrapping over midnight; -1 or start == end: off): the size ratio
  // is raised by offpeak_ratio then (compaction.offpeak.start.hour, .end.hour, offpeak-ratio).
  int32_t offpeak_start_hour = -1;
  int32_t offpeak_end_hour = -1;
  int32_t offpeak_ratio = 0;
  // The local hour of day (0-23), as Java's LocalDateTime.now(); null = the system clock.
  std::function<int32_t()> hour_of_day;

  // The extra size ratio that applies now (Java's OffPeakHours#currentRatio).
  int32_t CurrentOffPeakRatio() const;

  // Invalid when num-sorted-run.compaction-trigger is below 1.
  static Result<UniversalCompactionOptions> FromOptions(const CoreOptions& options);
};

// The unit to compact now, or nullopt. `runs` as Levels::SortedRuns gives them (newest first);
// `max_level` is the highest level. Units the compaction manager would discard (KeepUnit) are
// nullopt.
std::optional<CompactUnit> PickUniversal(const std::vector<LevelSortedRun>& runs, int32_t max_level,
                                         const UniversalCompactionOptions& options);

// Java's UniversalCompaction#pick steps 1-3 without the manager's filter. `*took_all` (if given)
// is set when the unit holds every run: Java then records a full compaction (for
// compaction.optimization-interval).
std::optional<CompactUnit> PickUniversalUnfiltered(const std::vector<LevelSortedRun>& runs,
                                                   int32_t max_level,
                                                   const UniversalCompactionOptions& options,
                                                   bool* took_all = nullptr);

// Java's forcePickL0: every level-0 run, extended by the size-ratio rule, always picked when
// there is a level-0 run (behaviour.md §2.7).
std::optional<CompactUnit> ForcePickLevel0(const std::vector<LevelSortedRun>& runs,
                                           int32_t max_level,
                                           const UniversalCompactionOptions& options,
                                           bool* took_all = nullptr);

// The compaction manager's filter: a unit with no file, or a single file already at the output
// level, is not worth running.
bool KeepUnit(const CompactUnit& unit);

// Every run into the max level (full compaction); nullopt when there is nothing to do (no runs,
// or only the max level already).
std::optional<CompactUnit> PickFull(const std::vector<LevelSortedRun>& runs, int32_t max_level);

}  // namespace fjord
