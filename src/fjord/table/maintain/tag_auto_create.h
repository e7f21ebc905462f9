// Automatic tags and tag time expiration at commit maintenance (behaviour.md §8.4), as Java
// Paimon 1.4's TagAutoManager: TagAutoCreation (`tag.automatic-creation` process-time or
// watermark, `tag.creation-period` / `-duration`, `tag.creation-delay`, `tag.period-formatter`,
// `tag.num-retained-max`, `tag.default-time-retained`, `tag.automatic-completion`), then
// TagTimeExpire when `tag.time-expire-enabled`.
//
// The time of a snapshot: process-time its commit time in `sink.process-time-zone` (unset: the
// process's local zone, as Java's JVM default), watermark its watermark in
// `sink.watermark-time-zone` (default UTC; snapshots without watermark are skipped). Zones Fjord
// honours: UTC, GMT, Z and fixed offsets (+08:00, UTC+8); region names are refused naming the
// option (Fjord has no time-zone database).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fjord/meta/tag_period.h"
#include "fjord/result.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/partition_time.h"

namespace fjord {

class TagAutoCreation {
 public:
  // nullptr when `tag.automatic-creation` is none or batch (tag_batch_create.h). Invalid naming
  // the option for a value Fjord does not honour (a region time zone) or Java refuses (a delay
  // not below the period).
  static Result<std::unique_ptr<TagAutoCreation>> Make(std::shared_ptr<const FileStoreTable> table);

  // Examines every snapshot not yet examined (Java's TagAutoCreation#run).
  Status Run();

 private:
  TagAutoCreation() = default;
  Status TryToCreateTag(const Snapshot& snapshot);

  std::shared_ptr<const FileStoreTable> table_;
  TagPeriod period_;
  bool watermark_ = false;
  std::optional<int64_t> zone_offset_millis_;  // nullopt: the process's local zone
  int64_t delay_millis_ = 0;
  std::optional<int64_t> num_retained_max_;
  bool completion_ = false;
  std::optional<int64_t> next_tag_;  // local millis
  int64_t next_snapshot_ = 1;
};

// Java's TagAutoManager: automatic creation, then time expiration of tags.
class TagMaintenance {
 public:
  // nullptr when neither automatic creation nor time expiration is on.
  static Result<std::unique_ptr<TagMaintenance>> Make(std::shared_ptr<const FileStoreTable> table);
  // Runs both; `now` decides which tags' time retained has passed.
  Status Run(LocalDateTime now);

 private:
  std::shared_ptr<const FileStoreTable> table_;
  std::unique_ptr<TagAutoCreation> creation_;
  bool expire_ = false;
};

// Tag maintenance once, as one commit's maintenance runs it (for callers without a committer).
Status RunTagMaintenance(std::shared_ptr<const FileStoreTable> table, LocalDateTime now);

// The offset of a zone option's value in milliseconds; nullopt for an unset value. Invalid
// naming `option` for a zone Fjord cannot resolve.
Result<std::optional<int64_t>> ParseZoneOffset(const std::string& option,
                                               const std::optional<std::string>& value);

}  // namespace fjord
