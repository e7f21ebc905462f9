// RunJob: the topology of a streaming job (docs/streaming.md). One source thread (the caller's)
// reads batches, routes their rows by (partition, bucket) to `parallelism` writer threads through
// bounded queues and, every checkpoint interval, sends a barrier with the checkpoint id down every
// queue after the rows read so far. A writer meeting a barrier prepares its commit
// (PrepareCommit(checkpoint id)) and hands the messages to the committer thread, which, once every
// writer has answered, persists the checkpoint (id, commit user, source position at the barrier,
// every committable not yet committed) and then commits the committables in order, each with
// identifier = its checkpoint id. One checkpoint at a time.
//
// A job writes one table, or (CDC jobs, docs/cdc.md) many: each writer thread keeps a TableWrite
// per table it got rows of, a checkpoint holds the committables of every table and commits them
// table by table with the same identifier. A CDC job creates tables as their first records
// arrive and, before changing a table's schema, takes a checkpoint at the position before the
// records that need the change and waits for its commit; then the writers of that table reopen
// with the new schema.

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
#include "fjord/runtime/cdc_rows.h"
#include "fjord/runtime/cdc_source.h"
#include "fjord/runtime/cdc_tables.h"
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

// One table of the job: "" for the table of a plain job, "database.table" in CDC jobs.
struct SinkTable {
  std::string name;
  std::shared_ptr<Table> table;
  std::optional<RowRouter> router;
  bool unaware = false;                                     // bucket-unaware append table
  std::shared_ptr<runtime::SharedBucketAssigner> assigner;  // dynamic-bucket tables
  std::unique_ptr<TableCommit> committer;  // the committer thread's (and Restore's)
  int generation = 0;                      // bumped when its schema changed: writers reopen
};

struct WriterItem {
  SinkTable* sink = nullptr;  // the table of `batch`, or the one to `drop`
  std::shared_ptr<Table> table;
  std::shared_ptr<runtime::SharedBucketAssigner> assigner;
  int generation = 0;
  std::shared_ptr<arrow::RecordBatch> batch;
  int64_t barrier = 0;  // > 0: a checkpoint barrier
  bool final = false;   // the last checkpoint of the run: wait for running compactions
  bool drop = false;    // the table's schema changed: close its writer (all is committed)
  bool stop = false;
};

using TableMessages = std::map<std::string, CommitMessages>;

struct Ack {
  int64_t checkpoint = 0;
  Status status;
  TableMessages messages;
  bool stop = false;  // tells the committer to end
};

// A checkpoint between its barrier and its commit.
struct InFlight {
  Clock::time_point started;
  int64_t id = 0;
  std::string position;
  int acks = 0;
  TableMessages messages;
};

WriteMetrics Add(WriteMetrics a, const WriteMetrics& b) {
  a.records_written += b.records_written;
  a.records_dropped += b.records_dropped;
  a.files_written += b.files_written;
  a.spills += b.spills;
  a.compactions += b.compactions;
  a.compaction_bytes_in += b.compaction_bytes_in;
  a.compaction_bytes_out += b.compaction_bytes_out;
  a.compaction_millis += b.compaction_millis;
  a.compaction_waits += b.compaction_waits;
  a.compaction_wait_millis += b.compaction_wait_millis;
  return a;
}

