// Manifest entries as the committer sees them (spec/format.md §4.8, behaviour.md §5.1): the
// identity of a file across ADD and DELETE entries, Java's FileEntry.mergeEntries fold, partition
// filters for manifests and entries, and reading the merged entries of a set of manifests.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/expr/predicate.h"
#include "fjord/file_io.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/table_paths.h"
#include "fjord/schema.h"

namespace fjord {

// Java's FileEntry.Identifier: two entries with equal identifiers refer to the same file.
struct FileIdentifier {
  std::string partition;  // stored BinaryRow
  int32_t bucket = 0;
  int32_t level = 0;
  std::string file_name;
  std::vector<std::string> extra_files;
  std::optional<std::string> embedded_index;
  std::optional<std::string> external_path;

  auto operator<=>(const FileIdentifier&) const = default;
};

FileIdentifier IdentifierOf(const ManifestEntry& e);

// Java's FileEntry.mergeEntries over entries added in order: an ADD inserts (a second ADD of a
// live file is an error), a DELETE removes the matching ADD or, when none was seen, is kept (its
// ADD is in an earlier manifest). The survivors keep the order of their first insertion.
class EntryMerger {
 public:
  // Corruption ("file X is added twice") when an ADD meets an entry already held; `where` names
  // the source for the message.
  Status Add(ManifestEntry entry, std::string_view where = {});
  Status AddAll(std::vector<ManifestEntry> entries, std::string_view where = {});
  size_t size() const { return index_.size(); }
  // The surviving entries in insertion order; the merger is empty afterwards.
  std::vector<ManifestEntry> Take();

 private:
  std::map<FileIdentifier, size_t> index_;
  std::vector<std::optional<ManifestEntry>> entries_;
};

// Which partitions a commit reads or touches: all, an exact set (of stored BinaryRows), or a
// predicate on the partition columns (a static, possibly partial, partition spec).
class PartitionFilter {
 public:
  static PartitionFilter All() { return PartitionFilter(); }
  static Result<PartitionFilter> Of(std::set<std::string> partitions, const TableSchema& schema);
  // The partitions matching any of `specs`. A spec maps partition columns (all or some) to their
  // values as text (fjord/partition.h, expr/partition_text.h); a value equal to
  // `partition.default-name` means NULL; an empty spec matches every partition. Invalid for a
  // column that is not a partition column or a value the column cannot hold. `options` are the
  // schema's.
  static Result<PartitionFilter> OfSpecs(
      const std::vector<std::map<std::string, std::string>>& specs, const TableSchema& schema,
      const CoreOptions& options);

  bool is_all() const { return !set_ && !predicate_; }
  // Conservative, on the manifest's partition statistics: false only when no entry of `m` can
  // belong to a selected partition.
  Result<bool> MayContain(const ManifestFileMeta& m) const;
  // Exact.
  Result<bool> Contains(const std::string& partition) const;

 private:
  std::optional<std::set<std::string>> set_;
  std::optional<Predicate> predicate_;  // for a set: the OR of its partitions, for pruning
  std::vector<DataField> fields_;       // partition columns (nullable types)
};

// "k1=v1,k2=v2" for a stored partition row (PartitionText: the form every command prints and
// `--partition` takes; "" for an unpartitioned table; the raw bytes in hex when the row cannot be
// decoded). `options` are the schema's.
std::string PartitionDisplay(const std::string& partition, const TableSchema& schema,
                             const CoreOptions& options);

// Reads `manifests` in order, skipping those `filter` rules out, keeps the entries of selected
// partitions and merges them (EntryMerger). For a snapshot's base + delta lists this is the set
// of live files (plus DELETEs whose ADD is missing, which a healthy table never has).
Result<std::vector<ManifestEntry>> ReadMergedEntries(FileIO* io, const TablePaths& paths,
                                                     const std::string& format,
                                                     const std::vector<ManifestFileMeta>& manifests,
                                                     const PartitionFilter& filter);

// The manifests of a snapshot: base list then delta list.
Result<std::vector<ManifestFileMeta>> ReadDataManifests(FileIO* io, const TablePaths& paths,
                                                        const std::string& format,
                                                        const std::string& base_list,
                                                        const std::string& delta_list);

}  // namespace fjord
