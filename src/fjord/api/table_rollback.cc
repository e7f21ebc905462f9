// RollbackTable (fjord/table_rollback.h) over table/maintain's Rollback.

#include "fjord/table_rollback.h"

#include "fjord/options.h"
#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/rollback.h"

namespace fjord {

Result<RollbackResult> RollbackTable(const Table& table, const RollbackOptions& options) {
  FJORD_RETURN_NOT_OK(table.store()->CheckOptions(OptionUse::kWrite));
  RollbackTarget target;
  target.snapshot_id = options.snapshot_id;
  target.tag = options.tag;
  target.timestamp_millis = options.timestamp_millis;
  FJORD_ASSIGN_OR_RAISE(RollbackOutcome out, Rollback(*table.store(), target));
  RollbackResult result;
  result.snapshot_id = out.snapshot_id;
  result.snapshot_recreated = out.snapshot_recreated;
  result.snapshots_deleted = std::move(out.snapshots_deleted);
  result.changelogs_deleted = std::move(out.changelogs_deleted);
  result.tags_deleted = std::move(out.tags_deleted);
  for (auto& [id, next] : out.consumers_ahead) {
    result.consumers_ahead.push_back(ConsumerEntry{std::move(id), next});
  }
  return result;
}

}  // namespace fjord
