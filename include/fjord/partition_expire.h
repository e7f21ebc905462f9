// Partition expiration as a job (Java's `expire_partitions` procedure, behaviour.md §10): drops
// the partitions older than an expiration time, as commits do when the table sets
// `partition.expiration-time` (docs/maintenance.md). The parameters override the table's
// partition.* options for this run; the check interval is 0 (the procedure always checks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"

namespace fjord {

class Table;

struct PartitionExpireOptions {
  // `partition.expiration-time` ("1 d", "12 h"); else the table's. One of the two is needed.
  std::optional<std::string> expiration_time;
  std::optional<std::string> timestamp_formatter;  // partition.timestamp-formatter
  std::optional<std::string> timestamp_pattern;    // partition.timestamp-pattern
  std::optional<std::string> strategy;             // values-time | update-time
  std::optional<int32_t> max_expires;              // partition.expiration-max-num
  // List what would be dropped, commit nothing.
  bool dry_run = false;
  // The local date-time to take as now ("2026-11-26T03:00:00"); default the wall clock. For tests
  // and for replaying a decision.
  std::optional<std::string> now;
  // The commit user of the OVERWRITE snapshots (Java's procedure: empty); their commit identifier
  // is INT64_MAX, as the procedure's.
  std::string commit_user;
};

struct PartitionExpireResult {
  // The partitions dropped (or that would be, in a dry run), in Java's order: "k=v,k2=v2" as
  // every command prints partitions.
  std::vector<std::string> partitions;
  std::vector<int64_t> snapshots;  // the OVERWRITE snapshots created, one per batch
};

// Invalid, naming the option, when the table is unpartitioned, no expiration time is given or
// set, or an option is bad (a formatter Fjord does not honour among them); nothing is committed.
Result<PartitionExpireResult> ExpirePartitions(const Table& table,
                                               const PartitionExpireOptions& options);

}  // namespace fjord
