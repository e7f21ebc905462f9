// Partition expiration as Java Paimon 1.4's PartitionExpire (behaviour.md §5.8): which partitions
// are older than `partition.expiration-time` by `partition.expiration-strategy`
//  * values-time: the time in the partition values (partition_time.h); a partition whose values
//    do not parse, or hold a NULL the extraction needs, is kept, with a warning;
//  * update-time: the newest creation time of the partition's files (every entry of the latest
//    snapshot's manifests, as Java's partition entries count them);
// then sorted by their values joined with ',' as text, at most `partition.expiration-max-num`,
// and dropped through FileStoreCommit::DropPartitions: one OVERWRITE snapshot per batch of
// `partition.expiration-batch-size` (all at once when unset), deleting every file of the
// partitions, under the caller's commit user and identifier.
//
// At commit maintenance a PartitionExpire lives as long as its committer and runs when
// `partition.expiration-check-interval` has passed since its last check (the first check is
// due a random part of the interval after it is made, as Java's), or at every commit when the
// interval is 0, or at the end of input (identifier INT64_MAX) with
// `end-input.check-partition-expire`. Write-only committers make none (Java's write-only).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/partition_time.h"

namespace fjord {

// The partition.expiration-* options of a table.
struct PartitionExpireSettings {
  int64_t expiration_millis = 0;
  int64_t check_interval_millis = 3600000;
  bool update_time = false;  // strategy update-time, else values-time
  PartitionTimeExtractor extractor;
  int32_t max_num = 100;
  int32_t batch_size = 0;  // <= 0: one batch
  bool end_input_check = false;

  // nullopt when `partition.expiration-time` is unset or the table is unpartitioned (Java makes
  // no PartitionExpire then). Invalid naming the option for a value Java would fail on (an
  // unknown strategy) or a formatter Fjord does not honour.
  static Result<std::optional<PartitionExpireSettings>> Of(const FileStoreTable& table);
};

// One partition chosen for expiration.
struct ExpiredPartition {
  std::string partition;  // stored BinaryRow
  // column -> value as Java's expiration hands them to dropPartitions (Java's toString() of the
  // internal value, `partition.default-name` for NULL), in partition-key order.
  std::vector<std::pair<std::string, std::string>> spec;
  std::string text;  // "k=v,k2=v2" as every Fjord command prints partitions
};

class PartitionExpire {
 public:
  // nullptr when the table has no partition expiration (PartitionExpireSettings::Of). The first
  // check is due `interval` after `last_check`, which defaults to now minus a random number of
  // whole seconds below the interval, as Java.
  static Result<std::unique_ptr<PartitionExpire>> Make(
      std::shared_ptr<const FileStoreTable> table, std::string commit_user,
      std::optional<LocalDateTime> last_check = std::nullopt);

  // Java's expire(now, identifier): nullopt when no check is due; else checks, drops the expired
  // partitions (none: no snapshot) and returns them. The last check becomes `now` only when the
  // check succeeds.
  Result<std::optional<std::vector<ExpiredPartition>>> ExpireIfDue(LocalDateTime now,
                                                                   int64_t identifier);
  // The partitions older than `expire_before` (sorted and limited as they would be dropped),
  // without dropping them.
  Result<std::vector<ExpiredPartition>> Select(LocalDateTime expire_before) const;
  // Drops `partitions` in batches; the snapshot ids created.
  Result<std::vector<int64_t>> Drop(const std::vector<ExpiredPartition>& partitions,
                                    int64_t identifier) const;

  const PartitionExpireSettings& settings() const { return settings_; }
  LocalDateTime last_check() const { return last_check_; }
  void set_last_check(LocalDateTime t) { last_check_ = t; }

 private:
  PartitionExpire(std::shared_ptr<const FileStoreTable> table, std::string commit_user,
                  PartitionExpireSettings settings, LocalDateTime last_check)
      : table_(std::move(table)),
        commit_user_(std::move(commit_user)),
        settings_(std::move(settings)),
        last_check_(last_check) {}

  std::shared_ptr<const FileStoreTable> table_;
  std::string commit_user_;
  PartitionExpireSettings settings_;
  LocalDateTime last_check_;
};

}  // namespace fjord
