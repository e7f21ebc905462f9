// RunJob: the topology of a streaming job (docs/streaming.md). One source thread (the caller's)
// reads batches, routes their rows by (partition, bucket) to `parallelism` writer threads through
// bounded queues and, every checkpoint interval, sends a barrier with the checkpoint id down every
// queue after the rows read so far. A writer meeting a barrier prepares its commit
// (PrepareCommit(checkpoint id)) and hands the messages to the committer thread, which, once every
// writer has answered, persists the checkpoint (id, commit user, source position at the barrier,
// every committable not yet committed) and then commits the committables in order, each with
// identifier = its checkpoint id. One checkpoint at a time.

#include <arrow/api.h>
#include <arrow/c/bridge.h>
#include <arrow/compute/api.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <ostream>
#include <thread>

#include "fjord/api/table_write_internal.h"
#include "fjord/format/arrow_types.h"
#include "fjord/job.h"
#include "fjord/runtime/bounded_queue.h"
#include "fjord/runtime/channel.h"
#include "fjord/runtime/checkpoint_store.h"
#include "fjord/runtime/fault_hook.h"
#include "fjord/runtime/job_spec.h"
#include "fjord/runtime/metrics.h"
#include "fjord/runtime/restore.h"
#include "fjord/runtime/shared_assigner.h"
#include "fjord/runtime/source.h"
#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/row_router.h"
#include "fjord/table_commit.h"

namespace fjord {

namespace {

using runtime::BoundedQueue;
using runtime::CheckpointState;
using runtime::CheckpointStore;
using runtime::JobSpec;
using runtime::PendingCommit;
using Clock = std::chrono::steady_clock;

// Commits (or checkpoints) failing this many times in a row fail the job (a restart retries).
constexpr int kMaxCommitFailures = 3;

struct WriterItem {
  std::shared_ptr<arrow::RecordBatch> batch;
  int64_t barrier = 0;  // > 0: a checkpoint barrier
  bool final = false;   // the last checkpoint of the run: wait for running compactions
  bool stop = false;
};

struct Ack {
  int64_t checkpoint = 0;
  Status status;
  CommitMessages messages;
  bool stop = false;  // tells the committer to end
};

// A checkpoint between its barrier and its commit.
struct InFlight {
  Clock::time_point started;
  int64_t id = 0;
  std::string position;
  int acks = 0;
  CommitMessages messages;
};

class Job {
 public:
  Job(JobSpec spec, const JobRunOptions& options) : spec_(std::move(spec)), options_(options) {
    if (const char* delay = std::getenv("FJORD_TEST_COMMIT_DELAY_MS")) {
      commit_delay_ms_ = std::atoi(delay);
    }
    // Test hook: a pause after each batch read, for a source that stays behind (lag metrics).
    if (const char* delay = std::getenv("FJORD_TEST_SOURCE_DELAY_MS")) {
      source_delay_ms_ = std::atoi(delay);
    }
  }

  Result<JobRunSummary> Run() {
    FJORD_RETURN_NOT_OK(Prepare());
    FJORD_RETURN_NOT_OK(Restore());
    FJORD_RETURN_NOT_OK(StartThreads());
    Status st = StartMetrics();
    if (st.ok()) st = SourceLoop();
    Status stopped = StopThreads();
    if (st.ok()) st = stopped;
    FJORD_RETURN_NOT_OK(st);
    FJORD_RETURN_NOT_OK(Failure());
    return summary_;
  }

