// Table::ExpireSnapshots over table/maintain/.

#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/changelog_expire.h"
#include "fjord/table/maintain/snapshot_expire.h"

namespace fjord {

Result<ExpireResult> Table::ExpireSnapshots(const ExpireOptions& options) const {
  FJORD_ASSIGN_OR_RAISE(ExpireConfig config, ExpireConfig::FromOptions(store_->core_options()));
  ExpireRunOptions run;
  run.dry_run = options.dry_run;
  run.now_millis = options.now_millis;
  if (options.retain_min) config.snapshot_retain_min = *options.retain_min;
  if (options.retain_max) config.snapshot_retain_max = *options.retain_max;
  if (options.max_deletes) config.snapshot_max_deletes = *options.max_deletes;
  if (options.older_than_millis) {
    // Java's expire_snapshots: time-retained = now - older_than.
    config.snapshot_time_retain_millis = NowMillis(run) - *options.older_than_millis;
    if (config.snapshot_time_retain_millis < 0) {
      return Status::Invalid("older-than lies in the future: ", *options.older_than_millis,
                             " ms since the epoch");
    }
  }
  if (options.retain_max && options.retain_min && *options.retain_max < *options.retain_min) {
    return Status::Invalid("--retain-max (", *options.retain_max,
                           ") must not be less than --retain-min (", *options.retain_min, ")");
  }
  FJORD_RETURN_NOT_OK(config.Validate());
  ExpireResult result;
  FJORD_ASSIGN_OR_RAISE(ExpireReport snapshots, fjord::ExpireSnapshots(*store_, config, run));
  result.snapshots_expired = snapshots.expired;
  for (DeletedFile& f : snapshots.deleted) result.files.push_back({std::move(f.path), f.size});
  if (config.ChangelogDecoupled() && !options.dry_run) {
    FJORD_ASSIGN_OR_RAISE(ExpireReport changelogs, ExpireChangelogs(*store_, config, run));
    result.changelogs_expired = changelogs.expired;
    for (DeletedFile& f : changelogs.deleted) result.files.push_back({std::move(f.path), f.size});
  }
  return result;
}

}  // namespace fjord
