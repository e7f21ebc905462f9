// Streaming reads: a StreamReader plans the table's changes step by step, as Java Paimon's
// StreamTableScan and Flink's streaming source do. The first step is the starting read that
// `scan.mode` asks for (by default a full read of the latest snapshot); each later step is the
// changes of one snapshot: the files an APPEND snapshot added (changelog-producer none) or the
// snapshot's changelog files (input, lookup, full-compaction). Every batch starts with the column
// `_row_kind` ("+I", "-U", "+U", "-D"), then the selected columns. docs/reading.md, "Streaming".
//
//   auto stream = table->NewRead().Select({"id", "v"}).OpenStreaming();
//   while (true) {
//     auto step = (*stream)->NextStep();          // plans; reads no rows yet
//     if (step->kind == StreamStep::Kind::kEnd) break;
//     if (step->kind == StreamStep::Kind::kWait) { sleep(discovery interval); continue; }
//     ArrowArray batch;
//     while ((*stream)->Next(&batch).ok() && batch.release) { ...; batch.release(&batch); }
//     (*stream)->CommitProgress();                 // consumer-id: everything so far is done
//   }
//
// Thread safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/arrow_c.h"
#include "fjord/result.h"
#include "fjord/schema.h"

namespace fjord {

struct StreamStep {
  enum class Kind : unsigned char {
    kChanges,  // rows to read with Next(): the starting read or one snapshot's changes
    kWait,     // no new snapshot yet: call NextStep() again after the discovery interval
    kEnd,      // a bounded stream (scan.bounded.watermark) ended
  };
  Kind kind = Kind::kWait;
  std::optional<int64_t> snapshot_id;  // the snapshot of kChanges
  bool full = false;                   // the starting full read of that snapshot
};

class StreamReader {
 public:
  virtual ~StreamReader() = default;

  // The schema rows are read in (the table's when the stream opened) and the selected columns.
  virtual const TableSchema& schema() const = 0;
  virtual const std::vector<DataField>& fields() const = 0;
  // The Arrow schema of every batch: `_row_kind` (utf8, not null), then the selected columns.
  virtual Status ExportSchema(struct ArrowSchema* out) = 0;

  // Plans the next step; the rows of the previous one not yet read are dropped. Errors: the
  // next snapshot expired before it was read, or the table was re-created.
  virtual Result<StreamStep> NextStep() = 0;
  // The next batch of the current step into `out` (the caller releases it); at the end of the
  // step `out->release` is null.
  virtual Status Next(struct ArrowArray* out) = 0;

  // The position: the id of the next snapshot to plan (nullopt before the first step). A
  // reader restored to it continues with exactly the snapshots after those handed out.
  virtual std::optional<int64_t> Checkpoint() const = 0;
  virtual void Restore(std::optional<int64_t> next_snapshot_id) = 0;

  // With `consumer-id`: records in the consumer file (consumer/consumer-<id>, as Java writes it)
  // that every change before `next_snapshot_id` (default: Checkpoint()) has been processed; a
  // reader opened later with the same consumer id starts there. Call it only once the changes
  // are safely handed on (the exactly-once rule). Without a consumer id it does nothing.
  virtual Status CommitProgress(std::optional<int64_t> next_snapshot_id = std::nullopt) = 0;

  // continuous.discovery-interval: how long to wait after a kWait step.
  virtual std::chrono::milliseconds discovery_interval() const = 0;
};

}  // namespace fjord