  // Checks the job against its table: sink options, routing, the source.
  Status Prepare() {
    EnsureArrowCompute();  // Take, for routing
    auto table = Table::Open(spec_.sink.table);
    if (table.ok() && std::getenv("FJORD_TEST_FAULT_RATE")) {
      table = Table::Open(spec_.sink.table, runtime::MaybeInjectFaults((*table)->io()));
    }
    if (!table.ok()) return table.status().WithContext(spec_.file + ": sink.table");
    table_ = std::move(*table);
    const FileStoreTable& store = *table_->store();
    // Routing and bucket assignment see the table with the sink's options, as the writers do.
    auto effective = store.WithDynamicOptions(spec_.sink.options);
    if (!effective.ok()) return effective.status().WithContext(spec_.file + ": sink.options");
    auto router = RowRouter::Make((*effective)->schema(), (*effective)->core_options());
    if (!router.ok()) return router.status().WithContext(spec_.file + ": sink.table");
    runtime_router_ = std::move(*router);
    if (runtime_router_->dynamic()) {
      FJORD_ASSIGN_OR_RAISE(assigner_, runtime::SharedBucketAssigner::Make(**effective));
    }
    unaware_ = runtime_router_->total_buckets() < 0 && !runtime_router_->dynamic();
    write_options_.dynamic_options = spec_.sink.options;
    commit_options_.dynamic_options = spec_.sink.options;
    commit_options_.ignore_empty_commit = false;  // a snapshot per checkpoint, as Flink
    commit_options_.check_committed = true;
    // Opens one writer and committer now so that refused options fail before anything runs.
    FJORD_RETURN_NOT_OK(
        table_->NewWrite(write_options_).status().WithContext(spec_.file + ": sink"));
    FJORD_ASSIGN_OR_RAISE(source_, runtime::MakeSource(spec_.source, store.schema()));
    if (options_.bounded && spec_.source.type == "datagen" && spec_.source.datagen.rows < 0) {
      return Status::Invalid(spec_.file, ": --bounded needs source.rows for a datagen source");
    }
    store_ = std::make_unique<CheckpointStore>(spec_.pipeline.state_dir,
                                               spec_.pipeline.checkpoints_retained);
    return Status::OK();
  }

 private:
  void Log(const std::string& line, bool per_checkpoint = false) {
    std::lock_guard<std::mutex> lock(log_mu_);
    if (options_.progress) {
      if (per_checkpoint) return;        // the status line shows it
      *options_.progress << "\r\033[K";  // clear the status line first
    }
    if (options_.log) *options_.log << line << std::endl;
  }

  // The terminal's status line, at most twice a second.
  void Progress(bool force = false) {
    if (!options_.progress) return;
    auto now = Clock::now();
    if (!force && now - last_progress_ < std::chrono::milliseconds(500)) return;
    last_progress_ = now;
    std::lock_guard<std::mutex> lock(log_mu_);
    *options_.progress << "\r\033[K" << spec_.pipeline.name << ": " << metrics_.records_in.load()
                       << " rows in, " << metrics_.records_out.load() << " committed, checkpoint "
                       << metrics_.last_checkpoint.load() << ", snapshot "
                       << metrics_.latest_snapshot.load() << ", "
                       << metrics_.pending_committables.load() << " pending, "
                       << metrics_.commit_failures.load() << " commit failures"
                       << (force ? "\n" : "") << std::flush;
  }

  std::map<std::string, std::string> Properties(int64_t checkpoint, const std::string& position) {
    return {{runtime::kPropertyJob, spec_.pipeline.name},
            {runtime::kPropertyPosition, position},
            {runtime::kPropertyCheckpoint, std::to_string(checkpoint)}};
  }

