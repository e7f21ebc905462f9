// Checks of the crash test (crash_test.cc) that look below the rows: the files every snapshot's
// metadata references, level-0 files of the latest snapshot, the deletion vectors a read applies,
// and the lookup changelog of every snapshot replayed in order. Used for tables that need lookup
// (deletion vectors, changelog-producer = lookup), whose commits carry index files, changelog
// files and compactions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fjord/meta/snapshot.h"
#include "fjord/result.h"
#include "fjord/table/file_store_table.h"

namespace fjord::crash {

// Every file the metadata of each snapshot in `snapshots` references is on disk: its manifest
// lists and their manifests, the live data files (with their extra files), its changelog files,
// its index manifest and the index files listed there. Corruption naming the snapshot and file.
Status CheckReferencedFiles(const FileStoreTable& table, const std::vector<Snapshot>& snapshots);

struct LatestFiles {
  bool level0 = false;       // the latest snapshot holds level-0 files
  int64_t vectors = 0;       // deletion vectors a read of the latest snapshot applies
  int64_t deleted_rows = 0;  // rows those vectors mark
};
Result<LatestFiles> InspectLatest(const FileStoreTable& table, const Snapshot& latest);

// The rows (canonical JSON, as the crash test reads them, sorted) that the changelog files of
// `snapshots`, applied in order, give. Corruption when a -U/-D does not name the live row of its
// key, or a +I names a key that is live (a +U replaces what is live).
Result<std::vector<std::string>> ReplayChangelog(const FileStoreTable& table,
                                                 const std::vector<Snapshot>& snapshots);

}  // namespace fjord::crash
