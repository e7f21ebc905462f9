// ExpirePartitions (fjord/partition_expire.h): the procedure over table/maintain's
// PartitionExpire.

#include "fjord/partition_expire.h"

#include <map>

#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/partition_expire.h"

namespace fjord {

Result<PartitionExpireResult> ExpirePartitions(const Table& table,
                                               const PartitionExpireOptions& options) {
  // Java's ProcedureUtils.fillInPartitionOptions: the parameters as dynamic options, and a check
  // interval of 0.
  std::map<std::string, std::string> dynamic;
  auto put = [&](const char* key, const std::optional<std::string>& v) {
    if (v && !v->empty()) dynamic[key] = *v;
  };
  put("partition.expiration-strategy", options.strategy);
  put("partition.timestamp-formatter", options.timestamp_formatter);
  put("partition.timestamp-pattern", options.timestamp_pattern);
  put("partition.expiration-time", options.expiration_time);
  dynamic["partition.expiration-check-interval"] = "0";
  if (options.max_expires) {
    dynamic["partition.expiration-max-num"] = std::to_string(*options.max_expires);
  }
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> store,
                        table.store()->WithDynamicOptions(dynamic));
  FJORD_RETURN_NOT_OK(store->CheckOptions(OptionUse::kWrite));
  if (store->schema().partition_keys.empty()) {
    return Status::Invalid("partition expiration needs a partitioned table; ", table.path(),
                           " has no partition keys");
  }
  LocalDateTime now = LocalDateTime::Now();
  if (options.now) {
    FJORD_ASSIGN_OR_RAISE(now, ParseLocalDateTime(*options.now));
  }
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<PartitionExpire> expire,
                        PartitionExpire::Make(store, options.commit_user, now));
  if (!expire) {
    return Status::Invalid(
        "partition expiration needs an expiration time: give one or set the table option "
        "'partition.expiration-time'");
  }
  PartitionExpireResult result;
  FJORD_ASSIGN_OR_RAISE(std::vector<ExpiredPartition> expired,
                        expire->Select(now.MinusMillis(expire->settings().expiration_millis)));
  for (const ExpiredPartition& p : expired) result.partitions.push_back(p.text);
  if (!options.dry_run) {
    FJORD_ASSIGN_OR_RAISE(result.snapshots, expire->Drop(expired, INT64_MAX));
  }
  return result;
}

}  // namespace fjord
