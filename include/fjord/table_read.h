// Reading a table: a ReadBuilder says which columns, which rows (a filter) and which snapshot
// (latest, by id, by time, by tag); Open() returns a TableReader that hands out the rows batch by
// batch as Arrow C Data (or as an ArrowArrayStream). Primary-key tables are merged on read with
// their merge engine; deletion vectors are applied; files written under older schemas are read
// in the schema of the snapshot read (schema evolution).
//
// Thread safety: a ReadBuilder is a value; a TableReader is not thread-safe (one per thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/arrow_c.h"
#include "fjord/data_type.h"
#include "fjord/partition.h"
#include "fjord/result.h"
#include "fjord/schema.h"
#include "fjord/table_stream.h"

namespace fjord {

class FileStoreTable;
struct SnapshotInfo;

// One live data file of the snapshot a read plans (for tools and diagnostics).
struct PlannedFile {
  // "day=2026-12-01,hour=3" as every command prints partitions and `--partition` takes them
  // (fjord/partition.h); "" when the table is unpartitioned.
  std::string partition;
  int32_t bucket = 0;
  std::string file_name;
  int32_t level = 0;
  int64_t row_count = 0;
  int64_t file_size = 0;
  std::string min_key;  // primary-key values as text; "[]" for append tables
  std::string max_key;
  bool has_deletion_vector = false;
};

struct ReadPlan {
  std::optional<int64_t> snapshot_id;  // nullopt: the table has no snapshot to read
  int64_t splits = 0;                  // (partition, bucket)s to read
  std::vector<PlannedFile> files;
};

class TableReader {
 public:
  virtual ~TableReader() = default;

  // The schema rows are read in (a travelled snapshot's own) and the projected columns.
  virtual const TableSchema& schema() const = 0;
  virtual const std::vector<DataField>& fields() const = 0;
  // The snapshot being read; nullopt for a table without snapshots (no rows).
  virtual std::optional<int64_t> snapshot_id() const = 0;

  // The Arrow schema of the batches (a struct of the projected columns); the caller owns `out`.
  virtual Status ExportSchema(struct ArrowSchema* out) = 0;
  // The next batch into `out` (the caller owns it and releases it); at the end, `out->release`
  // is null. Errors name the file that could not be read.
  virtual Status Next(struct ArrowArray* out) = 0;
};

// Moves `reader` into a C stream (`out` is the caller's to release).
void ExportTableReader(std::unique_ptr<TableReader> reader, struct ArrowArrayStream* out);

class ReadBuilder {
 public:
  explicit ReadBuilder(std::shared_ptr<const FileStoreTable> table);
  ~ReadBuilder();
  ReadBuilder(const ReadBuilder&);
  ReadBuilder& operator=(const ReadBuilder&);

  // Columns to read, by name, in this order (default: all). Unknown names fail at Open().
  ReadBuilder& Select(std::vector<std::string> columns);
  // Rows to read: Fjord's filter syntax (docs/reading.md), e.g. "id > 10 AND name LIKE 'a%'".
  // Partitions, buckets and files that cannot match are skipped; the rest is filtered exactly.
  ReadBuilder& Where(std::string filter);
  // Only the partitions matching `partition` (fjord/partition.h; some or all partition columns),
  // together with Where(). A key that is not a partition column, or a value its column cannot
  // hold, is Invalid at Open() and Plan().
  ReadBuilder& Partition(PartitionSpec partition);
  // Which snapshot (at most one of these; default: the latest). A snapshot that does not exist,
  // or an unknown tag, is NotFound at Open(); a time before the first snapshot reads nothing.
  ReadBuilder& AtSnapshot(int64_t snapshot_id);
  ReadBuilder& AtTimestamp(int64_t epoch_millis);
  ReadBuilder& AtTag(std::string tag);
  // Read options over the table's (Paimon's dynamic options): scan.mode, scan.snapshot-id,
  // scan.timestamp-millis, scan.tag-name, consumer-id, continuous.discovery-interval, ...
  // (docs/reading.md). An unknown key, a bad value or an option Fjord does not honour for reads
  // fails at Open(), Plan() and OpenStreaming(). AtSnapshot/AtTimestamp/AtTag win over them.
  ReadBuilder& WithOptions(std::map<std::string, std::string> options);
  // Rows per batch at most (default 8192). Memory of a read grows with it: each open sorted run of
  // a primary-key bucket holds one batch.
  ReadBuilder& WithBatchRows(int64_t rows);
  // Threads reading splits at once (default 0: one per core). Each batch comes out as soon as it
  // is read: the batches of one split (a partition's bucket, or a bin of append files) keep their
  // order, so the rows of one key do, but splits interleave. Each thread adds the memory of one
  // split's read and 4 batches. With fewer splits than threads, Parquet batches also decode their
  // columns at once on Arrow's CPU thread pool.
  ReadBuilder& WithThreads(int threads);
  // Batches in split order, exactly as one thread reads them, on several threads still: a split
  // may read only 4 batches ahead of the one handed out, so threads wait more (default off).
  ReadBuilder& InSplitOrder(bool on = true);

  // The files the read would visit.
  Result<ReadPlan> Plan() const;
  Result<std::unique_ptr<TableReader>> Open() const;
  // Open() as a C stream.
  Status OpenStream(struct ArrowArrayStream* out) const;
  // A streaming read of the table's changes (table_stream.h), with the columns, filter and
  // options set here (AtSnapshot/AtTimestamp/AtTag do not apply: use scan.* options).
  Result<std::unique_ptr<StreamReader>> OpenStreaming() const;

 private:
  // The table with the read options applied and checked.
  Result<std::shared_ptr<const FileStoreTable>> ReadTable() const;

  struct State;
  std::shared_ptr<const FileStoreTable> table_;
  std::unique_ptr<State> state_;
};

}  // namespace fjord
