// Expiration of long-lived changelogs (behaviour.md §8.1-8.3, format.md §8.7; Java's
// ExpireChangelogImpl and ChangelogDeletion), run after snapshot expiration when the changelog is
// decoupled. Picking mirrors snapshot expiration over changelog/changelog-<id> with the
// changelog.* retention (falling back to snapshot.*), every consumer protecting its next
// snapshot, and never the latest long-lived changelog. Deleting changelog-<id>: the files of its
// changelog manifest list, or (changelog-producer none, where the level-0 data files are the
// changelog) the files its delta deleted and its base and delta manifest lists; manifests used by
// the end changelog, the earliest snapshot or a tag in the range are kept. Then the file itself,
// and the changelog EARLIEST hint. A crash leaves changelog-<id> in place until its files are
// gone, so a re-run finishes the job.
#pragma once

#include "fjord/table/maintain/snapshot_expire.h"

namespace fjord {

Result<ExpireReport> ExpireChangelogs(const FileStoreTable& table, const ExpireConfig& config,
                                      const ExpireRunOptions& run = {});
Result<ExpireReport> ExpireChangelogsUntil(const FileStoreTable& table, const ExpireConfig& config,
                                           int64_t earliest, int64_t end_exclusive,
                                           const ExpireRunOptions& run = {});

}  // namespace fjord
