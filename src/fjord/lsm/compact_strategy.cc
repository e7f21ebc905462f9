#include "fjord/lsm/compact_strategy.h"

#include <chrono>
#include <utility>

namespace fjord {

namespace {

CompactUnit AllRuns(const std::vector<LevelSortedRun>& runs, int32_t max_level) {
  CompactUnit unit{max_level, {}};
  for (const LevelSortedRun& r : runs) {
    unit.files.insert(unit.files.end(), r.files.begin(), r.files.end());
  }
  return unit;
}

Result<bool> BoolOption(const Options& options, const char* key, bool fallback) {
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> v, options.GetBool(key));
  return v.value_or(fallback);
}

}  // namespace

Result<LookupNeeds> LookupNeeds::FromOptions(const Options& options) {
  LookupNeeds n;
  n.first_row = options.GetOr("merge-engine", "deduplicate") == "first-row";
  n.produce_changelog = options.GetOr("changelog-producer", "none") == "lookup";
  FJORD_ASSIGN_OR_RAISE(n.deletion_vectors, BoolOption(options, "deletion-vectors.enabled", false));
  FJORD_ASSIGN_OR_RAISE(n.force_lookup, BoolOption(options, "force-lookup", false));
  return n;
}

Result<CompactStrategyOptions> CompactStrategyOptions::FromOptions(const Options& options) {
  CompactStrategyOptions o;
  FJORD_ASSIGN_OR_RAISE(o.universal, UniversalCompactionOptions::FromOptions(options));
  FJORD_ASSIGN_OR_RAISE(o.optimization_interval_millis,
                        options.GetDurationMillis("compaction.optimization-interval"));
  FJORD_ASSIGN_OR_RAISE(o.total_size_threshold,
                        options.GetMemorySize("compaction.total-size-threshold"));
  FJORD_ASSIGN_OR_RAISE(o.incremental_size_threshold,
                        options.GetMemorySize("compaction.incremental-size-threshold"));
  FJORD_ASSIGN_OR_RAISE(LookupNeeds lookup, LookupNeeds::FromOptions(options));
  if (lookup.needed()) {
    o.force_up_level0 = true;
    std::string mode = options.GetOr("lookup-compact", "radical");
    if (mode == "gentle") {
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> interval,
                            options.GetInt("lookup-compact.max-interval"));
      int64_t trigger = o.universal.compaction_trigger;
      o.force_interval = static_cast<int32_t>(std::max(trigger, interval.value_or(2 * trigger)));
    } else if (mode != "radical") {
      return Status::Invalid("option 'lookup-compact' must be radical or gentle, got '", mode, "'");
    }
  } else {
    FJORD_ASSIGN_OR_RAISE(o.force_up_level0,
                          BoolOption(options, "compaction.force-up-level-0", false));
  }
  return o;
}

CompactStrategy::CompactStrategy(CompactStrategyOptions options, Clock clock)
    : options_(std::move(options)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

bool CompactStrategy::has_early_full() const {
  return options_.optimization_interval_millis || options_.total_size_threshold ||
         options_.incremental_size_threshold;
}

void CompactStrategy::RecordFull() {
  if (has_early_full()) last_full_millis_ = clock_();
}

std::optional<CompactUnit> CompactStrategy::TryEarlyFull(const std::vector<LevelSortedRun>& runs,
                                                         int32_t max_level) {
  if (runs.size() == 1) return std::nullopt;
  if (options_.optimization_interval_millis) {
    if (!last_full_millis_ ||
        clock_() - *last_full_millis_ > *options_.optimization_interval_millis) {
      RecordFull();
      return AllRuns(runs, max_level);
    }
  }
  if (options_.total_size_threshold) {
    int64_t total = 0;
    for (const LevelSortedRun& r : runs) total += r.TotalSize();
    if (total < *options_.total_size_threshold) {
      RecordFull();
      return AllRuns(runs, max_level);
    }
  }
  if (options_.incremental_size_threshold) {
    int64_t incremental = 0;
    for (const LevelSortedRun& r : runs) {
      if (r.level != max_level) incremental += r.TotalSize();
    }
    if (incremental > *options_.incremental_size_threshold) {
      RecordFull();
      return AllRuns(runs, max_level);
    }
  }
  return std::nullopt;
}

std::optional<CompactUnit> CompactStrategy::PickUnfiltered(const std::vector<LevelSortedRun>& runs,
                                                           int32_t max_level) {
  if (has_early_full()) {
    if (auto unit = TryEarlyFull(runs, max_level)) return unit;
  }
  bool took_all = false;
  std::optional<CompactUnit> unit =
      PickUniversalUnfiltered(runs, max_level, options_.universal, &took_all);
  if (took_all) RecordFull();
  if (unit || !options_.force_up_level0) return unit;
  if (options_.force_interval) {
    // Gentle: only every `force_interval` picks that found nothing.
    if (++force_count_ != *options_.force_interval) return std::nullopt;
    force_count_ = 0;
  }
  unit = ForcePickLevel0(runs, max_level, options_.universal, &took_all);
  if (took_all) RecordFull();
  return unit;
}

std::optional<CompactUnit> CompactStrategy::Pick(const std::vector<LevelSortedRun>& runs,
                                                 int32_t max_level) {
  std::optional<CompactUnit> unit = PickUnfiltered(runs, max_level);
  if (unit && !KeepUnit(*unit)) return std::nullopt;
  return unit;
}

}  // namespace fjord
