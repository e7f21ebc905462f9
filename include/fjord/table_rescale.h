// Bucket rescale (Java Paimon's "Rescale Bucket" procedure): change a fixed-bucket table's bucket
// count and rewrite partitions into it. See Table::Rescale and docs/maintenance.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/partition.h"

namespace fjord {

struct RescaleOptions {
  // The new bucket count (> 0).
  int32_t buckets = 0;
  // The partitions to rewrite (each spec may give some of the partition columns; fjord/
  // partition.h). Empty: every partition holding data (the whole table when unpartitioned).
  std::vector<PartitionSpec> partitions;
};

struct RescaleResult {
  int32_t previous_bucket = 0;  // the table's `bucket` before
  bool altered = false;         // a new schema set `bucket` (false when it already was the count)
  int64_t read_snapshot = 0;    // the snapshot whose rows were rewritten
  std::optional<int64_t> snapshot_id;   // the OVERWRITE snapshot
  std::vector<std::string> partitions;  // the partitions rewritten ("k=v,..."; "" unpartitioned)
  int64_t files_before = 0;             // live files replaced
  int64_t files_written = 0;
  int64_t rows = 0;
};

}  // namespace fjord
