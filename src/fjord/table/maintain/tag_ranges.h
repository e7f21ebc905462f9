// Finding tags among the snapshots of an expiration range (Java's
// ExpireSnapshotsImpl.findSkippingTags).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fjord/meta/snapshot.h"

namespace fjord {

// The tags (sorted by id) whose files [begin, end_exclusive) must not delete: those with
// id < end_exclusive, from the last one at or before `begin` on.
inline std::vector<Snapshot> TagsInRange(const std::vector<Snapshot>& sorted_tags, int64_t begin,
                                         int64_t end_exclusive) {
  std::vector<Snapshot> out;
  auto before_end = std::lower_bound(sorted_tags.begin(), sorted_tags.end(), end_exclusive,
                                     [](const Snapshot& s, int64_t v) { return s.id < v; });
  if (before_end == sorted_tags.begin()) return out;
  auto at_or_before_begin = std::upper_bound(sorted_tags.begin(), sorted_tags.end(), begin,
                                             [](int64_t v, const Snapshot& s) { return v < s.id; });
  auto first = at_or_before_begin == sorted_tags.begin() ? sorted_tags.begin()
                                                         : std::prev(at_or_before_begin);
  out.assign(first, before_end);
  return out;
}

}  // namespace fjord
