// RemoveOrphanFiles (fjord/orphan_files.h): the procedure over table/maintain's CleanOrphanFiles.

#include "fjord/orphan_files.h"

#include <chrono>

#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/orphan_files.h"

namespace fjord {

Result<OrphanFilesResult> RemoveOrphanFiles(const Table& table, const OrphanFilesOptions& options) {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  int64_t older_than = now - 24LL * 3600 * 1000;
  if (options.older_than_millis) {
    older_than = *options.older_than_millis;
    FJORD_RETURN_NOT_OK(CheckOrphanOlderThan(older_than, now));
  }
  FJORD_ASSIGN_OR_RAISE(OrphanCleanResult cleaned,
                        CleanOrphanFiles(*table.store(), older_than, options.dry_run));
  OrphanFilesResult result;
  for (const OrphanFile& f : cleaned.files) {
    result.files.push_back(OrphanFilesResult::File{f.path, f.size, f.mtime_millis});
  }
  result.bytes = cleaned.bytes;
  result.directories = std::move(cleaned.directories);
  return result;
}

}  // namespace fjord
