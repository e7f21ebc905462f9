// What snapshot expiration keeps, and why (`fjord doctor`): the range Java's ExpireSnapshotsImpl
// picks (snapshot_expire.h) computed from the snapshots' ids and times alone, so that the doctor
// can ask "what would a run at time T expire" and "what would it expire without the consumers",
// and name what keeps each remaining snapshot. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fjord {

struct RetentionInput {
  std::vector<std::pair<int64_t, int64_t>> snapshots;  // (id, commit time), ascending by id
  int64_t retain_min = 1;
  int64_t retain_max = 0;
  int64_t time_retained_millis = 0;
  int64_t expire_limit = 0;
  // The consumer with the smallest next snapshot (none with consumer.changelog-only).
  std::optional<std::pair<std::string, int64_t>> consumer;
};

// The first snapshot id a run at `now_millis` keeps (the snapshots below it expire); with
// `with_consumer` false, as if there were no consumer. The earliest id when nothing expires.
int64_t ExpirationEnd(const RetentionInput& in, int64_t now_millis, bool with_consumer = true);

// What keeps snapshot `id` through a run at `now_millis`: "retain-min", "consumer:<id>",
// "expire-limit", "time-retained"; "" when the run expires it.
std::string KeptBy(const RetentionInput& in, int64_t now_millis, int64_t id);

}  // namespace fjord
