// Manifest lists, manifest entries, data-file metadata and index manifest entries
// (spec/format.md §4). BinaryRow-valued fields (partitions, keys, statistics) keep the exact bytes
// of their stored form (4-byte big-endian arity, then the BinaryRow): manifests identify files by
// those bytes, so they are never re-encoded.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/result.h"

namespace fjord {

struct SimpleStats {
  std::string min_values;  // stored BinaryRow
  std::string max_values;  // stored BinaryRow
  std::optional<std::vector<std::optional<int64_t>>> null_counts;
};

enum class FileSource : unsigned char { kAppend = 0, kCompact = 1 };

struct DataFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::string min_key;  // stored BinaryRow
  std::string max_key;  // stored BinaryRow
  SimpleStats key_stats;
  SimpleStats value_stats;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  int64_t schema_id = 0;
  int32_t level = 0;
  std::vector<std::string> extra_files;
  std::optional<int64_t> creation_time_millis;
  std::optional<int64_t> delete_row_count;
  std::optional<std::string> embedded_index;
  std::optional<int32_t> file_source;
  std::optional<std::vector<std::string>> value_stats_cols;
  std::optional<std::string> external_path;
  std::optional<int64_t> first_row_id;
  std::optional<std::vector<std::string>> write_cols;
};

enum class FileKind : unsigned char { kAdd = 0, kDelete = 1 };

struct ManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // stored BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  DataFileMeta file;
};

struct ManifestFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t num_added_files = 0;
  int64_t num_deleted_files = 0;
  SimpleStats partition_stats;
  int64_t schema_id = 0;
  std::optional<int32_t> min_bucket, max_bucket, min_level, max_level;
  std::optional<int64_t> min_row_id, max_row_id;
};

struct DeletionVectorMeta {
  std::string data_file_name;
  int32_t offset = 0;
  int32_t length = 0;
  std::optional<int64_t> cardinality;
};

struct IndexManifestEntry {
  FileKind kind = FileKind::kAdd;
  std::string partition;  // stored BinaryRow
  int32_t bucket = 0;
  std::string index_type;  // "HASH", "DELETION_VECTORS", ...
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::optional<std::vector<DeletionVectorMeta>> dv_ranges;
  std::optional<std::string> external_path;
};

// An index file as a writer reports it (Java's IndexFileMeta): the entry without kind, partition
// and bucket, which the commit message that carries it supplies.
struct IndexFileMeta {
  std::string index_type;
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::optional<std::vector<DeletionVectorMeta>> dv_ranges;
  std::optional<std::string> external_path;
};

inline IndexManifestEntry MakeIndexManifestEntry(FileKind kind, std::string partition,
                                                 int32_t bucket, const IndexFileMeta& f) {
  return IndexManifestEntry{kind,         std::move(partition), bucket,
                            f.index_type, f.file_name,          f.file_size,
                            f.row_count,  f.dv_ranges,          f.external_path};
}

inline IndexFileMeta IndexFileOf(const IndexManifestEntry& e) {
  return IndexFileMeta{e.index_type, e.file_name, e.file_size,
                       e.row_count,  e.dv_ranges, e.external_path};
}

// Readers of the three manifest kinds. `format` is the table's `manifest.format` ("avro" or
// "orc"); errors name the file and the field.
Result<std::vector<ManifestFileMeta>> ReadManifestList(FileIO* io, const std::string& path,
                                                       const std::string& format);
Result<std::vector<ManifestEntry>> ReadManifestFile(FileIO* io, const std::string& path,
                                                    const std::string& format);
// Only the entries whose stored partition `keep_partition` accepts; in Avro files the rest of a
// refused entry is skipped undecoded (manifest_entry_decoder.h).
Result<std::vector<ManifestEntry>> ReadManifestFile(
    FileIO* io, const std::string& path, const std::string& format,
    const std::function<bool(const std::string&)>* keep_partition);
// The same through the generic record reader (record_reader.h), which takes any file the direct
// decoder takes and some it does not: ORC, and Avro files of an unexpected shape, whose problem it
// names. Tests compare the two.
Result<std::vector<ManifestEntry>> ReadManifestFileGeneric(
    FileIO* io, const std::string& path, const std::string& format,
    const std::function<bool(const std::string&)>* keep_partition);
Result<std::vector<IndexManifestEntry>> ReadIndexManifest(FileIO* io, const std::string& path,
                                                          const std::string& format);

}  // namespace fjord
