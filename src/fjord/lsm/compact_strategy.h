// How a primary-key bucket picks its next compaction, as Java's compaction manager factory
// chooses it (behaviour.md §2.2, §2.7): the universal picker, preceded by Java's "early full
// compaction" (compaction.optimization-interval, compaction.total-size-threshold,
// compaction.incremental-size-threshold), and for tables that need lookup (first-row merge
// engine, deletion vectors, changelog-producer = lookup, force-lookup) or with
// compaction.force-up-level-0, forced picking of level 0 when the universal picker finds
// nothing (Java's ForceUpLevel0Compaction; lookup-compact = radical every time, gentle every
// lookup-compact.max-interval picks). One strategy per bucket: it keeps state (time of the last
// full compaction, picks since the last forced level-0 compaction). Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "fjord/lsm/universal_compaction.h"

namespace fjord {

// What the table's options say about lookup (Java's LookupStrategy).
struct LookupNeeds {
  bool first_row = false;          // merge-engine = first-row
  bool produce_changelog = false;  // changelog-producer = lookup
  bool deletion_vectors = false;   // deletion-vectors.enabled
  bool force_lookup = false;       // force-lookup
  bool needed() const { return first_row || produce_changelog || deletion_vectors || force_lookup; }
  // Reads and compactions merge by Java's lookup rule (kv_merge.h run_levels): Java wraps the
  // merge function of every table that needs lookup in LookupMergeFunction, but first-row's.
  bool merges_by_level() const { return needed() && !first_row; }

  static LookupNeeds FromOptions(const CoreOptions& options);
};

struct CompactStrategyOptions {
  UniversalCompactionOptions universal;
  // Early full compaction; each unset when the option is.
  std::optional<int64_t> optimization_interval_millis;  // compaction.optimization-interval
  std::optional<int64_t> total_size_threshold;          // compaction.total-size-threshold
  std::optional<int64_t> incremental_size_threshold;    // compaction.incremental-size-threshold
  // Force level 0 up when the universal picker finds nothing.
  bool force_up_level0 = false;
  // With force_up_level0: only every this many picks (lookup-compact = gentle); unset = every
  // time (radical, or compaction.force-up-level-0 without lookup).
  std::optional<int32_t> force_interval;

  // Invalid for a bad combination (lookup-compact.max-interval below 1).
  static Result<CompactStrategyOptions> FromOptions(const CoreOptions& options);
};

class CompactStrategy {
 public:
  using Clock = std::function<int64_t()>;  // milliseconds
  // `clock` defaults to the system clock (tests inject their own).
  explicit CompactStrategy(CompactStrategyOptions options, Clock clock = nullptr);

  // The unit to compact now (already filtered as Java's manager filters), or nullopt.
  std::optional<CompactUnit> Pick(const std::vector<LevelSortedRun>& runs, int32_t max_level);

  const CompactStrategyOptions& options() const { return options_; }

 private:
  std::optional<CompactUnit> PickUnfiltered(const std::vector<LevelSortedRun>& runs,
                                            int32_t max_level);
  // Java's EarlyFullCompaction#tryFullCompact.
  std::optional<CompactUnit> TryEarlyFull(const std::vector<LevelSortedRun>& runs,
                                          int32_t max_level);
  bool has_early_full() const;
  void RecordFull();

  CompactStrategyOptions options_;
  Clock clock_;
  std::optional<int64_t> last_full_millis_;  // unknown after start: the interval fires at once
  int32_t force_count_ = 0;
};

}  // namespace fjord
