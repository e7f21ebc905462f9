// The sources of a streaming job (docs/streaming.md). A source hands out batches of rows in the
// canonical Arrow form of the table's columns (plus `_row_kind` when some row is not +I) and
// tells where it stands: Position() after a batch is the text that Seek() takes to resume right
// after it, stored in checkpoints and in snapshot properties.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>

#include "fjord/result.h"
#include "fjord/runtime/job_spec.h"
#include "fjord/runtime/metrics.h"
#include "fjord/schema.h"

namespace fjord::runtime {

class Source {
 public:
  virtual ~Source() = default;
  // Resumes at `position` (from Position(); empty: the beginning).
  virtual Status Seek(const std::string& position) = 0;
  // The next batch, or nullptr when nothing is available now (the caller waits and asks again).
  // `bounded`: what the source holds now is all there is (the last line of the last file
  // counts without its line break); `*end` is then set once everything was handed out.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next(bool bounded, bool* end) = 0;
  virtual std::string Position() const = 0;
  // The checkpoint ending at `position` is committed to the table (called from another thread;
  // the kafka source copies its offsets to the consumer group for monitoring).
  virtual void Committed(const std::string& position) { (void)position; }
  // How long to wait after Next gave nothing.
  virtual int64_t idle_wait_ms() const = 0;
  // How far the source is behind the end it knows of (`fjord_job_source_lag_records`); called on
  // the source's thread between Next calls. Empty when the source has no such measure.
  virtual std::vector<SourceLagMetric> Lag() { return {}; }
};

Result<std::unique_ptr<Source>> MakeSource(const SourceSpec& spec, const TableSchema& schema);

// Internal, for the sources: the rows of JSON lines or CSV text (a chunk of `file` starting at
// its line `first_line`; CSV: `csv_header` is the file's header) as one batch.
Result<std::shared_ptr<arrow::RecordBatch>> ParseChunk(const std::string& text, bool csv,
                                                       const std::string& csv_header,
                                                       const std::string& csv_null,
                                                       const TableSchema& schema,
                                                       const std::string& file, int64_t first_line);

// Internal, for the sources with `source.on-error: dead-letter`. The dead-letter file's length
// is part of their position. SeekDeadLetter cuts the file at `path` back to `*bytes`, what the
// restored position counted (records written after that checkpoint are read, and written,
// again), creating it when missing; a shorter file sets `*bytes` to its size.
Status SeekDeadLetter(const std::string& path, int64_t* bytes);
// Appends `letters` (JSON lines) and syncs them, so that a checkpoint never counts a record that
// is not on disk; adds their size to `*bytes`.
Status AppendDeadLetters(const std::string& path, std::string_view letters, int64_t* bytes);

std::unique_ptr<Source> MakeFilesSource(const SourceSpec& spec, const TableSchema& schema);
Result<std::unique_ptr<Source>> MakeDatagenSource(const SourceSpec& spec,
                                                  const TableSchema& schema);
Result<std::unique_ptr<Source>> MakeKafkaSource(const SourceSpec& spec, const TableSchema& schema);

}  // namespace fjord::runtime
