// The index manifest of a new snapshot: the previous snapshot's index files with a commit's
// index-file changes applied, as Java's IndexManifestFileHandler does (spec/format.md §9,
// behaviour.md §5.2 step 3). Per index type:
//  * HASH, and DELETION_VECTORS of bucketed tables: one file per (partition, bucket, type); the
//    commit's DELETEs remove that slot first, then its ADDs fill it (replacing any file there);
//  * DELETION_VECTORS of bucket-unaware tables: keyed by file name; adding a file already there,
//    deleting a missing one, or giving a data file a second deletion vector is an error;
//  * any other type (global indexes): keyed by file name; deleting a missing file is an error.
#pragma once

#include <vector>

#include "fjord/meta/manifest.h"
#include "fjord/result.h"

namespace fjord {

// `previous` must hold ADD entries only (Corruption otherwise). The result holds ADD entries
// only, in slot order (a slot keeps the position where it first appeared; new slots follow).
// Errors are Invalid and name the file.
Result<std::vector<IndexManifestEntry>> CombineIndexManifest(
    const std::vector<IndexManifestEntry>& previous, const std::vector<IndexManifestEntry>& changes,
    bool bucket_unaware);

}  // namespace fjord
