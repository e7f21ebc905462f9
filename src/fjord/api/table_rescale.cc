// Table::Rescale: Java Paimon's bucket rescale, the ALTER of `bucket` (table/catalog) then the
// rewrite of the partitions (table/compact/rescale.h).

#include "fjord/catalog.h"
#include "fjord/table.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/compact/rescale.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

Result<RescaleResult> Table::Rescale(const RescaleOptions& options) const {
  // The latest schema, whatever this handle was opened with.
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<FileStoreTable> table, FileStoreTable::Open(path(), io()));
  FJORD_RETURN_NOT_OK(CheckRescalable(*table, options.buckets));
  for (const PartitionSpec& spec : options.partitions) {
    FJORD_RETURN_NOT_OK(CheckPartitionSpec(spec));
  }
  FJORD_ASSIGN_OR_RAISE(RescaleScope scope, PlanRescale(*table, options.partitions));
  RescaleResult result;
  result.previous_bucket = table->core_options().bucket();
  result.read_snapshot = scope.snapshot_id;
  result.partitions = scope.partition_texts;
  result.files_before = scope.files;
  if (result.previous_bucket != options.buckets) {
    FJORD_RETURN_NOT_OK(
        AlterTableAt(io(), path(),
                     {SchemaChange::SetOption("bucket", std::to_string(options.buckets))}, path()));
    result.altered = true;
    FJORD_ASSIGN_OR_RAISE(table, FileStoreTable::Open(path(), io()));
    if (table->core_options().bucket() != options.buckets) {
      return Status::Conflict("table ", path(), " changed its 'bucket' to ",
                              table->core_options().bucket(), " while it was being rescaled to ",
                              options.buckets);
    }
  }
  FJORD_ASSIGN_OR_RAISE(RescaleOutcome outcome, RewriteBuckets(*table, scope));
  result.snapshot_id = outcome.snapshot_id;
  result.files_written = outcome.files_written;
  result.rows = outcome.rows;
  return result;
}

}  // namespace fjord
