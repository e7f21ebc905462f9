#include "fjord/table/maintain/commit_maintenance.h"

#include "fjord/common/local_time.h"
#include "fjord/meta/consumer.h"
#include "fjord/table/maintain/changelog_expire.h"

namespace fjord {

Result<std::unique_ptr<CommitMaintenance>> CommitMaintenance::Make(
    std::shared_ptr<const FileStoreTable> table, const std::string& commit_user) {
  const CoreOptions& core = table->core_options();
  FJORD_ASSIGN_OR_RAISE(ExpireConfig config, ExpireConfig::FromOptions(core));
  std::unique_ptr<CommitMaintenance> m(new CommitMaintenance(table, config));
  m->enabled_ = !core.write_only();
  std::string mode = core.options().GetOr("snapshot.expire.execution-mode", "sync");
  for (char& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  m->async_ = mode == "async";
  FJORD_ASSIGN_OR_RAISE(m->consumer_expiration_millis_,
                        core.options().GetDurationMillis("consumer.expiration-time"));
  if (m->enabled_) {
    FJORD_ASSIGN_OR_RAISE(m->partition_expire_, PartitionExpire::Make(table, commit_user));
    FJORD_ASSIGN_OR_RAISE(m->tags_, TagMaintenance::Make(table));
  }
  FJORD_ASSIGN_OR_RAISE(m->batch_tags_, TagBatchCreation::Make(table));
  if (m->enabled_ && m->async_) m->thread_ = std::thread([p = m.get()] { p->Worker(); });
  return m;
}

CommitMaintenance::CommitMaintenance(std::shared_ptr<const FileStoreTable> table,
                                     ExpireConfig config)
    : table_(std::move(table)), config_(config) {}

CommitMaintenance::~CommitMaintenance() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
}

Status CommitMaintenance::AfterCommit(int64_t identifier, bool created, bool ends_batch_job) {
  if (!enabled_) {
    // Write-only: no maintenance, but the end of a batch job still tags (Java's batch sinks tag
    // whatever `write-only` says).
    if (!ends_batch_job || !batch_tags_) return Status::OK();
    return Run(identifier, /*do_expire=*/false, /*ends_batch_job=*/true);
  }
  // Java's expireForEmptyCommit is true for every writer it makes: expire even when `created`
  // is false.
  (void)created;
  const bool do_expire = true;
  if (!async_) return Run(identifier, do_expire, ends_batch_job);
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  queue_.push_back([this, identifier, do_expire, ends_batch_job] {
    Status st = Run(identifier, do_expire, ends_batch_job);
    if (!st.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      if (error_.ok()) error_ = st;
    }
  });
  cv_.notify_all();
  return Status::OK();
}

Status CommitMaintenance::Wait() {
  if (!async_) return Status::OK();
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
  return error_;
}

void CommitMaintenance::Worker() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, everything done
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    task();
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

Status CommitMaintenance::Run(int64_t identifier, bool do_expire, bool ends_batch_job) {
  LocalDateTime now = run_.now_millis
                          ? LocalDateTime::FromMillis(EpochMillisToLocalMillis(*run_.now_millis))
                          : LocalDateTime::Now();
  // 1. Automatic tag creation (tag.automatic-creation), 2. tag time expiration
  //    (tag.time-expire-enabled; Java runs it only when expiring, which is always here).
  if (tags_) {
    FJORD_RETURN_NOT_OK(tags_->Run(now).WithContext("tag maintenance"));
  }
  if (do_expire) FJORD_RETURN_NOT_OK(Expire(identifier, now));
  // 7. The batch tag, when the job ends (Flink's BatchWriteGeneratorTagOperator#finish).
  if (ends_batch_job && batch_tags_) {
    FJORD_RETURN_NOT_OK(batch_tags_->Run(now).status());
  }
  return Status::OK();
}

Status CommitMaintenance::Expire(int64_t identifier, LocalDateTime now) {
  // 3. Partition expiration (partition.expiration-time), when its check interval has passed.
  if (partition_expire_) {
    Result<std::optional<std::vector<ExpiredPartition>>> expired =
        partition_expire_->ExpireIfDue(now, identifier);
    if (!expired.ok()) return expired.status().WithContext("partition expiration");
  }
  // 4. Consumers first, so that an expired one no longer holds snapshots back.
  if (consumer_expiration_millis_) {
    ConsumerManager consumers(table_->io(), table_->path());
    FJORD_RETURN_NOT_OK(consumers.Expire(NowMillis(run_) - *consumer_expiration_millis_).status());
  }
  // 5. Snapshots, then long-lived changelogs.
  FJORD_RETURN_NOT_OK(ExpireSnapshots(*table_, config_, run_).status());
  if (config_.ChangelogDecoupled()) {
    FJORD_RETURN_NOT_OK(ExpireChangelogs(*table_, config_, run_).status());
  }
  return Status::OK();
}

}  // namespace fjord