  // The latest checkpoint's committables re-committed, then the source sought.
  Status Restore() {
    FJORD_RETURN_NOT_OK(store_->Init());
    FJORD_ASSIGN_OR_RAISE(std::optional<CheckpointState> latest, store_->LoadLatest());
    FJORD_ASSIGN_OR_RAISE(std::optional<std::string> stored_user, store_->StoredCommitUser());
    const FileStoreTable& store = *table_->store();
    std::string position;
    if (latest) {
      if (latest->job_name != spec_.pipeline.name) {
        return Status::Invalid("state-dir ", spec_.pipeline.state_dir, " holds job '",
                               latest->job_name, "', not '", spec_.pipeline.name, "'");
      }
      if (stored_user && *stored_user != latest->commit_user) {
        return Status::Corruption("state-dir ", spec_.pipeline.state_dir,
                                  ": commit-user differs from the checkpoint's");
      }
      commit_user_ = latest->commit_user;
      last_checkpoint_ = latest->checkpoint_id;
      position = latest->source_position;
      summary_.restored_from = "state-dir";
      summary_.restored_checkpoint = latest->checkpoint_id;
    } else {
      // No checkpoint: the job's latest snapshot, if the table has one, says where it stands
      // (also when only the checkpoints were lost and the commit user is still there).
      FJORD_ASSIGN_OR_RAISE(std::optional<runtime::TableResume> resume,
                            runtime::FindResumeInTable(store, spec_.pipeline.name));
      if (resume) {
        if (stored_user && *stored_user != resume->commit_user) {
          return Status::Invalid("state-dir ", spec_.pipeline.state_dir, " has commit user ",
                                 *stored_user, " but job '", spec_.pipeline.name,
                                 "' last committed snapshot ", resume->snapshot_id, " as ",
                                 resume->commit_user,
                                 "; empty the state directory to resume "
                                 "from the table alone");
        }
        commit_user_ = resume->commit_user;
        last_checkpoint_ = resume->checkpoint_id;
        position = resume->source_position;
        summary_.restored_from = "table";
        summary_.restored_checkpoint = resume->checkpoint_id;
        Log("no checkpoint in state-dir: resuming job '" + spec_.pipeline.name +
            "' from snapshot " + std::to_string(resume->snapshot_id) + " (checkpoint " +
            std::to_string(resume->checkpoint_id) + ")");
      } else {
        // Nothing committed by this job: a fresh start (with the stored user, if any).
        commit_user_ = stored_user ? *stored_user : NewCommitUser();
        summary_.restored_from = "fresh";
      }
    }
    FJORD_RETURN_NOT_OK(store_->CommitUser(commit_user_).status());
    FJORD_ASSIGN_OR_RAISE(committer_, table_->NewCommit(commit_user_, commit_options_));
    if (latest) {
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> committed,
                            runtime::LatestCommittedIdentifier(store, commit_user_));
      // The marker covers a table whose snapshots of this user have all expired.
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> marked, store_->LoadCommitted());
      if (marked && (!committed || *marked > *committed)) {
        if (*marked > latest->checkpoint_id) {
          return Status::Corruption("state-dir ", spec_.pipeline.state_dir, ": committed marks ",
                                    "checkpoint ", *marked, " beyond the latest checkpoint ",
                                    latest->checkpoint_id);
        }
        committed = marked;
      }
      if (committed && *committed > latest->checkpoint_id) {
        // An older copy of the state directory: its position is before rows already committed.
        return Status::Invalid(
            "state-dir ", spec_.pipeline.state_dir, " is stale: its latest checkpoint is ",
            latest->checkpoint_id, " but the table holds checkpoint ", *committed,
            " of this job; empty the state directory to resume from the table alone");
      }
      std::string source = store_->CheckpointPath(latest->checkpoint_id);
      for (const PendingCommit& p : latest->pending) {
        if (committed && p.checkpoint_id <= *committed) {
          ++summary_.already_committed;
          continue;
        }
        FJORD_ASSIGN_OR_RAISE(CommitMessages messages,
                              CommitMessages::Deserialize(p.messages, source));
        FJORD_RETURN_NOT_OK(runtime::CheckFilesExist(store, messages, source));
        committer_->SetSnapshotProperties(Properties(p.checkpoint_id, p.source_position));
        FJORD_ASSIGN_OR_RAISE(CommitResult r, committer_->Commit(messages, p.checkpoint_id));
        if (r.already_committed) {
          ++summary_.already_committed;
        } else {
          ++summary_.recommitted;
          ++metrics_.recommitted;
        }
      }
      if (!latest->pending.empty()) {
        FJORD_RETURN_NOT_OK(store_->MarkCommitted(latest->pending.back().checkpoint_id));
      }
    }
    if (latest) {
      Log("restored checkpoint " + std::to_string(latest->checkpoint_id) + " (" +
          std::to_string(latest->pending.size()) +
          " pending: " + std::to_string(summary_.recommitted) + " re-committed, " +
          std::to_string(summary_.already_committed) + " already committed)");
    }
    summary_.last_checkpoint = last_checkpoint_;
    return source_->Seek(position);
  }

