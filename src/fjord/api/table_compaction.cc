// The public TableCompaction over the dedicated compaction job (table/compact/compaction_job.h).

#include "fjord/table.h"
#include "fjord/table/compact/compaction_job.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

namespace {

class TableCompactionImpl : public TableCompaction {
 public:
  TableCompactionImpl(std::shared_ptr<const FileStoreTable> table, CompactionOptions options)
      : table_(std::move(table)), options_(std::move(options)) {}

  Result<CompactionResult> Run() override { return RunCompactionJob(*table_, options_); }

 private:
  std::shared_ptr<const FileStoreTable> table_;
  CompactionOptions options_;
};

}  // namespace

Result<std::unique_ptr<TableCompaction>> Table::NewCompaction(
    const CompactionOptions& options) const {
  // Dynamic options go through the same checks as a writer's.
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table,
                        store_->WithDynamicOptions(options.dynamic_options));
  FJORD_RETURN_NOT_OK(table->CheckOptions(OptionUse::kWrite));
  CompactionOptions job = options;
  job.dynamic_options.clear();  // applied to `table` above
  return std::unique_ptr<TableCompaction>(new TableCompactionImpl(std::move(table), job));
}

}  // namespace fjord
