// The findings of `fjord doctor` (docs/maintenance.md "fjord doctor" gives each code, its
// threshold and its fix), from a report whose settings, buckets, snapshots, tags, consumers and
// orphan counts are filled and the expiration facts below. Pure: unit tests feed it made-up
// reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/table_doctor.h"

namespace fjord {

// What the retention analysis found (doctor_retention.h, doctor_scan.h).
struct ExpirationFacts {
  // Snapshots a run at the latest commit's time would have expired, and the bytes that frees:
  // what the latest commit's own expiration should have removed, had it run.
  int64_t missed_snapshots = 0;
  int64_t missed_bytes = 0;
  // Each consumer that holds back expiration now: the snapshots a run would delete were there
  // no consumer but keeps with this one alone, and the bytes only they hold. By consumer id.
  struct ConsumerPin {
    std::string consumer;
    int64_t snapshots = 0;
    int64_t bytes = 0;
  };
  std::vector<ConsumerPin> consumer_pins;
};

// A bucket is skewed when its rows or bytes are at least this multiple of the median bucket of
// its partition ...
inline constexpr double kSkewRatio = 2.0;
// ... and the partition's buckets hold at least this many rows on average (below it, the
// hashing noise of a few rows dominates).
inline constexpr int64_t kSkewMinMeanRows = 100;

// Appends the findings to `report->findings`, most severe first.
void AddDoctorFindings(const ExpirationFacts& facts, DoctorReport* report);

}  // namespace fjord
