// Post-commit maintenance (behaviour.md §5.7; Java's TableCommitImpl#maintain): after every
// commit through the public API, in Java's order: automatic tag creation, tag time expiration,
// partition expiration, consumer expiration (`consumer.expiration-time`), snapshot expiration,
// and changelog expiration when the changelog is decoupled; then, when the call ends a batch job
// and `tag.automatic-creation` is batch, the batch tag (tag_batch_create.h; Java makes it when
// the job finishes, after its last commit's maintenance). The expirations also run after
// commits that created no snapshot (Java's expireForEmptyCommit, default true). Nothing runs for
// write-only writers (`write-only`) but the batch tag, which Java's batch sinks make whatever
// `write-only` says. `snapshot.expire.execution-mode = async` runs it on one
// background thread, in commit order; an error there is returned by the next commit and by
// Wait(), and the destructor waits for the thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/expire_config.h"
#include "fjord/table/maintain/partition_expire.h"
#include "fjord/table/maintain/snapshot_expire.h"
#include "fjord/table/maintain/tag_auto_create.h"
#include "fjord/table/maintain/tag_batch_create.h"

namespace fjord {

class CommitMaintenance {
 public:
  // `table` carries the writer's dynamic options; `commit_user` commits the partition drops.
  // Invalid for retention or partition-expiration options that do not parse or contradict each
  // other (naming the option).
  static Result<std::unique_ptr<CommitMaintenance>> Make(
      std::shared_ptr<const FileStoreTable> table, const std::string& commit_user);
  ~CommitMaintenance();

  CommitMaintenance(const CommitMaintenance&) = delete;
  CommitMaintenance& operator=(const CommitMaintenance&) = delete;

  // After a successful commit under `identifier`; `created` tells whether it made a snapshot;
  // `ends_batch_job` whether the call ends a batch job (a write or overwrite under
  // kBatchCommitIdentifier, a dedicated compaction), after which batch tag mode tags the latest
  // snapshot, also when the call created none (as Flink's batch job tags at its end). Sync: runs
  // now and returns its error. Async: queues it and returns the error of an earlier run, if one
  // failed.
  Status AfterCommit(int64_t identifier, bool created, bool ends_batch_job = false);
  // Waits until queued runs are done; their first error.
  Status Wait();

  // Tests: a fixed clock.
  void set_now_millis(std::optional<int64_t> now) { run_.now_millis = now; }
  bool enabled() const { return enabled_; }
  bool async() const { return async_; }

 private:
  CommitMaintenance(std::shared_ptr<const FileStoreTable> table, ExpireConfig config);
  Status Run(int64_t identifier, bool do_expire, bool ends_batch_job);
  Status Expire(int64_t identifier, LocalDateTime now);  // steps 3 to 5
  void Worker();

  std::shared_ptr<const FileStoreTable> table_;
  ExpireConfig config_;
  ExpireRunOptions run_;
  bool enabled_ = true;  // false for write-only writers
  bool async_ = false;
  std::optional<int64_t> consumer_expiration_millis_;
  std::unique_ptr<PartitionExpire> partition_expire_;  // null: none
  std::unique_ptr<TagMaintenance> tags_;               // null: none
  std::unique_ptr<TagBatchCreation> batch_tags_;       // null: not batch tag mode

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  bool stop_ = false;
  Status error_;
  std::thread thread_;
};

}  // namespace fjord
