#include "fjord/meta/hash_index.h"

#include "fjord/common/byte_order.h"

namespace fjord {

std::string EncodeHashIndex(const std::vector<int32_t>& hashes) {
  std::string out(hashes.size() * 4, '\0');
  for (size_t i = 0; i < hashes.size(); ++i) {
    StoreBigEndian32(out.data() + 4 * i, static_cast<uint32_t>(hashes[i]));
  }
  return out;
}

Result<std::vector<int32_t>> DecodeHashIndex(std::string_view bytes, std::string_view file) {
  if (bytes.size() % 4 != 0) {
    return Status::Corruption("hash index file ", file, " has ", bytes.size(),
                              " bytes, not a whole number of 4-byte hashes");
  }
  std::vector<int32_t> hashes(bytes.size() / 4);
  for (size_t i = 0; i < hashes.size(); ++i) {
    hashes[i] = static_cast<int32_t>(LoadBigEndian32(bytes.data() + 4 * i));
  }
  return hashes;
}

std::string IndexFilePath(const TablePaths& paths, const IndexManifestEntry& entry) {
  return entry.external_path ? *entry.external_path : paths.IndexFile(entry.file_name);
}

Result<std::vector<int32_t>> ReadHashIndexFile(FileIO* io, const TablePaths& paths,
                                               const IndexManifestEntry& entry) {
  std::string path = IndexFilePath(paths, entry);
  if (entry.index_type != kHashIndexType) {
    return Status::Invalid("index file ", path, " has type '", entry.index_type,
                           "', not a hash index");
  }
  Result<std::string> bytes = io->ReadFile(path);
  if (!bytes.ok()) return bytes.status().WithContext("reading hash index file ", path);
  auto size = static_cast<int64_t>(bytes->size());
  if (size != entry.file_size || size != 4 * entry.row_count) {
    return Status::Corruption("hash index file ", path, " has ", size,
                              " bytes but the index manifest says _FILE_SIZE = ", entry.file_size,
                              " and _ROW_COUNT = ", entry.row_count, " (4 bytes per hash)");
  }
  return DecodeHashIndex(*bytes, path);
}

Result<IndexManifestEntry> WriteHashIndexFile(FileIO* io, const TablePaths& paths,
                                              const std::string& file_name,
                                              const std::string& partition, int32_t bucket,
                                              const std::vector<int32_t>& hashes) {
  std::string bytes = EncodeHashIndex(hashes);
  FJORD_RETURN_NOT_OK(io->CreateIfAbsent(paths.IndexFile(file_name), bytes));
  IndexManifestEntry e;
  e.kind = FileKind::kAdd;
  e.partition = partition;
  e.bucket = bucket;
  e.index_type = std::string(kHashIndexType);
  e.file_name = file_name;
  e.file_size = static_cast<int64_t>(bytes.size());
  e.row_count = static_cast<int64_t>(hashes.size());
  return e;
}

}  // namespace fjord
