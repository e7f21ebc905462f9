#include "fjord/lsm/compact_strategy.h"

#include <algorithm>
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

}  // namespace

LookupNeeds LookupNeeds::FromOptions(const CoreOptions& options) {
  LookupNeeds n;
  n.first_row = options.merge_engine() == MergeEngine::kFirstRow;
  n.produce_changelog = options.changelog_producer() == ChangelogProducer::kLookup;
  n.deletion_vectors = options.deletion_vectors_enabled();
  n.force_lookup = options.force_lookup();
  return n;
}

Result<CompactStrategyOptions> CompactStrategyOptions::FromOptions(const CoreOptions& options) {
  CompactStrategyOptions o;
  FJORD_ASSIGN_OR_RAISE(o.universal, UniversalCompactionOptions::FromOptions(options));
  o.optimization_interval_millis = options.compaction_optimization_interval_millis();
  o.total_size_threshold = options.compaction_total_size_threshold();
  o.incremental_size_threshold = options.compaction_incremental_size_threshold();
  if (LookupNeeds::FromOptions(options).needed()) {
    o.force_up_level0 = true;
    if (options.lookup_compact() == LookupCompactMode::kGentle) {
      // Java's default max interval is twice the compaction trigger.
      int32_t trigger = o.universal.compaction_trigger;
      o.force_interval =
          std::max(trigger, options.lookup_compact_max_interval().value_or(2 * trigger));
    }
  } else {
    o.force_up_level0 = options.compaction_force_up_level_0();
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
