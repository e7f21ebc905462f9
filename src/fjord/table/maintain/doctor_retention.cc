#include "fjord/table/maintain/doctor_retention.h"

#include <algorithm>

namespace fjord {

int64_t ExpirationEnd(const RetentionInput& in, int64_t now_millis, bool with_consumer) {
  if (in.snapshots.empty()) return 0;
  const int64_t earliest = in.snapshots.front().first;
  const int64_t latest = in.snapshots.back().first;
  // As snapshot_expire.cc: time-retained counts back from now, retain-max and retain-min from the
  // latest id, the consumer and snapshot.expire.limit cap the end.
  const int64_t older_than = now_millis - in.time_retained_millis;
  const int64_t min = std::max(latest - in.retain_max + 1, earliest);
  int64_t max_exclusive = latest - in.retain_min + 1;
  if (with_consumer && in.consumer) max_exclusive = std::min(max_exclusive, in.consumer->second);
  max_exclusive = std::min(max_exclusive, earliest + in.expire_limit);
  for (const auto& [id, time] : in.snapshots) {
    if (id < min) continue;
    if (id >= max_exclusive) break;
    if (older_than <= time) return std::max(id, earliest);
  }
  return std::max(max_exclusive, earliest);
}

std::string KeptBy(const RetentionInput& in, int64_t now_millis, int64_t id) {
  if (in.snapshots.empty() || id < ExpirationEnd(in, now_millis)) return "";
  const int64_t earliest = in.snapshots.front().first;
  const int64_t latest = in.snapshots.back().first;
  if (id >= latest - in.retain_min + 1) return "retain-min";
  if (in.consumer && id >= in.consumer->second) return "consumer:" + in.consumer->first;
  if (id >= earliest + in.expire_limit) return "expire-limit";
  return "time-retained";
}

}  // namespace fjord
