// A Paimon table opened from its directory: the entry point for planning and reading.
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/expr/predicate.h"
#include "fjord/file_io.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/options.h"
#include "fjord/partition.h"
#include "fjord/table/read/incremental_scan.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/read/scan_start.h"
#include "fjord/table/read/stream_scan.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

struct ReadRequest {
  ScanSelector selector;
  std::string where;                 // filter text (Predicate::Parse); empty = no filter
  PartitionSpec partition;           // only these partitions (fjord/partition.h); empty = all
  std::vector<std::string> columns;  // projection by name; empty = all columns
  int threads = 1;                   // splits read at once (SplitReadOptions::threads)
  bool in_split_order = false;       // SplitReadOptions::in_split_order
};

class RowBatchReader;

// A read in progress: the rows come batch by batch from `rows`, in `arrow_schema`.
struct ReadStream {
  TableSchema schema;                // the schema the rows follow (a travelled snapshot's own)
  std::vector<DataField> fields;     // the projected columns
  std::optional<Snapshot> snapshot;  // the snapshot read; none for an empty table
  std::shared_ptr<arrow::Schema> arrow_schema;
  std::shared_ptr<RowBatchReader> rows;  // owns what it reads with
};

struct ReadResult {
  TableSchema schema;                // the schema the rows follow (a travelled snapshot's own)
  std::vector<DataField> fields;     // the projected columns
  std::optional<Snapshot> snapshot;  // the snapshot read; none for an empty table
  std::shared_ptr<arrow::Table> rows;
};

class FileStoreTable {
 public:
  // Opens the table at `path` (local path or s3:// URI). NotFound when it has no schema; Invalid
  // when an option of its schema does not parse (the error names the option and the value).
  static Result<std::unique_ptr<FileStoreTable>> Open(const std::string& path);
  // The same through `io` (tests pass a fault-injecting FileIO; every read and write of the
  // table and of its writers goes through it).
  static Result<std::unique_ptr<FileStoreTable>> Open(const std::string& path,
                                                      std::shared_ptr<FileIO> io);

  const std::string& path() const { return path_; }
  const TableSchema& schema() const { return schema_; }
  // The schema's options over the registry defaults.
  const Options& options() const { return core_options_.options(); }
  // The same, parsed: built once when the table is opened (or made by WithDynamicOptions).
  const CoreOptions& core_options() const { return core_options_; }
  const SnapshotManager& snapshots() const { return snapshots_; }
  const std::shared_ptr<FileIO>& io() const { return io_; }

  // The same table with `dynamic` set over the schema's options (Paimon's dynamic options, for one
  // writer or job). Invalid for a key the option registry does not know, a bad value, or an
  // immutable option.
  Result<std::shared_ptr<const FileStoreTable>> WithDynamicOptions(
      const std::map<std::string, std::string>& dynamic) const;

  // The options set on the table (its schema's, with the compatibility defaults of old schema
  // versions) and `dynamic` over them, checked for `use` (options.h CheckOptions):
  // NotImplemented naming each option Fjord does not honour for it; a warning for each
  // performance-only one.
  Status CheckOptions(OptionUse use, const std::map<std::string, std::string>& dynamic = {}) const;

  // The snapshot a selector names and the schema to read it with.
  Result<std::pair<std::optional<Snapshot>, TableSchema>> Resolve(
      const ScanSelector& selector) const;
  // The live files at the selected snapshot, pruned by `where` (may be empty).
  Result<ScanPlan> Plan(const ScanSelector& selector, const std::string& where = "",
                        const PartitionSpec& partition = {}) const;
  // Opens a read: plan, then batches of at most `batch_rows` rows pulled split by split through
  // merge-on-read, the exact row filter and the projection (table/read/table_read.h).
  Result<ReadStream> OpenRead(const ReadRequest& request, int64_t batch_rows = 8192) const;
  // A streaming scan of the table (stream_scan.h) in its current schema, started as the scan.*
  // options say, or at `consumer_next` (a consumer's recorded next snapshot).
  Result<std::unique_ptr<StreamTableScan>> NewStreamScan(
      const ReadRequest& request, std::optional<int64_t> consumer_next = std::nullopt) const;
  // How `request` reads rows of `schema`: projection, filter, batch size; `fields` gets the
  // projected columns.
  Result<SplitReadOptions> SplitOptionsFor(const TableSchema& schema, const ReadRequest& request,
                                           int64_t batch_rows,
                                           std::vector<DataField>* fields) const;
  // The rows of `splits` read in `schema`, in `*arrow_schema` (computed when null).
  Result<std::shared_ptr<RowBatchReader>> OpenSplits(
      const TableSchema& schema, std::vector<DataSplit> splits, SplitReadOptions options,
      std::shared_ptr<arrow::Schema>* arrow_schema) const;
  // Every row of a read at once (OpenRead's batches, concatenated).
  Result<ReadResult> Read(const ReadRequest& request) const;

 private:
  struct ResolvedRead {
    std::optional<Snapshot> snapshot;
    TableSchema schema;
    PlanOptions plan;
    bool incremental = false;  // an incremental query: `range` (nullopt: nothing to read)
    std::optional<IncrementalRange> range;
  };
  // The plan of a resolved read.
  Result<ScanPlan> PlanResolved(const ResolvedRead& resolved, const Predicate* filter) const;
  // The snapshot, schema and files a batch read of `selector` (or, when it is empty, of the
  // scan.* options) reads.
  Result<ResolvedRead> ResolveRead(const ScanSelector& selector) const;

  // `where` AND the partitions of `partition`, bound to `schema`; nullopt when neither is given.
  Result<std::optional<Predicate>> ReadFilter(const TableSchema& schema, const std::string& where,
                                              const PartitionSpec& partition) const;

  FileStoreTable(std::shared_ptr<FileIO> io, std::string path, TableSchema schema,
                 CoreOptions core_options);

  std::shared_ptr<FileIO> io_;
  std::string path_;
  TableSchema schema_;
  CoreOptions core_options_;
  SnapshotManager snapshots_;
};

}  // namespace fjord