int64_t NewRows(const TableMessages& messages) {
  int64_t rows = 0;
  for (const auto& [name, m] : messages) rows += m.new_row_count();
  return rows;
}

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
    write_options_.dynamic_options = spec_.sink.options;
    // The job's writer threads already spread the buckets (`parallelism`): each writer works on
    // its own thread with one compaction thread, as a Flink subtask.
    write_options_.threads = 1;
    commit_options_.dynamic_options = spec_.sink.options;
    commit_options_.ignore_empty_commit = false;  // a snapshot per checkpoint, as Flink
    commit_options_.check_committed = true;
    // A commit kept pending after only its APPEND snapshot landed gets its COMPACT snapshot at
    // the retry: the writers live on and build on that compaction (docs/streaming.md).
    commit_options_.complete_compaction = true;
    if (spec_.cdc()) {
      FJORD_ASSIGN_OR_RAISE(tables_, runtime::CdcTables::Make(spec_));
      FJORD_ASSIGN_OR_RAISE(cdc_source_, runtime::MakeCdcSource(spec_));
      cut_ = [this](const cdc::CdcRecord& record) { return Cut(record); };
    } else {
      FJORD_ASSIGN_OR_RAISE(std::unique_ptr<SinkTable> sink, OpenSink("", spec_.sink.table));
      FJORD_ASSIGN_OR_RAISE(source_,
                            runtime::MakeSource(spec_.source, sink->table->store()->schema()));
      AddSink(std::move(sink));
    }
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

  // Opens table `name` at `path` with the job's writer options: its routing, its bucket
  // assigner, and (once the commit user is known) its committer. Options the writers refuse fail
  // here, before anything runs.
  Result<std::unique_ptr<SinkTable>> OpenSink(const std::string& name, const std::string& path) {
    auto table = Table::Open(path);
    if (table.ok() && std::getenv("FJORD_TEST_FAULT_RATE")) {
      table = Table::Open(path, runtime::MaybeInjectFaults((*table)->io()));
    }
    std::string what = name.empty() ? spec_.file + ": sink.table" : spec_.file + ": table " + name;
    if (!table.ok()) return table.status().WithContext(what);
    auto sink = std::make_unique<SinkTable>();
    sink->name = name;
    sink->table = std::move(*table);
    const FileStoreTable& store = *sink->table->store();
    // Routing and bucket assignment see the table with the sink's options, as the writers do.
    auto effective = store.WithDynamicOptions(spec_.sink.options);
    if (!effective.ok()) return effective.status().WithContext(spec_.file + ": sink.options");
    auto router = RowRouter::Make((*effective)->schema(), (*effective)->core_options());
    if (!router.ok()) return router.status().WithContext(what);
    sink->router = std::move(*router);
    if (sink->router->dynamic()) {
      FJORD_ASSIGN_OR_RAISE(sink->assigner, runtime::SharedBucketAssigner::Make(**effective));
    }
    sink->unaware = sink->router->total_buckets() < 0 && !sink->router->dynamic();
    FJORD_RETURN_NOT_OK(sink->table->NewWrite(write_options_).status().WithContext(what));
    if (!commit_user_.empty()) {
      FJORD_ASSIGN_OR_RAISE(sink->committer, sink->table->NewCommit(commit_user_, commit_options_));
    }
    return sink;
  }

  SinkTable* AddSink(std::unique_ptr<SinkTable> sink) {
    std::lock_guard<std::mutex> lock(sinks_mu_);
    SinkTable* raw = sink.get();
    by_name_[sink->name] = raw;
    sinks_.push_back(std::move(sink));
    return raw;
  }

  SinkTable* FindSink(const std::string& name) {
    std::lock_guard<std::mutex> lock(sinks_mu_);
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }

  // The job's table `name`, opened when the job has not written it yet (CDC jobs).
  Result<SinkTable*> GetSink(const std::string& name) {
    if (SinkTable* sink = FindSink(name)) return sink;
    if (!tables_)
      return Status::Invalid("state-dir ", spec_.pipeline.state_dir, " has committables of table '",
                             name, "', not of this job's table");
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<SinkTable> sink,
                          OpenSink(name, tables_->TablePath(name)));
    return AddSink(std::move(sink));
  }

  // After ALTER TABLE: the table's new schema for routing, committing and the writers, which
  // close their writer of it (everything of it is committed: SyncCheckpoint) and open a new one
  // with its next rows.
  Status ReopenSink(const std::string& name) {
    SinkTable* sink = FindSink(name);
    if (!sink) return Status::OK();  // not written in this run
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<SinkTable> fresh,
                          OpenSink(name, tables_->TablePath(name)));
    {
      std::lock_guard<std::mutex> lock(sinks_mu_);
      sink->table = std::move(fresh->table);
      sink->router = std::move(fresh->router);
      sink->assigner = std::move(fresh->assigner);
      sink->unaware = fresh->unaware;
      sink->committer = std::move(fresh->committer);
      ++sink->generation;
    }
    for (auto& q : queues_) {
      WriterItem drop;
      drop.sink = sink;
      drop.drop = true;
      q->Push(std::move(drop));
    }
    return Status::OK();
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

  // Where a job without checkpoints resumes: the latest snapshot of the job among its tables.
  Result<std::optional<runtime::TableResume>> FindResume() {
    std::vector<SinkTable*> candidates;
    if (tables_) {
      FJORD_ASSIGN_OR_RAISE(std::vector<std::string> names, tables_->ExistingTables());
      for (const std::string& name : names) {
        FJORD_ASSIGN_OR_RAISE(SinkTable * sink, GetSink(name));
        candidates.push_back(sink);
      }
    } else {
      candidates.push_back(sinks_.front().get());
    }
    std::optional<runtime::TableResume> best;
    for (SinkTable* sink : candidates) {
      FJORD_ASSIGN_OR_RAISE(std::optional<runtime::TableResume> resume,
                            runtime::FindResumeInTable(*sink->table->store(), spec_.pipeline.name));
      if (resume && (!best || resume->checkpoint_id > best->checkpoint_id)) best = resume;
    }
    return best;
  }

  // The latest checkpoint's committables re-committed, then the source sought.
  Status Restore() {
    FJORD_RETURN_NOT_OK(store_->Init());
    FJORD_ASSIGN_OR_RAISE(std::optional<CheckpointState> latest, store_->LoadLatest());
    FJORD_ASSIGN_OR_RAISE(std::optional<std::string> stored_user, store_->StoredCommitUser());
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
      // No checkpoint: the job's latest snapshot, if a table has one, says where it stands
      // (also when only the checkpoints were lost and the commit user is still there).
      FJORD_ASSIGN_OR_RAISE(std::optional<runtime::TableResume> resume, FindResume());
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
    for (auto& sink : sinks_) {
      FJORD_ASSIGN_OR_RAISE(sink->committer, sink->table->NewCommit(commit_user_, commit_options_));
    }
    if (latest) FJORD_RETURN_NOT_OK(RecommitPending(*latest));
    summary_.last_checkpoint = last_checkpoint_;
    return tables_ ? cdc_source_->Seek(position) : source_->Seek(position);
  }

  // The committables of the latest checkpoint that no table holds yet, committed now (Java's
  // filter-committed rule per table, with the state directory's `committed` marker for a table
  // whose snapshots of this user have all expired).
  Status RecommitPending(const CheckpointState& latest) {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> marked, store_->LoadCommitted());
    if (marked && *marked > latest.checkpoint_id) {
      return Status::Corruption("state-dir ", spec_.pipeline.state_dir, ": committed marks ",
                                "checkpoint ", *marked, " beyond the latest checkpoint ",
                                latest.checkpoint_id);
    }
    std::map<std::string, std::optional<runtime::UserCommit>> latest_of;
    std::string source = store_->CheckpointPath(latest.checkpoint_id);
    for (const PendingCommit& p : latest.pending) {
      bool any_new = false;
      for (const auto& [name, bytes] : p.tables) {
        FJORD_ASSIGN_OR_RAISE(SinkTable * sink, GetSink(name));
        const FileStoreTable& store = *sink->table->store();
        if (!latest_of.count(name)) {
          FJORD_ASSIGN_OR_RAISE(std::optional<runtime::UserCommit> mine,
                                runtime::LatestCommitOfUser(store, commit_user_));
          if (mine && mine->identifier > latest.checkpoint_id) {
            // An older copy of the state directory: its position is before rows committed.
            return Status::Invalid(
                "state-dir ", spec_.pipeline.state_dir, " is stale: its latest checkpoint is ",
                latest.checkpoint_id, " but table ", name.empty() ? spec_.sink.table : name,
                " holds checkpoint ", mine->identifier,
                " of this job; empty the state directory to resume from the table alone");
          }
          latest_of[name] = mine;
        }
        const std::optional<runtime::UserCommit>& mine = latest_of[name];
        // Committed whole: up to the `committed` marker (written after whole checkpoints), and
        // below the identifier of the user's latest snapshot in the table.
        if ((marked && p.checkpoint_id <= *marked) ||
            (mine && p.checkpoint_id < mine->identifier)) {
          continue;
        }
        FJORD_ASSIGN_OR_RAISE(CommitMessages messages, CommitMessages::Deserialize(bytes, source));
        // The checkpoint of the user's latest snapshot: its APPEND snapshot landed; when that is
        // the latest and the checkpoint compacted, its COMPACT snapshot is still missing and is
        // committed now (the checkpoints after it were prepared on top of that compaction).
        bool partial = mine && p.checkpoint_id == mine->identifier;
        if (partial && (mine->compact || !runtime::HasCompaction(messages))) continue;
        FJORD_RETURN_NOT_OK(runtime::CheckFilesExist(store, messages, source, partial));
        sink->committer->SetSnapshotProperties(Properties(p.checkpoint_id, p.source_position));
        FJORD_ASSIGN_OR_RAISE(CommitResult r, sink->committer->Commit(messages, p.checkpoint_id));
        if (!r.already_committed) {
          any_new = true;
          ++metrics_.recommitted;
        }
      }
      if (any_new) {
        ++summary_.recommitted;
      } else {
        ++summary_.already_committed;
      }
    }
    if (!latest.pending.empty()) {
      FJORD_RETURN_NOT_OK(store_->MarkCommitted(latest.pending.back().checkpoint_id));
    }
    Log("restored checkpoint " + std::to_string(latest.checkpoint_id) + " (" +
        std::to_string(latest.pending.size()) +
        " pending: " + std::to_string(summary_.recommitted) + " re-committed, " +
        std::to_string(summary_.already_committed) + " already committed)");
    return Status::OK();
  }

  Status StartThreads() {
    int n = spec_.pipeline.parallelism;
    initial_writes_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      queues_.push_back(std::make_unique<BoundedQueue<WriterItem>>(
          static_cast<size_t>(spec_.pipeline.queue_batches)));
      if (!tables_) {
        // A plain job's writers all hold a writer of its table from the start: each checkpoint
        // commits it, rows or not (a snapshot per checkpoint, as Flink).
        SinkTable* sink = sinks_.front().get();
        FJORD_ASSIGN_OR_RAISE(initial_writes_[static_cast<size_t>(i)],
                              api::NewTableWrite(*sink->table, write_options_, sink->assigner));
      }
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
    Status st;
    for (auto& sink : sinks_) {
      if (!sink->committer) continue;
      Status closed = sink->committer->Close();
      if (st.ok()) st = closed;
    }
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
    struct Open {
      int generation = 0;
      std::unique_ptr<TableWrite> write;
    };
    std::map<SinkTable*, Open> writes;  // the tables this writer got rows of
    if (!tables_) {
      writes[sinks_.front().get()].write = std::move(initial_writes_[static_cast<size_t>(index)]);
    }
    bool failed = false;
    while (true) {
      WriterItem item = queues_[static_cast<size_t>(index)]->Pop();
      if (item.stop) return;
      if (failed) continue;  // drain, so that the source never blocks on a dead writer
      if (item.drop) {
        writes.erase(item.sink);
        continue;
      }
      if (item.batch) {
        Open& open = writes[item.sink];
        Status st;
        if (!open.write || open.generation != item.generation) {
          auto made = api::NewTableWrite(*item.table, write_options_, item.assigner);
          if (made.ok()) {
            open.write = std::move(*made);
            open.generation = item.generation;
          } else {
            st = made.status();
          }
        }
        struct ArrowArray array;
        struct ArrowSchema schema;
        if (st.ok()) st = FromArrowStatus(arrow::ExportRecordBatch(*item.batch, &array, &schema));
        if (st.ok()) st = open.write->Write(&schema, &array);
        if (!st.ok()) {
          failed = true;
          Fail(st);
        }
        continue;
      }
      Ack ack;
      ack.checkpoint = item.barrier;
      std::vector<BucketStats> buckets;
      WriteMetrics totals;
      for (auto& [sink, open] : writes) {
        auto messages = open.write->PrepareCommit(item.barrier, /*wait_compaction=*/item.final);
        if (!messages.ok()) {
          ack.status = messages.status();
          failed = true;
          break;
        }
        ack.messages[sink->name].Append(*messages);
        std::vector<BucketStats> mine = open.write->bucket_metrics();
        buckets.insert(buckets.end(), mine.begin(), mine.end());
        totals = Add(totals, open.write->metrics());
      }
      if (ack.status.ok()) {
        std::lock_guard<std::mutex> lock(metrics_.mu);
        metrics_.writer_buckets[static_cast<size_t>(index)] = std::move(buckets);
        metrics_.writer_metrics[static_cast<size_t>(index)] = totals;
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
        for (const auto& [name, messages] : ack.messages) {
          inflight_->messages[name].Append(messages);
        }
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
    PendingCommit mine;
    mine.checkpoint_id = cp.id;
    mine.source_position = cp.position;
    for (const auto& [name, messages] : cp.messages) {
      // A plain job commits its table at every checkpoint; a CDC job the tables with changes.
      if (tables_ && messages.empty()) continue;
      FJORD_ASSIGN_OR_RAISE(mine.tables[name], messages.Serialize());
    }
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
    int64_t rows = NewRows(cp.messages);
    std::string committed;
    int64_t last_committed = 0;
    while (!pending_.empty()) {
      const PendingCommit& p = pending_.front();
      Status failed;
      size_t tables_done = 0;
      for (const auto& [name, bytes] : p.tables) {
        CommitMessages messages;
        if (p.checkpoint_id == cp.id) {
          messages = cp.messages[name];
        } else {
          FJORD_ASSIGN_OR_RAISE(messages, CommitMessages::Deserialize(bytes, "pending commit"));
        }
        SinkTable* sink = FindSink(name);
        if (!sink) return Status::Internal("checkpoint ", p.checkpoint_id, ": no table ", name);
        sink->committer->SetSnapshotProperties(Properties(p.checkpoint_id, p.source_position));
        auto commit_started = Clock::now();
        // A table committed before a failure of another is found committed when retried.
        auto result = sink->committer->Commit(messages, p.checkpoint_id);
        metrics_.commit_micros_sum +=
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - commit_started)
                .count();
        ++metrics_.commits;
        if (!result.ok()) {
          failed = result.status();
          if (!name.empty()) failed = failed.WithContext("table " + name);
          break;
        }
        if (result->snapshot_id) {
          committed += (name.empty() ? "" : " " + name) + " snapshot " +
                       std::to_string(*result->snapshot_id);
          metrics_.latest_snapshot = *result->snapshot_id;
          CountSnapshots(*sink);
        }
        metrics_.records_out += messages.new_row_count();
        if (++tables_done == 1 && p.tables.size() > 1) {
          // Test hook: a crash between the commits of one checkpoint's tables.
          std::vector<std::string> left;
          for (const auto& [other, unused] : p.tables) {
            if (other != name) left.push_back(other);
          }
          runtime::MaybeCrashBetweenTableCommits(p.checkpoint_id, name, left);
        }
      }
      if (!failed.ok()) {
        ++metrics_.commit_failures;
        std::lock_guard<std::mutex> lock(mu_);
        ++summary_.commit_failures;
        Log("checkpoint " + std::to_string(p.checkpoint_id) +
            ": commit failed, kept pending: " + failed.ToString());
        if (final_checkpoint_ == cp.id || ++consecutive_commit_failures_ >= kMaxCommitFailures) {
          return failed.WithContext("checkpoint " + std::to_string(p.checkpoint_id) +
                                    " could not be committed");
        }
        break;
      }
      consecutive_commit_failures_ = 0;
      if (tables_) {
        cdc_source_->Committed(p.source_position);
      } else {
        source_->Committed(p.source_position);
      }
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
  void CountSnapshots(const SinkTable& sink) {
    const SnapshotManager& snapshots = sink.table->store()->snapshots();
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
    std::vector<runtime::SourceLagMetric> lag = tables_ ? cdc_source_->Lag() : source_->Lag();
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

  // Sends the barrier of the next checkpoint (position: where the source stands now, or
  // `position`). A dynamic-bucket table's hash index files of the keys assigned so far go into
  // the checkpoint here, beside what the writers will prepare. `wait`: the writers wait for their
  // running compactions and a failure of this checkpoint fails the run (the final checkpoint,
  // and the one before a schema change).
  Status TriggerCheckpoint(bool wait, const std::string* position = nullptr) {
    TableMessages index;
    for (auto& sink : sinks_) {
      if (!sink->assigner) continue;
      auto prepared = sink->assigner->PrepareCommit();
      if (!prepared.ok()) {
        return prepared.status().WithContext("checkpoint " + std::to_string(last_checkpoint_ + 1) +
                                             ": hash index");
      }
      index[sink->name].Append(*prepared);
    }
    WriterItem barrier;
    {
      std::lock_guard<std::mutex> lock(mu_);
      InFlight cp;
      cp.started = Clock::now();
      cp.id = ++last_checkpoint_;
      cp.position = position ? *position : SourcePosition();
      cp.messages = std::move(index);
      if (wait) final_checkpoint_ = cp.id;
      inflight_ = std::move(cp);
      barrier.barrier = inflight_->id;
      barrier.final = wait;
    }
    for (auto& q : queues_) q->Push(barrier);
    return Status::OK();
  }

  std::string SourcePosition() const {
    return tables_ ? cdc_source_->Position() : source_->Position();
  }

  // Routes a batch's rows of `sink` to the writers' queues.
  Status Route(SinkTable* sink, const std::shared_ptr<arrow::RecordBatch>& batch) {
    int n = spec_.pipeline.parallelism;
    auto item_of = [&](std::shared_ptr<arrow::RecordBatch> rows) {
      WriterItem item;
      item.sink = sink;
      item.table = sink->table;
      item.assigner = sink->assigner;
      item.generation = sink->generation;
      item.batch = std::move(rows);
      return item;
    };
    // Dynamic buckets: every key is assigned here, before its barrier, even for one writer.
    if (sink->unaware || (n == 1 && !sink->assigner)) {
      queues_[static_cast<size_t>(next_writer_)]->Push(item_of(batch));
      if (sink->unaware) next_writer_ = (next_writer_ + 1) % n;
      return Status::OK();
    }
    // The router reads the table's columns; a trailing _row_kind column is carried along.
    FJORD_ASSIGN_OR_RAISE(auto routes, sink->router->Route(*batch, sink->assigner.get()));
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(n));
    for (const auto& [pb, indices] : routes) {
      auto& target = rows[static_cast<size_t>(runtime::SelectChannel(pb.first, pb.second, n))];
      target.insert(target.end(), indices.begin(), indices.end());
    }
    for (int w = 0; w < n; ++w) {
      auto& indices = rows[static_cast<size_t>(w)];
      if (indices.empty()) continue;
      std::shared_ptr<arrow::RecordBatch> part;
      if (indices.size() == static_cast<size_t>(batch->num_rows())) {
        part = batch;
      } else {
        std::sort(indices.begin(), indices.end());  // keep the source's order
        arrow::Int64Builder builder;
        if (!builder.AppendValues(indices).ok()) return Status::Internal("cannot route rows");
        auto index_array = builder.Finish();
        if (!index_array.ok()) return Status::Internal("cannot route rows");
        auto taken = arrow::compute::Take(batch, *index_array);
        if (!taken.ok()) return Status::Internal("cannot route rows: ", taken.status().message());
        part = taken->record_batch();
      }
      queues_[static_cast<size_t>(w)]->Push(item_of(std::move(part)));
    }
    return Status::OK();
  }

  // A plain job's next batch to the writers. False when the source had nothing now.
  Result<bool> StepRows(bool* end) {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch,
                          source_->Next(options_.bounded, end));
    if (!batch) return false;
    summary_.rows_read += batch->num_rows();
    metrics_.records_in += batch->num_rows();
    FJORD_RETURN_NOT_OK(Route(sinks_.front().get(), batch));
    return true;
  }

  // CDC: asked by the source of every record before it joins a batch; true makes the record's
  // message start a batch (its table must be created or changed first). Errors surface when the
  // record is taken.
  bool Cut(const cdc::CdcRecord& record) {
    auto target = tables_->Target(record);
    if (!target.ok()) return true;
    if (!*target) return false;
    auto needs = tables_->NeedsChange(**target, record, &cdc_log_);
    return !needs.ok() || *needs;
  }

  void FlushCdcLog() {
    for (const std::string& line : cdc_log_) Log(line);
    cdc_log_.clear();
    const runtime::CdcTableEvents& events = tables_->events();
    metrics_.cdc_tables_created = events.created;
    metrics_.cdc_schema_changes = events.altered;
    metrics_.cdc_schema_changes_ignored = events.ignored;
    metrics_.cdc_columns_missing = events.missing;
    metrics_.cdc_records_excluded = events.excluded;
  }

  // A CDC job's next records: tables created or changed first (the records asking it open the
  // batch: Cut), then each table's rows to the writers. False when the source had nothing now.
  Result<bool> StepCdc(bool* end) {
    std::vector<cdc::CdcRecord> records;
    std::string before = cdc_source_->Position();
    Status read = cdc_source_->Next(options_.bounded, static_cast<size_t>(spec_.source.batch_rows),
                                    cut_, &records, end);
    FlushCdcLog();
    FJORD_RETURN_NOT_OK(read);
    if (records.empty()) return false;
    summary_.rows_read += static_cast<int64_t>(records.size());
    metrics_.records_in += static_cast<int64_t>(records.size());
    std::vector<std::string> targets(records.size());
    bool synced = false;
    for (size_t i = 0; i < records.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(std::optional<std::string> target,
                            tables_->Route(records[i], &cdc_log_));
      if (!target) continue;
      targets[i] = *target;
      FJORD_ASSIGN_OR_RAISE(bool change, tables_->NeedsChange(*target, records[i], &cdc_log_));
      if (!change) continue;
      FJORD_ASSIGN_OR_RAISE(bool exists, tables_->Exists(*target));
      if (exists && !synced) {
        // Everything before these records committed, so that the table's writers can reopen
        // with the new schema (a crash after the ALTER resumes here and finds it done).
        FJORD_RETURN_NOT_OK(SyncCheckpoint(before));
        synced = true;
      }
      auto altered = tables_->Apply(*target, records[i], &cdc_log_);
      FlushCdcLog();
      FJORD_RETURN_NOT_OK(altered.status());
      if (*altered) FJORD_RETURN_NOT_OK(ReopenSink(*target));
    }
    // Each table's records as one batch, in the order of the stream.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const cdc::CdcRecord*>> by_table;
    for (size_t i = 0; i < records.size(); ++i) {
      if (targets[i].empty()) continue;
      FJORD_RETURN_NOT_OK(tables_->Compute(targets[i], &records[i]));
      auto& list = by_table[targets[i]];
      if (list.empty()) order.push_back(targets[i]);
      list.push_back(&records[i]);
    }
    for (const std::string& name : order) {
      FJORD_ASSIGN_OR_RAISE(SinkTable * sink, GetSink(name));
      FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch,
                            runtime::RecordsToBatch(sink->table->schema(), by_table[name]));
      FJORD_RETURN_NOT_OK(Route(sink, batch));
    }
    return true;
  }

  // A checkpoint at `position` (before records that change a table), waited for and committed.
  Status SyncCheckpoint(const std::string& position) {
    WaitIdle();
    FJORD_RETURN_NOT_OK(Failure());
    FJORD_RETURN_NOT_OK(TriggerCheckpoint(/*wait=*/true, &position));
    WaitIdle();
    FJORD_RETURN_NOT_OK(Failure());
    if (metrics_.pending_committables.load() != 0) {
      return Status::IOError("checkpoint ", last_checkpoint_,
                             " before a schema change was not committed; a restart retries it");
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
      FJORD_ASSIGN_OR_RAISE(bool read, tables_ ? StepCdc(&end) : StepRows(&end));
      if (read) {
        if (source_delay_ms_ > 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(source_delay_ms_));
        }
      } else if (end) {
        break;
      } else {
        idle = true;
      }
      if (idle) {
        auto wait = std::chrono::milliseconds(tables_ ? cdc_source_->idle_wait_ms()
                                                      : source_->idle_wait_ms());
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
  // The job's tables; the source thread adds them, the committer thread looks them up.
  std::mutex sinks_mu_;
  std::vector<std::unique_ptr<SinkTable>> sinks_;
  std::map<std::string, SinkTable*> by_name_;
  std::vector<std::unique_ptr<TableWrite>> initial_writes_;  // a plain job's, per writer
  WriteOptions write_options_;
  CommitOptions commit_options_;
  std::unique_ptr<runtime::Source> source_;  // a plain job's
  // CDC jobs: the source of change records, the tables and the batch cut.
  std::unique_ptr<runtime::CdcSource> cdc_source_;
  std::unique_ptr<runtime::CdcTables> tables_;
  runtime::CdcCut cut_;
  std::vector<std::string> cdc_log_;
  std::unique_ptr<CheckpointStore> store_;
  std::string commit_user_;

  std::vector<std::unique_ptr<BoundedQueue<WriterItem>>> queues_;
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
