// The public TableCompaction over the dedicated compaction job (table/compact/compaction_job.h).

#include <map>
#include <string>

#include "fjord/common/ids.h"
#include "fjord/common/strings.h"
#include "fjord/table.h"
#include "fjord/table/compact/compaction_job.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/commit_maintenance.h"

namespace fjord {

namespace {

class TableCompactionImpl : public TableCompaction {
 public:
  TableCompactionImpl(std::shared_ptr<const FileStoreTable> table, CompactionOptions options)
      : table_(std::move(table)), options_(std::move(options)) {}

  // The job commits as a writer does, so the post-commit maintenance follows (run in the call,
  // whatever snapshot.expire.execution-mode says: the job ends here, and in batch tag mode tags
  // the latest snapshot, as Flink's batch compact job does).
  Result<CompactionResult> Run() override {
    FJORD_ASSIGN_OR_RAISE(CompactionResult result, RunCompactionJob(*table_, options_));
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<CommitMaintenance> maintenance,
                          CommitMaintenance::Make(table_, RandomUuid()));
    FJORD_RETURN_NOT_OK(maintenance->AfterCommit(0, true, /*ends_batch_job=*/true));
    FJORD_RETURN_NOT_OK(maintenance->Wait().WithContext("post-commit maintenance"));
    return result;
  }

 private:
  std::shared_ptr<const FileStoreTable> table_;
  CompactionOptions options_;
};

}  // namespace

Result<std::unique_ptr<TableCompaction>> Table::NewCompaction(
    const CompactionOptions& options) const {
  // Dynamic options go through the same checks as a writer's. The job runs with write-only =
  // false whatever the table says, as Java's compact action: `write-only` tells the writers to
  // leave compaction AND the post-commit maintenance (snapshot and partition expiration, tags) to
  // the dedicated job, so with it on here nothing would ever expire beside write-only writers.
  std::map<std::string, std::string> dynamic = options.dynamic_options;
  auto given = dynamic.find("write-only");
  if (given != dynamic.end() && !EqualsIgnoreCase(Trim(given->second), "false")) {
    return Status::Invalid("write-only = ", given->second,
                           " for a dedicated compaction: it would neither compact nor expire; "
                           "leave write-only to the writers");
  }
  dynamic["write-only"] = "false";
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table,
                        store_->WithDynamicOptions(dynamic));
  FJORD_RETURN_NOT_OK(table->CheckOptions(OptionUse::kWrite));
  CompactionOptions job = options;
  job.dynamic_options.clear();  // applied to `table` above
  return std::unique_ptr<TableCompaction>(new TableCompactionImpl(std::move(table), job));
}

}  // namespace fjord
