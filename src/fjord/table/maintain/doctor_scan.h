// What `fjord doctor` reads of a table's snapshots and tags (docs/maintenance.md "fjord doctor"):
// the live data files of every snapshot present, walked from the earliest snapshot's full file
// list through each later snapshot's delta, so that every file knows the first and last snapshot
// holding it and the tags holding it; from that, each snapshot's and tag's bytes and the bytes
// only it keeps, the bytes expiring the snapshots below an id frees, and the buckets of the
// latest snapshot. Read-only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fjord/result.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table_doctor.h"

namespace fjord {

struct DoctorScan {
  std::vector<DoctorBucket> buckets;      // the latest snapshot's, with the fixed buckets that
                                          // hold no file as empty entries
  std::vector<DoctorSnapshot> snapshots;  // kept_by left empty
  std::vector<DoctorTag> tags;
  int64_t tag_only_bytes = 0;
  // (last snapshot holding it, size) of every file some snapshot holds and no tag does, by last
  // snapshot; FreedBelow sums them.
  std::vector<std::pair<int64_t, int64_t>> untagged_by_last;

  // The data-file bytes expiring every snapshot below `end` frees (files whose last holder is
  // below `end` and that no tag holds).
  int64_t FreedBelow(int64_t end) const;
};

Result<DoctorScan> ScanForDoctor(const FileStoreTable& table);

}  // namespace fjord
