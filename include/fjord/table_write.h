// Writing rows into a table: ONE interface for append and primary-key tables (as paimon-cpp's
// FileStoreWrite). Rows go in as Arrow C Data batches; PrepareCommit flushes what was written
// into data files and returns the commit messages that a TableCommit makes visible (two-phase
// commit: messages may be serialised, sent elsewhere and committed there).
//
// Rows are routed to (partition, bucket) exactly as Java Paimon routes them. Primary-key tables
// buffer rows in `write-buffer-size` of memory (spilling sorted runs to local disk) and merge
// them with the table's merge engine; unless `write-only`, the writer compacts as Java's does.
//
// Thread safety: a TableWrite is not thread-safe; use one per thread. Several writers (in one
// process or many) may write to the same table at once, as long as each (partition, bucket) of
// a primary-key table has one writer.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/arrow_c.h"
#include "fjord/result.h"
#include "fjord/table_stats.h"

namespace fjord {

struct CommitMessage;

// The identifier of a one-off batch commit (Java's BatchWriteBuilder.COMMIT_IDENTIFIER).
inline constexpr int64_t kBatchCommitIdentifier = std::numeric_limits<int64_t>::max();

// The optional column of a batch that gives each row's kind: int8 0..3 or the strings "+I",
// "-U", "+U", "-D". Without it rows are +I (or take their kind from `rowkind.field`).
inline constexpr const char* kRowKindColumn = "_row_kind";

struct WriteOptions {
  // Options overriding the table's for this writer only (Paimon's dynamic options), e.g.
  // `write-only` or `write-buffer-size`. Keys the registry does not know are refused.
  std::map<std::string, std::string> dynamic_options;
  // Local directory for spill files; empty: a fresh directory under the system temp directory.
  std::string spill_dir;
  // The rows will be committed as an overwrite (TableCommit::Overwrite): files already in the
  // table take no part in compaction and their bucket count is not checked, since they are
  // about to be replaced (Java's ignorePreviousFiles); primary-key writers start their sequence
  // numbers at 0, as Java's do.
  bool for_overwrite = false;
  // Buckets (and partitions) are written on up to this many threads at once: primary-key
  // tables sort, flush and compact them in parallel, append tables encode, finish and compact
  // them in parallel (0: one per core; 1: the caller does the work, primary-key tables compact
  // on one background thread, as Java's writer). A bucket's rows keep their order whatever the
  // number; a single bucket is written by one thread.
  int threads = 0;
};

// What a writer has done so far.
struct WriteMetrics {
  int64_t records_written = 0;  // accepted by Write
  int64_t records_dropped = 0;  // by ignore-delete / ignore-update-before
  int64_t files_written = 0;
  int64_t spills = 0;
  int64_t compactions = 0;
  int64_t compaction_bytes_in = 0;
  int64_t compaction_bytes_out = 0;
  int64_t compaction_millis = 0;  // time the compactions took (on the compaction thread)
  // Write stalls: times a flush or PrepareCommit had to wait for a running compaction (too many
  // sorted runs, `commit.force-compact`, lookup tables), and the time spent waiting.
  int64_t compaction_waits = 0;
  int64_t compaction_wait_millis = 0;
};

// The commit messages of one PrepareCommit (or several, appended): one per (partition, bucket)
// written, each with its new data files and the before/after files of its compactions. A value
// type; copies share the (immutable) messages.
class CommitMessages {
 public:
  CommitMessages();
  ~CommitMessages();
  CommitMessages(const CommitMessages&);
  CommitMessages& operator=(const CommitMessages&);

  // Versioned, checksummed bytes (docs/storage.md); Deserialize refuses truncated, damaged or
  // foreign input with an error naming `source`.
  Result<std::string> Serialize() const;
  static Result<CommitMessages> Deserialize(std::string_view bytes, std::string_view source);

  // Adds the messages of `other` (e.g. of several writers, committed as one snapshot).
  void Append(const CommitMessages& other);
  size_t size() const;
  bool empty() const { return size() == 0; }
  // Rows and files in the new data files (not counting compaction output).
  int64_t new_row_count() const;
  int64_t new_file_count() const;

  // For Fjord's own layers.
  explicit CommitMessages(std::vector<CommitMessage> messages);
  const std::vector<CommitMessage>& messages() const;

 private:
  std::shared_ptr<const std::vector<CommitMessage>> messages_;
};

class TableWrite {
 public:
  virtual ~TableWrite() = default;

  // Writes one batch: a struct array whose children are the table's columns (matched by name;
  // missing nullable columns are NULL) and optionally kRowKindColumn. Both `schema` and `array`
  // are released by the call, whether it succeeds or not. The batch is accepted or refused whole:
  // a NULL in a NOT NULL column, a value that does not fit its column, a row kind other than +I
  // in an append table are Invalid, naming the column and row, and nothing of the batch is kept.
  virtual Status Write(struct ArrowSchema* schema, struct ArrowArray* array) = 0;
  // Writes every batch of `stream`, then releases it. Stops at the first refused batch (the ones
  // before it are kept, as separate Write calls would).
  virtual Status Write(struct ArrowArrayStream* stream) = 0;

  // Flushes everything written into data files and returns their commit messages, to be
  // committed under `commit_identifier` (a checkpoint id; kBatchCommitIdentifier for a one-off
  // batch). With `wait_compaction` running compactions are waited for (batch writes); otherwise a
  // compaction still running is picked up by a later PrepareCommit. The writer can be used again
  // afterwards, assuming the messages get committed. After an error the writer must be discarded.
  // A writer destroyed deletes the files it wrote that no PrepareCommit returned (flushed data and
  // changelog files, compaction outputs, deletion-vector index files), as Java's writer close;
  // files of messages returned and never committed are the caller's (TableCommit::Abort).
  virtual Result<CommitMessages> PrepareCommit(int64_t commit_identifier = kBatchCommitIdentifier,
                                               bool wait_compaction = true) = 0;

  virtual WriteMetrics metrics() const = 0;
  // Primary-key tables: every (partition, bucket) this writer holds, its LSM tree as the writer
  // sees it (committed files, new files, finished compactions: `lsm` with level-0 files, sorted
  // runs, backlog) and its compactions so far; `files` counts the tree's files, `rows` stays 0.
  // Empty for append tables. In (partition, bucket) order.
  virtual std::vector<BucketStats> bucket_metrics() const = 0;
};

}  // namespace fjord
