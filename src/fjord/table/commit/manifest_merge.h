// Writing manifest files for commits, and merging the small manifests of a snapshot's base list
// as Java's ManifestFileMerger does (behaviour.md §5.3), so that the number of manifests a
// snapshot references stays bounded however many commits the table has seen.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/manifest_writer.h"
#include "fjord/meta/table_paths.h"
#include "fjord/schema.h"

namespace fjord {

// The smallest first manifest of a minor-compaction group that is merged by copying its blocks
// (smaller ones are cheap to rewrite, and rewriting keeps their blocks full).
inline constexpr int64_t kCopyMergeMinSize = 64 << 10;

struct ManifestMergeOptions {
  int64_t target_file_size = 8 << 20;                 // manifest.target-file-size
  int64_t merge_min_count = 30;                       // manifest.merge-min-count
  int64_t full_compaction_threshold_size = 16 << 20;  // manifest.full-compaction-threshold-size

  // Invalid for sizes that are not positive.
  static Result<ManifestMergeOptions> FromOptions(const CoreOptions& options);
};

// Writes manifest files named manifest-<uuid>-<n> into a table's manifest/ directory and
// describes them (ManifestFileMeta: counts, partition statistics, bucket and level ranges) as
// Java does. Entries are rolled into several files as Java's rolling writer does: each file but
// the last reaches the target size.
// Thread-compatible; the FileIO is shared.
class ManifestFileWriter {
 public:
  ManifestFileWriter(std::shared_ptr<FileIO> io, TablePaths paths, const TableSchema& schema,
                     ManifestWriterOptions writer_options, std::string format,
                     int64_t target_file_size);

  // One or more manifests holding `entries` in order; none for no entries.
  Result<std::vector<ManifestFileMeta>> Write(const std::vector<ManifestEntry>& entries) const;
  // One new manifest holding the entries of `base` followed by `entries`, made by copying the
  // Avro blocks of `base` as they are (not decoded) and appending blocks for `entries`: a merge
  // whose cost does not grow with the size of `base`. Only for a `base` this writer could have
  // written (Avro, the same header: schema, codec and metadata); nullopt otherwise, and then
  // nothing was written. The file is not rolled.
  Result<std::optional<ManifestFileMeta>> WriteAfter(
      const ManifestFileMeta& base, const std::vector<ManifestEntry>& entries) const;
  Result<std::vector<ManifestEntry>> Read(const ManifestFileMeta& m) const;
  // Best effort: files that cannot be deleted become orphans.
  void DeleteQuietly(const std::vector<ManifestFileMeta>& metas) const;

  FileIO* io() const { return io_.get(); }
  const TablePaths& paths() const { return paths_; }
  const std::string& format() const { return format_; }
  const ManifestWriterOptions& writer_options() const { return writer_options_; }

 private:
  Result<ManifestFileMeta> Describe(const std::vector<ManifestEntry>& entries, size_t begin,
                                    size_t end) const;
  // The description of a manifest holding the entries of `a` then those of `b`.
  Result<ManifestFileMeta> Combine(const ManifestFileMeta& a, const ManifestFileMeta& b) const;

  std::shared_ptr<FileIO> io_;
  TablePaths paths_;
  std::vector<DataTypePtr> partition_types_;
  ManifestWriterOptions writer_options_;
  std::string format_;
  int64_t target_file_size_;
};

// Java's ManifestFileMerger.merge over the manifests of the previous snapshot (base then delta):
//  * full compaction when the manifests that must change (with DELETE entries, or smaller than the
//    target size) add up to at least the full-compaction threshold: every DELETE is dropped with
//    the ADD it cancels; manifests that need no change and whose partitions hold no deleted file
//    are kept as they are, the rest rewritten into target-size files;
//  * otherwise minor compaction: manifests are grouped in order until a group reaches the target
//    size, each full group is merged (ADD/DELETE pairs cancel); the trailing group only when it
//    holds at least merge-min-count manifests. When the first manifest of a group is large
//    (kCopyMergeMinSize, or half the target size if less) and the others delete nothing, nothing
//    can cancel its entries: its blocks are copied and the others' entries appended (WriteAfter),
//    the same entries in the same order as a rewrite, at a cost that does not grow with the table's
//    history.
// New manifests are appended to `written` (also when an error follows), so that a failed or
// lost commit can delete them. The input manifests are never modified.
Result<std::vector<ManifestFileMeta>> MergeManifests(const std::vector<ManifestFileMeta>& input,
                                                     const ManifestFileWriter& writer,
                                                     const TableSchema& schema,
                                                     const ManifestMergeOptions& options,
                                                     std::vector<ManifestFileMeta>* written);

}  // namespace fjord
