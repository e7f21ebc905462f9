// Batch tags (behaviour.md §8.4): with `tag.automatic-creation = batch`, the end of a batch job
// tags the latest snapshot, as Java Paimon 1.4's TagBatchCreation (run by Flink's
// BatchWriteGeneratorTagOperator when a batch job finishes, and by Spark after a batch write).
//
// The tag's name is `tag.batch.customized-name` (Java 1.1+), else "batch-write-" and the
// snapshot's commit date (yyyy-MM-dd) in `sink.process-time-zone` (Java 1.3+; unset, and in Java
// 1.0 to 1.2 always: the process's local zone, as the JVM's default). A tag of that name is
// replaced (deleted, then created with `tag.default-time-retained`), so one batch job a day keeps
// one tag per day, pointing at the day's last job. Then, with `tag.num-retained-max`, tags beyond
// the limit are deleted oldest snapshot first; unlike automatic period tags, every tag counts,
// manual ones too (Java's TagBatchCreation#expireTag).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/partition_time.h"

namespace fjord {

class TagBatchCreation {
 public:
  // nullptr unless `tag.automatic-creation` is batch. Invalid naming the option for a zone Fjord
  // cannot resolve, a blank customized name or one with '/', a negative tag.num-retained-max.
  static Result<std::unique_ptr<TagBatchCreation>> Make(
      std::shared_ptr<const FileStoreTable> table);

  struct Outcome {
    std::optional<std::string> tag;    // the tag created; nullopt: the table has no snapshot
    int64_t snapshot_id = 0;           // the snapshot it tags
    std::vector<std::string> expired;  // tags deleted for tag.num-retained-max, in order
  };

  // Tags the latest snapshot, then deletes the tags beyond tag.num-retained-max. `now` is the
  // tag's create time. An error names the tag and the snapshot; Java logs it and goes on.
  Result<Outcome> Run(LocalDateTime now);

  // The batch tag name of a snapshot committed at `time_millis` (epoch millis).
  std::string TagName(int64_t time_millis) const;

 private:
  TagBatchCreation() = default;

  std::shared_ptr<const FileStoreTable> table_;
  std::optional<std::string> customized_name_;
  std::optional<int64_t> zone_offset_millis_;  // nullopt: the process's local zone
  std::optional<int64_t> num_retained_max_;
};

// Java's TagBatchCreation#expireTag: while more than `max` tags exist (every tag counts), takes
// the tagged snapshots oldest first: all tags of a snapshot go when that still leaves more than
// `max`, otherwise that snapshot's tags go in order of their files' modification time (then
// name) until `max` remain. Tag files are deleted as DeleteTag deletes them. The names deleted.
Result<std::vector<std::string>> ExpireTagsBeyondMax(const FileStoreTable& table, int64_t max);

}  // namespace fjord
