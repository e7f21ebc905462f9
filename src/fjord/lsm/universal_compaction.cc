#include "fjord/lsm/universal_compaction.h"

#include <ctime>

namespace fjord {

namespace {

// The unit of the first `count` runs (behaviour.md §2.2 createUnit): into the max level when it
// takes every run, else one level above the next run, absorbing level-0 runs until the output
// level is not 0.
CompactUnit CreateUnit(const std::vector<LevelSortedRun>& runs, int32_t max_level, size_t count,
                       bool* took_all) {
  int32_t output_level;
  if (count == runs.size()) {
    output_level = max_level;
  } else {
    output_level = std::max(0, runs[count].level - 1);
  }
  if (output_level == 0) {
    // Level 0 is not an output: keep taking runs until one above level 0 is taken.
    for (; count < runs.size(); ++count) {
      const LevelSortedRun& next = runs[count];
      if (next.level != 0) {
        output_level = next.level;
        ++count;
        break;
      }
    }
  }
  if (count == runs.size()) {
    output_level = max_level;
    if (took_all) *took_all = true;
  }
  CompactUnit unit{output_level, {}};
  for (size_t i = 0; i < count; ++i) {
    unit.files.insert(unit.files.end(), runs[i].files.begin(), runs[i].files.end());
  }
  return unit;
}

std::optional<CompactUnit> PickForSizeAmp(const std::vector<LevelSortedRun>& runs,
                                          int32_t max_level, const UniversalCompactionOptions& o,
                                          bool* took_all) {
  if (static_cast<int32_t>(runs.size()) < o.compaction_trigger) return std::nullopt;
  int64_t candidate = 0;
  for (size_t i = 0; i + 1 < runs.size(); ++i) candidate += runs[i].TotalSize();
  int64_t earliest = runs.back().TotalSize();
  if (candidate * 100 > static_cast<int64_t>(o.max_size_amplification_percent) * earliest) {
    return CreateUnit(runs, max_level, runs.size(), took_all);
  }
  return std::nullopt;
}

std::optional<CompactUnit> PickForSizeRatio(const std::vector<LevelSortedRun>& runs,
                                            int32_t max_level, const UniversalCompactionOptions& o,
                                            size_t candidate_count, bool force_pick,
                                            bool* took_all) {
  int64_t candidate = 0;
  for (size_t i = 0; i < candidate_count; ++i) candidate += runs[i].TotalSize();
  const int32_t ratio = o.size_ratio + o.CurrentOffPeakRatio();
  size_t i = candidate_count;
  for (; i < runs.size(); ++i) {
    const int64_t next = runs[i].TotalSize();
    if (static_cast<double>(candidate) * (100.0 + ratio) / 100.0 < static_cast<double>(next)) {
      break;
    }
    candidate += next;
  }
  if (force_pick || i > 1) return CreateUnit(runs, max_level, i, took_all);
  return std::nullopt;
}

}  // namespace

int32_t UniversalCompactionOptions::CurrentOffPeakRatio() const {
  if (offpeak_start_hour == -1 || offpeak_end_hour == -1 ||
      offpeak_start_hour == offpeak_end_hour) {
    return 0;
  }
  int32_t hour;
  if (hour_of_day) {
    hour = hour_of_day();
  } else {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    hour = local.tm_hour;
  }
  bool off_peak = offpeak_start_hour <= offpeak_end_hour
                      ? offpeak_start_hour <= hour && hour < offpeak_end_hour
                      : hour < offpeak_end_hour || offpeak_start_hour <= hour;
  return off_peak ? offpeak_ratio : 0;
}

Result<UniversalCompactionOptions> UniversalCompactionOptions::FromOptions(
    const CoreOptions& options) {
  UniversalCompactionOptions o;
  o.max_size_amplification_percent = options.compaction_max_size_amplification_percent();
  o.size_ratio = options.compaction_size_ratio();
  o.compaction_trigger = options.num_sorted_run_compaction_trigger();
  o.stop_trigger = std::max(options.num_sorted_run_stop_trigger(), o.compaction_trigger);
  o.num_levels = options.num_levels();
  o.offpeak_start_hour = options.compaction_offpeak_start_hour();
  o.offpeak_end_hour = options.compaction_offpeak_end_hour();
  o.offpeak_ratio = options.compaction_offpeak_ratio();
  if (o.compaction_trigger < 1) {
    return Status::Invalid("option 'num-sorted-run.compaction-trigger' must be >= 1");
  }
  o.num_levels = std::max(o.num_levels, 2);
  return o;
}

std::optional<CompactUnit> PickUniversalUnfiltered(const std::vector<LevelSortedRun>& runs,
                                                   int32_t max_level,
                                                   const UniversalCompactionOptions& options,
                                                   bool* took_all) {
  if (took_all) *took_all = false;
  if (runs.empty()) return std::nullopt;
  if (auto unit = PickForSizeAmp(runs, max_level, options, took_all)) return unit;
  if (static_cast<int32_t>(runs.size()) >= options.compaction_trigger) {
    if (auto unit = PickForSizeRatio(runs, max_level, options, 1, false, took_all)) return unit;
  }
  if (static_cast<int32_t>(runs.size()) > options.compaction_trigger) {
    size_t count = runs.size() - static_cast<size_t>(options.compaction_trigger) + 1;
    return PickForSizeRatio(runs, max_level, options, count, true, took_all);
  }
  return std::nullopt;
}

std::optional<CompactUnit> ForcePickLevel0(const std::vector<LevelSortedRun>& runs,
                                           int32_t max_level,
                                           const UniversalCompactionOptions& options,
                                           bool* took_all) {
  if (took_all) *took_all = false;
  size_t level0 = 0;
  while (level0 < runs.size() && runs[level0].level == 0) ++level0;
  if (level0 == 0) return std::nullopt;
  return PickForSizeRatio(runs, max_level, options, level0, true, took_all);
}

bool KeepUnit(const CompactUnit& unit) {
  if (unit.files.empty()) return false;
  return unit.files.size() > 1 || unit.files[0].level != unit.output_level;
}

std::optional<CompactUnit> PickUniversal(const std::vector<LevelSortedRun>& runs, int32_t max_level,
                                         const UniversalCompactionOptions& options) {
  std::optional<CompactUnit> unit = PickUniversalUnfiltered(runs, max_level, options);
  if (unit && !KeepUnit(*unit)) return std::nullopt;
  return unit;
}

std::optional<CompactUnit> PickFull(const std::vector<LevelSortedRun>& runs, int32_t max_level) {
  if (runs.empty()) return std::nullopt;
  if (runs.size() == 1 && runs[0].level == max_level) return std::nullopt;
  CompactUnit unit{max_level, {}};
  for (const LevelSortedRun& r : runs)
    unit.files.insert(unit.files.end(), r.files.begin(), r.files.end());
  return unit;
}

}  // namespace fjord
