// Orphan file clean-up as Java Paimon 1.4's LocalOrphanFilesClean (behaviour.md §8.5): deletes
// the files under a table's directory that no snapshot, tag or long-lived changelog reaches and
// that are older than a given time.
//
//  1. Strays of snapshot/ (not `snapshot-*`, EARLIEST or LATEST: temporary files) and of
//     changelog/ (not `changelog-*` or the hints), old enough, are deleted first.
//  2. Candidates: the old enough files of manifest/, index/, statistics/ and of the bucket
//     directories (`bucket-*` under as many `k=v` levels as the table has partition keys), keyed
//     by file name. Old enough empty directories met there are deleted, and then their emptied
//     parents (never the table directory).
//  3. The used names: every snapshot-N, tag and changelog/changelog-N gives its manifest lists,
//     their manifests, its index manifest and index files, its statistics file, and every data
//     file (with its extra files) of those manifests. Every read is tried 3 times; a file missing
//     (NotFound) counts as absent, as Java's; any other read error fails the clean-up with nothing
//     of step 4 deleted.
//  4. The candidates not used are deleted, then their emptied bucket directories and the emptied
//     partition directories above them.
// schema/, tag/, consumer/ and the hints are never touched. Branches are not implemented: a
// table with a `branch/branch-*` directory is refused (their files would count as orphans).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fjord/result.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

struct OrphanFile {
  std::string path;
  int64_t size = 0;
  int64_t mtime_millis = 0;
};

struct OrphanCleanResult {
  std::vector<OrphanFile> files;  // deleted (or, in a dry run, that would be), sorted by path
  int64_t bytes = 0;              // their total size
  std::vector<std::string> directories;  // empty directories deleted (none in a dry run)
};

// `older_than_millis`: only files modified before this time (milliseconds since the epoch) are
// candidates. The caller checks that it lies in the past (OrphanOlderThan below).
Result<OrphanCleanResult> CleanOrphanFiles(const FileStoreTable& table, int64_t older_than_millis,
                                           bool dry_run);

// Java's olderThanMillis check: Invalid when `older_than_millis` is not before `now_millis`
// (files being written and not yet committed would be taken for orphans).
Status CheckOrphanOlderThan(int64_t older_than_millis, int64_t now_millis);

}  // namespace fjord
