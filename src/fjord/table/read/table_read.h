// Reading the rows of splits, batch after batch: data files in their own schemas mapped to the
// read schema by field id (schema evolution), deletion vectors applied, and for primary-key
// tables merge-on-read with the table's merge engine (behaviour.md §3), section by section of
// overlapping files, each a k-way merge of its sorted runs pulled batch by batch from the file
// readers (lsm/kv_file_reader.h). Only the projected and filtered columns are read (plus, when
// merging, the key and sequence columns the merge needs); the filter also skips Parquet row
// groups where rows are not merged. Memory: one batch per open sorted run of one section (per
// split read at once with SplitReadOptions::threads, plus the batches read ahead).
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fjord/expr/predicate.h"
#include "fjord/file_io.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/table/read/scan.h"

namespace fjord {

// Batches of rows; never empty; nullptr at the end.
class RowBatchReader {
 public:
  virtual ~RowBatchReader() = default;
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
  // Called between calls to Next, on the thread that reads: a reader of a later part of the rows
  // not yet returned, this one then stopping before them, so that another thread reads that part
  // (parallel_read.h). No key has rows in both. nullptr when it cannot.
  virtual Result<std::unique_ptr<RowBatchReader>> SplitOff() {
    return std::unique_ptr<RowBatchReader>();
  }
};

struct SplitReadOptions {
  // Columns to return, as indices into the read schema in output order; empty = all, in order.
  std::vector<int> projection;
  // Rows to keep (exact, per batch); null = all. Its columns need not be projected.
  std::shared_ptr<const Predicate> filter;
  // Rows per batch at most.
  int64_t batch_rows = 8192;
  // Puts each row's kind first, as the column `_row_kind` ("+I", "-U", "+U", "-D"): the kind of
  // the merged record for merged reads (+I or +U), the record's own for streaming splits.
  bool with_row_kind = false;
  // Splits read at once on worker threads (parallel_read.h); 1 reads them one after the other on
  // the caller's thread. With several, batches come out as they are read (those of one split in
  // their order), or in split order, as one thread reads them, with `in_split_order`.
  int threads = 1;
  bool in_split_order = false;
};

class TableRead {
 public:
  // `read_schema` is the schema rows are returned in (the table's, or a travelled snapshot's).
  TableRead(std::shared_ptr<FileIO> io, std::string table_root, TableSchema read_schema,
            int64_t batch_rows = 8192);

  const TableSchema& schema() const { return readers_.read_schema(); }

  // The Arrow schema of the rows a read of `splits` with `options` returns: the projected fields,
  // a MAP column in the list form when one of the files holds it so (arrow_types.h; ORC files
  // whose MAP keys may be NULL; their tails are read to tell).
  Result<std::shared_ptr<arrow::Schema>> OutputSchema(const std::vector<DataSplit>& splits,
                                                      const SplitReadOptions& options);

  // The visible rows of `splits` (retract results dropped), one split after the other, in
  // `schema` (OutputSchema's). Streaming splits (scan.h) hand out every record of their files
  // unmerged, retractions included; the changes of an OVERWRITE its deleted files merged as -D,
  // then its new files merged. This TableRead and `splits` must outlive the reader.
  Result<std::unique_ptr<RowBatchReader>> Open(const std::vector<DataSplit>* splits,
                                               SplitReadOptions options,
                                               std::shared_ptr<arrow::Schema> schema);

  // Every visible row of `split`, all columns of the read schema, at once (tests, small reads).
  Result<std::shared_ptr<arrow::Table>> Read(const DataSplit& split);
  // All splits, concatenated.
  Result<std::shared_ptr<arrow::Table>> ReadAll(const std::vector<DataSplit>& splits);

  // Files of one sorted run of a primary-key bucket (directory `bucket_path`), read one after
  // another as key-value batches (lsm/key_value.h) in the read schema. Deletion vectors are not
  // applied.
  Result<std::unique_ptr<KvRunReader>> OpenKvRun(const std::string& bucket_path,
                                                 std::vector<DataFileMeta> files);

  class SplitReader;

 private:
  friend class SplitReader;
  Result<std::shared_ptr<const DeletionVector>> DeletionOf(
      const std::map<std::string, DeletionFile>& deletion_files, const DataFileMeta& file);

  std::shared_ptr<FileIO> io_;
  KvFileReaderFactory readers_;
  std::shared_ptr<std::mutex> index_files_mu_ = std::make_shared<std::mutex>();
  std::map<std::string, std::string> index_files_;  // index file path -> bytes
};

}  // namespace fjord
