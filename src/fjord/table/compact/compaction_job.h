// A dedicated compaction job over the latest snapshot of a table (Paimon's compact action,
// behaviour.md §2.5, §2.8): primary-key tables compact each (matching) bucket through a
// write-enabled PrimaryKeyTableWrite, universal picking or everything into the highest level;
// append tables compact small files (append_compact_job.h). The result is committed by a fresh
// commit user as a COMPACT snapshot, conflict-checked against concurrent writers.
#pragma once

#include <map>
#include <string>

#include "fjord/table/file_store_table.h"
#include "fjord/table_compaction.h"

namespace fjord {

// Runs the job; CompactionOptions has the contract (partition spec, full, dynamic options).
Result<CompactionResult> RunCompactionJob(const FileStoreTable& table,
                                          const CompactionOptions& options);

}  // namespace fjord
