// Sources of CDC jobs (docs/cdc.md): they hand out change records instead of rows of a known
// table. Files and Kafka sources decode their messages with a CDC format (cdc/cdc_format.h); the
// PostgreSQL source reads the database's logical replication stream itself.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/cdc_record.h"
#include "fjord/result.h"
#include "fjord/runtime/job_spec.h"
#include "fjord/runtime/metrics.h"

namespace fjord::runtime {

// Asked of each record before it joins a batch: true when the record must start a batch (the
// job has to change a table's schema before it can take it).
using CdcCut = std::function<bool(const cdc::CdcRecord&)>;

class CdcSource {
 public:
  virtual ~CdcSource() = default;
  // Resumes at `position` (from Position(); empty: the beginning, which for the PostgreSQL
  // source means an initial snapshot of its tables, then their changes).
  virtual Status Seek(const std::string& position) = 0;
  // Appends the records of the next messages to `out` (which the caller passes empty), at most
  // about `max_records`. Messages are never split: if `cut` is true for a record of a message and
  // `out` already holds records of earlier messages, that message is kept back, whole, for the
  // next call, which starts with it. Nothing appended: nothing available now (the caller waits
  // and asks again). `bounded`: what the source holds now is all there is; `*end` is then set
  // once everything was handed out.
  virtual Status Next(bool bounded, size_t max_records, const CdcCut& cut,
                      std::vector<cdc::CdcRecord>* out, bool* end) = 0;
  // Where the source stands after the records handed out so far (what Seek resumes at).
  virtual std::string Position() const = 0;
  // The checkpoint ending at `position` is committed to every table (called from another
  // thread): the PostgreSQL source confirms its replication slot up to there, the Kafka source
  // copies its offsets to the consumer group.
  virtual void Committed(const std::string& position) { (void)position; }
  virtual int64_t idle_wait_ms() const = 0;
  virtual std::vector<SourceLagMetric> Lag() { return {}; }
};

// The CDC source of `spec` (its type with `source.format` a CDC format).
Result<std::unique_ptr<CdcSource>> MakeCdcSource(const JobSpec& spec);

// Internal: the files and Kafka sources in CDC mode (each line or message value one message).
class CdcDecoder;
std::unique_ptr<CdcSource> MakeFilesCdcSource(const SourceSpec& spec,
                                              std::unique_ptr<CdcDecoder> decoder);
Result<std::unique_ptr<CdcSource>> MakeKafkaCdcSource(const SourceSpec& spec,
                                                      std::unique_ptr<CdcDecoder> decoder);

}  // namespace fjord::runtime
