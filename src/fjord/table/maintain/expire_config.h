// What snapshot and changelog expiration keep (behaviour.md §8.1; Java's ExpireConfig and
// CoreOptions#expireConfig): the snapshot.* retention options, the changelog.* ones falling back
// to them, and whether the changelog outlives snapshots ("decoupled").
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "fjord/meta/core_options.h"

namespace fjord {

struct ExpireConfig {
  int64_t snapshot_retain_max = std::numeric_limits<int32_t>::max();
  int64_t snapshot_retain_min = 1;
  int64_t snapshot_time_retain_millis = std::numeric_limits<int64_t>::max();
  int64_t snapshot_max_deletes = std::numeric_limits<int32_t>::max();
  // nullopt: the snapshot value.
  std::optional<int64_t> changelog_retain_max, changelog_retain_min;
  std::optional<int64_t> changelog_time_retain_millis;
  std::optional<int64_t> changelog_max_deletes;
  // consumer.changelog-only: consumers protect the changelog only, not snapshots.
  bool consumer_changelog_only = false;
  bool clean_empty_directories = false;

  int64_t ChangelogRetainMax() const { return changelog_retain_max.value_or(snapshot_retain_max); }
  int64_t ChangelogRetainMin() const { return changelog_retain_min.value_or(snapshot_retain_min); }
  int64_t ChangelogTimeRetainMillis() const {
    return changelog_time_retain_millis.value_or(snapshot_time_retain_millis);
  }
  int64_t ChangelogMaxDeletes() const {
    return changelog_max_deletes.value_or(snapshot_max_deletes);
  }
  // Some changelog retention exceeds the snapshot one: expired snapshots live on as
  // changelog/changelog-<id> and a separate changelog expiration deletes them.
  bool ChangelogDecoupled() const {
    return ChangelogRetainMax() > snapshot_retain_max ||
           ChangelogRetainMin() > snapshot_retain_min ||
           ChangelogTimeRetainMillis() > snapshot_time_retain_millis;
  }

  // The table's options: snapshot.num-retained.min/max, snapshot.time-retained,
  // snapshot.expire.limit, changelog.num-retained.min/max, changelog.time-retained,
  // consumer.changelog-only, snapshot.clean-empty-directories. Invalid, naming the option, for
  // snapshot.num-retained.min < 1, a maximum below its minimum, a negative time.
  static Result<ExpireConfig> FromOptions(const CoreOptions& options);
  // The same checks for a config assembled elsewhere (fjord expire's flags).
  Status Validate() const;
};

}  // namespace fjord