  Status StartThreads() {
    int n = spec_.pipeline.parallelism;
    for (int i = 0; i < n; ++i) {
      queues_.push_back(std::make_unique<BoundedQueue<WriterItem>>(
          static_cast<size_t>(spec_.pipeline.queue_batches)));
      FJORD_ASSIGN_OR_RAISE(auto writer, api::NewTableWrite(*table_, write_options_, assigner_));
      writers_.push_back(std::move(writer));
    }
    metrics_.writer_buckets.resize(static_cast<size_t>(n));
    metrics_.writer_metrics.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) threads_.emplace_back([this, i] { WriterLoop(i); });
    committer_thread_ = std::thread([this] { CommitterLoop(); });
    return Status::OK();
  }

  Status StartMetrics() {
    if (spec_.pipeline.metrics_port <= 0) return Status::OK();
    return server_.Start(spec_.pipeline.metrics_address, spec_.pipeline.metrics_port, [this] {
      int64_t queued = 0;
      for (const auto& q : queues_) queued += static_cast<int64_t>(q->size());
      metrics_.queued_batches = queued;
      return metrics_.Render(spec_.pipeline.name);
    });
  }

  Status StopThreads() {
    for (auto& q : queues_) {
      WriterItem stop;
      stop.stop = true;
      q->Push(std::move(stop), true);
    }
    for (auto& t : threads_) t.join();
    Ack stop;
    stop.stop = true;
    acks_.Push(std::move(stop), true);
    committer_thread_.join();
    Status st = committer_->Close();
    return st;
  }

  void Fail(const Status& st) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_.ok()) failure_ = st;
    cv_.notify_all();
  }
  Status Failure() {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
  }

  void WriterLoop(int index) {
    TableWrite* writer = writers_[static_cast<size_t>(index)].get();
    bool failed = false;
    while (true) {
      WriterItem item = queues_[static_cast<size_t>(index)]->Pop();
      if (item.stop) return;
      if (failed) continue;  // drain, so that the source never blocks on a dead writer
      if (item.batch) {
        struct ArrowArray array;
        struct ArrowSchema schema;
        Status st = FromArrowStatus(arrow::ExportRecordBatch(*item.batch, &array, &schema));
        if (st.ok()) st = writer->Write(&schema, &array);
        if (!st.ok()) {
          failed = true;
          Fail(st);
        }
        continue;
      }
      Ack ack;
      ack.checkpoint = item.barrier;
      auto messages = writer->PrepareCommit(item.barrier, /*wait_compaction=*/item.final);
      if (messages.ok()) {
        ack.messages = std::move(*messages);
        std::vector<BucketStats> buckets = writer->bucket_metrics();
        std::lock_guard<std::mutex> lock(metrics_.mu);
        metrics_.writer_buckets[static_cast<size_t>(index)] = std::move(buckets);
        metrics_.writer_metrics[static_cast<size_t>(index)] = writer->metrics();
      } else {
        ack.status = messages.status();
        failed = true;
      }
      acks_.Push(std::move(ack), true);
    }
  }

  static Status FromArrowStatus(const arrow::Status& st) {
    if (st.ok()) return Status::OK();
    return Status::Internal("cannot hand a batch to a writer: ", st.message());
  }

  void CommitterLoop() {
    while (true) {
      Ack ack = acks_.Pop();
      if (ack.stop) return;
      InFlight done;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!ack.status.ok()) {
          if (failure_.ok()) failure_ = ack.status;
          cv_.notify_all();
          continue;
        }
        if (!inflight_ || inflight_->id != ack.checkpoint) continue;
        inflight_->messages.Append(ack.messages);
        if (++inflight_->acks < spec_.pipeline.parallelism) continue;
        done = std::move(*inflight_);
      }
      Status st = Complete(done);
      std::lock_guard<std::mutex> lock(mu_);
      if (!st.ok() && failure_.ok()) failure_ = st;
      inflight_.reset();
      last_checkpoint_end_ = Clock::now();
      cv_.notify_all();
    }
  }

  // Persists the checkpoint, then commits what is pending, in order.
  Status Complete(InFlight& cp) {
    auto started = Clock::now();
    FJORD_ASSIGN_OR_RAISE(std::string bytes, cp.messages.Serialize());
    PendingCommit mine;
    mine.checkpoint_id = cp.id;
    mine.source_position = cp.position;
    mine.messages = std::move(bytes);
    pending_.push_back(std::move(mine));
    CheckpointState state;
    state.checkpoint_id = cp.id;
    state.commit_user = commit_user_;
    state.job_name = spec_.pipeline.name;
    state.source_position = cp.position;
    state.pending = pending_;
    Status saved = store_->Save(state);
    if (!saved.ok()) {
      // A failed checkpoint: nothing of it is committed; its committables stay pending and go
      // into the next checkpoint (a restart before that one resumes at the previous checkpoint).
      ++metrics_.checkpoints_failed;
      Log("checkpoint " + std::to_string(cp.id) +
          " failed, its committables stay pending: " + saved.ToString());
      if (final_checkpoint_ == cp.id || ++consecutive_checkpoint_failures_ >= kMaxCommitFailures) {
        return saved.WithContext("checkpoint " + std::to_string(cp.id));
      }
      return Status::OK();
    }
    consecutive_checkpoint_failures_ = 0;
    if (commit_delay_ms_ > 0) {
      // Test hook (FJORD_TEST_COMMIT_DELAY_MS): widens the window between the persisted
      // checkpoint and its commit, where a crash leaves a committable to re-commit.
      std::this_thread::sleep_for(std::chrono::milliseconds(commit_delay_ms_));
    }
    // The checkpoint is complete: from here a restart resumes at cp.position and commits
    // `pending_` first.
    int64_t rows = cp.messages.new_row_count();
    std::string committed;
    int64_t last_committed = 0;
    while (!pending_.empty()) {
      const PendingCommit& p = pending_.front();
      CommitMessages messages = p.checkpoint_id == cp.id ? cp.messages : CommitMessages();
      if (p.checkpoint_id != cp.id) {
        FJORD_ASSIGN_OR_RAISE(messages, CommitMessages::Deserialize(p.messages, "pending commit"));
      }
      committer_->SetSnapshotProperties(Properties(p.checkpoint_id, p.source_position));
      auto commit_started = Clock::now();
      auto result = committer_->Commit(messages, p.checkpoint_id);
      metrics_.commit_micros_sum +=
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - commit_started)
              .count();
      ++metrics_.commits;
      if (!result.ok()) {
        ++metrics_.commit_failures;
        std::lock_guard<std::mutex> lock(mu_);
        ++summary_.commit_failures;
        Log("checkpoint " + std::to_string(p.checkpoint_id) +
            ": commit failed, kept pending: " + result.status().ToString());
        if (final_checkpoint_ == cp.id || ++consecutive_commit_failures_ >= kMaxCommitFailures) {
          return result.status().WithContext("checkpoint " + std::to_string(p.checkpoint_id) +
                                             " could not be committed");
        }
        break;
      }
      consecutive_commit_failures_ = 0;
      if (result->snapshot_id) {
        committed += " snapshot " + std::to_string(*result->snapshot_id);
        metrics_.latest_snapshot = *result->snapshot_id;
        CountSnapshots();
      }
      metrics_.records_out += messages.new_row_count();
      source_->Committed(p.source_position);
      last_committed = p.checkpoint_id;
      pending_.erase(pending_.begin());
    }
    if (last_committed > 0) {
      Status marked = store_->MarkCommitted(last_committed);
      if (!marked.ok()) Log("cannot record the committed checkpoint: " + marked.ToString());
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    metrics_.pending_committables = static_cast<int64_t>(pending_.size());
    ++metrics_.checkpoints_completed;
    metrics_.checkpoint_micros_sum +=
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - cp.started).count();
    metrics_.last_checkpoint = cp.id;
    std::lock_guard<std::mutex> lock(mu_);
    ++summary_.checkpoints_completed;
    summary_.last_checkpoint = cp.id;
    Log("checkpoint " + std::to_string(cp.id) + ": " + std::to_string(rows) + " rows," +
            (committed.empty() ? std::string(" nothing committed") : " committed" + committed) +
            " (" + std::to_string(static_cast<int64_t>(ms)) + " ms)",
        /*per_checkpoint=*/true);
    return Status::OK();
  }

  // `fjord_job_table_snapshots` (expiration may have run in the commit).
  void CountSnapshots() {
    const SnapshotManager& snapshots = table_->store()->snapshots();
    auto earliest = snapshots.EarliestId();
    auto latest = snapshots.LatestId();
    if (earliest.ok() && latest.ok() && *earliest && *latest) {
      metrics_.table_snapshots = **latest - **earliest + 1;
    }
  }

  // The source's lag and the record rates, about once a second (source thread).
  void SampleSource() {
    auto now = Clock::now();
    double seconds = std::chrono::duration<double>(now - last_sample_).count();
    if (seconds < 1.0) return;
    std::vector<runtime::SourceLagMetric> lag = source_->Lag();
    int64_t in = metrics_.records_in.load();
    int64_t out = metrics_.records_out.load();
    std::lock_guard<std::mutex> lock(metrics_.mu);
    metrics_.source_lag = std::move(lag);
    metrics_.records_in_per_second = static_cast<double>(in - sampled_in_) / seconds;
    metrics_.records_out_per_second = static_cast<double>(out - sampled_out_) / seconds;
    sampled_in_ = in;
    sampled_out_ = out;
    last_sample_ = now;
  }

  // Sends the barrier of the next checkpoint (position: where the source stands now). A
  // dynamic-bucket table's hash index files of the keys assigned so far go into the checkpoint
  // here, beside what the writers will prepare.
  Status TriggerCheckpoint(bool final) {
    CommitMessages index;
    if (assigner_) {
      auto prepared = assigner_->PrepareCommit();
      if (!prepared.ok()) {
        return prepared.status().WithContext("checkpoint " + std::to_string(last_checkpoint_ + 1) +
                                             ": hash index");
      }
      index = std::move(*prepared);
    }
    WriterItem barrier;
    {
      std::lock_guard<std::mutex> lock(mu_);
      InFlight cp;
      cp.started = Clock::now();
      cp.id = ++last_checkpoint_;
      cp.position = source_->Position();
      cp.messages = std::move(index);
      if (final) final_checkpoint_ = cp.id;
      inflight_ = std::move(cp);
      barrier.barrier = inflight_->id;
      barrier.final = final;
    }
    for (auto& q : queues_) q->Push(barrier);
    return Status::OK();
  }

  // Routes a batch's rows to the writers' queues.
  Status Route(const std::shared_ptr<arrow::RecordBatch>& batch) {
    int n = spec_.pipeline.parallelism;
    // Dynamic buckets: every key is assigned here, before its barrier, even for one writer.
    if (unaware_ || (n == 1 && !assigner_)) {
      WriterItem item;
      item.batch = batch;
      queues_[static_cast<size_t>(next_writer_)]->Push(std::move(item));
      if (unaware_) next_writer_ = (next_writer_ + 1) % n;
      return Status::OK();
    }
    // The router reads the table's columns; a trailing _row_kind column is carried along.
    FJORD_ASSIGN_OR_RAISE(auto routes, runtime_router_->Route(*batch, assigner_.get()));
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(n));
    for (const auto& [pb, indices] : routes) {
      auto& target = rows[static_cast<size_t>(runtime::SelectChannel(pb.first, pb.second, n))];
      target.insert(target.end(), indices.begin(), indices.end());
    }
    for (int w = 0; w < n; ++w) {
      auto& indices = rows[static_cast<size_t>(w)];
      if (indices.empty()) continue;
      WriterItem item;
      if (indices.size() == static_cast<size_t>(batch->num_rows())) {
        item.batch = batch;
      } else {
        std::sort(indices.begin(), indices.end());  // keep the source's order
        arrow::Int64Builder builder;
        if (!builder.AppendValues(indices).ok()) return Status::Internal("cannot route rows");
        auto index_array = builder.Finish();
        if (!index_array.ok()) return Status::Internal("cannot route rows");
        auto taken = arrow::compute::Take(batch, *index_array);
        if (!taken.ok()) return Status::Internal("cannot route rows: ", taken.status().message());
        item.batch = taken->record_batch();
      }
      queues_[static_cast<size_t>(w)]->Push(std::move(item));
    }
    return Status::OK();
  }

  bool StopRequested() const { return options_.stop && options_.stop->load(); }

  Status SourceLoop() {
    auto interval = std::chrono::milliseconds(spec_.pipeline.checkpoint_interval_ms);
    auto next_checkpoint = Clock::now() + interval;
    while (true) {
      FJORD_RETURN_NOT_OK(Failure());
      Progress();
      SampleSource();
      bool idle = false;
      if (StopRequested()) break;
      FJORD_RETURN_NOT_OK(CheckTimeout());
      if (Clock::now() >= next_checkpoint && !Busy() && PauseOver()) {
        FJORD_RETURN_NOT_OK(TriggerCheckpoint(false));
        next_checkpoint = Clock::now() + interval;
      }
      bool end = false;
      FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch,
                            source_->Next(options_.bounded, &end));
      if (batch) {
        summary_.rows_read += batch->num_rows();
        metrics_.records_in += batch->num_rows();
        FJORD_RETURN_NOT_OK(Route(batch));
        if (source_delay_ms_ > 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(source_delay_ms_));
        }
      } else if (end) {
        break;
      } else {
        idle = true;
      }
      if (idle) {
        auto wait = std::chrono::milliseconds(source_->idle_wait_ms());
        auto until = std::min(Clock::now() + wait, next_checkpoint);
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_until(lock, until, [&] { return !failure_.ok() || StopRequested(); });
      }
    }
    // The final checkpoint: after the one in flight, a barrier behind every row read.
    WaitIdle();
    FJORD_RETURN_NOT_OK(Failure());
    FJORD_RETURN_NOT_OK(TriggerCheckpoint(true));
    WaitIdle();
    FJORD_RETURN_NOT_OK(Failure());
    Progress(/*force=*/true);
    Log("stopped after checkpoint " + std::to_string(summary_.last_checkpoint) + " (" +
        std::to_string(summary_.rows_read) + " rows read in this run)");
    return Status::OK();
  }

  bool Busy() {
    std::lock_guard<std::mutex> lock(mu_);
    return inflight_.has_value();
  }
  // `min-pause` since the end of the last checkpoint.
  bool PauseOver() {
    std::lock_guard<std::mutex> lock(mu_);
    return Clock::now() - last_checkpoint_end_ >=
           std::chrono::milliseconds(spec_.pipeline.min_pause_ms);
  }
  // A checkpoint in flight for longer than `checkpoint-timeout` fails the job (a restart
  // resumes at the last completed one), as Flink with no tolerable checkpoint failures.
  Status CheckTimeout() {
    std::lock_guard<std::mutex> lock(mu_);
    if (inflight_ && Clock::now() - inflight_->started >
                         std::chrono::milliseconds(spec_.pipeline.checkpoint_timeout_ms)) {
      if (failure_.ok()) {
        ++metrics_.checkpoints_failed;
        failure_ = Status::IOError("checkpoint ", inflight_->id, " timed out after ",
                                   spec_.pipeline.checkpoint_timeout_ms,
                                   " ms (pipeline.checkpoint-timeout)");
      }
      return failure_;
    }
    return Status::OK();
  }
  void WaitIdle() {
    std::unique_lock<std::mutex> lock(mu_);
    while (inflight_ && failure_.ok()) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (inflight_ && Clock::now() - inflight_->started >
                           std::chrono::milliseconds(spec_.pipeline.checkpoint_timeout_ms)) {
        ++metrics_.checkpoints_failed;
        failure_ = Status::IOError("checkpoint ", inflight_->id, " timed out after ",
                                   spec_.pipeline.checkpoint_timeout_ms,
                                   " ms (pipeline.checkpoint-timeout)");
      }
    }
  }

  JobSpec spec_;
  JobRunOptions options_;
  runtime::JobMetrics metrics_;
  std::unique_ptr<Table> table_;
  std::optional<RowRouter> runtime_router_;
  bool unaware_ = false;
  std::shared_ptr<runtime::SharedBucketAssigner> assigner_;  // dynamic-bucket tables
  WriteOptions write_options_;
  CommitOptions commit_options_;
  std::unique_ptr<runtime::Source> source_;
  std::unique_ptr<CheckpointStore> store_;
  std::string commit_user_;
  std::unique_ptr<TableCommit> committer_;  // used by the committer thread after Restore

  std::vector<std::unique_ptr<BoundedQueue<WriterItem>>> queues_;
  std::vector<std::unique_ptr<TableWrite>> writers_;
  std::vector<std::thread> threads_;
  std::thread committer_thread_;
  BoundedQueue<Ack> acks_{1024};
  int next_writer_ = 0;
  int commit_delay_ms_ = 0;
  int source_delay_ms_ = 0;
  runtime::MetricsServer server_;  // last: stopped before the rest goes

  std::mutex mu_;
  std::mutex log_mu_;
  std::condition_variable cv_;
  Status failure_;
  std::optional<InFlight> inflight_;
  int64_t last_checkpoint_ = 0;
  int64_t final_checkpoint_ = -1;
  Clock::time_point last_checkpoint_end_;
  Clock::time_point last_progress_;
  Clock::time_point last_sample_ = Clock::now();
  int64_t sampled_in_ = 0;
  int64_t sampled_out_ = 0;
  std::vector<PendingCommit> pending_;  // the committer thread's
  int consecutive_commit_failures_ = 0;
  int consecutive_checkpoint_failures_ = 0;
  JobRunSummary summary_;
};

}  // namespace

Result<JobRunSummary> RunJob(const std::string& job_file, const JobRunOptions& options) {
  FJORD_ASSIGN_OR_RAISE(JobSpec spec, runtime::LoadJobSpec(job_file));
  Job job(std::move(spec), options);
  return job.Run();
}

Status CheckJob(const std::string& job_file) {
  FJORD_ASSIGN_OR_RAISE(JobSpec spec, runtime::LoadJobSpec(job_file));
  Job job(std::move(spec), JobRunOptions{});
  return job.Prepare();
}

}  // namespace fjord
