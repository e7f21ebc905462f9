// Hash index files of dynamic-bucket primary-key tables (spec/format.md §9.1): the key hashes
// (Java's BinaryRow.hashCode() of the trimmed primary key, format/bucket.h) of the keys stored in
// one (partition, bucket), as big-endian int32 values back to back, with no header or footer.
// They live in the table's `index/` directory as `index-<uuid>-<n>` and are listed in the
// snapshot's index manifest with `_INDEX_TYPE` "HASH", `_ROW_COUNT` = number of hashes and
// `_FILE_SIZE` = 4 × that.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/table_paths.h"
#include "fjord/result.h"

namespace fjord {

inline constexpr std::string_view kHashIndexType = "HASH";

// The bytes of a hash index file holding `hashes` in the given order.
std::string EncodeHashIndex(const std::vector<int32_t>& hashes);
// The hashes in `bytes`; Corruption naming `file` when the length is not a multiple of 4.
Result<std::vector<int32_t>> DecodeHashIndex(std::string_view bytes, std::string_view file);

// Where an index file lives: its external path if it has one, else `index/<file name>`.
std::string IndexFilePath(const TablePaths& paths, const IndexManifestEntry& entry);

// Reads the hash index file `entry` lists. Invalid when `entry` is not a HASH entry; Corruption
// naming the file when its size disagrees with the entry's `_FILE_SIZE` or `_ROW_COUNT` or is
// not a whole number of hashes.
Result<std::vector<int32_t>> ReadHashIndexFile(FileIO* io, const TablePaths& paths,
                                               const IndexManifestEntry& entry);

// Writes `hashes` as `index/<file_name>` (created whole, AlreadyExists if taken) and returns its
// index manifest entry (kind ADD, type HASH) for (`partition`, `bucket`).
Result<IndexManifestEntry> WriteHashIndexFile(FileIO* io, const TablePaths& paths,
                                              const std::string& file_name,
                                              const std::string& partition, int32_t bucket,
                                              const std::vector<int32_t>& hashes);

}  // namespace fjord
