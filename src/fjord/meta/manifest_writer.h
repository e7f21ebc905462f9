// Writers of the three manifest kinds (spec/format.md §4.1–4.7), producing the files exactly as
// Java Paimon 1.4 writes them: the 1.4 Avro writer schema with every field, Java's record names
// ("record", "record__FILE", ...), nullable fields as ["null", T] with default null, `_VERSION`
// 2 (manifest list, manifest) and 1 (index manifest), and only "avro.schema" and "avro.codec" in
// the header. BinaryRow-valued fields are written verbatim from the structs (their stored form:
// 4-byte big-endian arity, then the row), so a read followed by a write keeps every byte that
// identifies a file.
//
// Encode* build a whole file in memory; Write* publish it with FileIO::CreateIfAbsent (the file
// appears whole or not at all; AlreadyExists if something is at the path) and return its size,
// which callers store in the snapshot (manifest lists) or the manifest list (manifest files).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/format/avro/codec.h"
#include "fjord/meta/manifest.h"
#include "fjord/result.h"

namespace fjord {

struct ManifestWriterOptions {
  // Table option `manifest.compression` (default "zstd" = Avro "zstandard").
  avro::Codec codec = avro::Codec::kZstandard;
  // Table option `file.compression.zstd-level` for zstandard; nullopt = the codec's default
  // (zstandard 1, deflate 6).
  std::optional<int> compression_level;
  // The 16-byte sync marker; random when absent (set it for reproducible bytes in tests).
  std::optional<std::string> sync_marker;
  // Zstandard frames carry a content checksum. Java (Avro's ZstandardCodec, as Paimon creates it)
  // writes none (off here too, as Java); Java's reader verifies one when present.
  bool zstd_checksum = false;

  // The options Java derives from a table's options: `avro.codec` if set, else
  // `manifest.compression` ("zstd" means "zstandard"; other names are Avro codec names), and
  // `file.compression.zstd-level`. Invalid for an unknown codec or a bad level.
  static Result<ManifestWriterOptions> FromTableOptions(
      const std::map<std::string, std::string>& table_options);
};

// The Avro writer schemas of Java Paimon 1.4, as the JSON text Java stores under "avro.schema".
std::string_view ManifestListAvroSchema();
std::string_view ManifestFileAvroSchema();
std::string_view IndexManifestAvroSchema();

// Whole-file encoders. Invalid when an entry cannot be represented (an int field out of range).
Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas,
                                       const ManifestWriterOptions& options = {});
Result<std::string> EncodeManifestFile(const std::vector<ManifestEntry>& entries,
                                       const ManifestWriterOptions& options = {});
// `_GLOBAL_INDEX` (1.4 global indexes) is not modelled by IndexManifestEntry and written as null.
Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const ManifestWriterOptions& options = {});

// Encode, then publish at `path` with CreateIfAbsent. Returns the file's exact size in bytes.
Result<int64_t> WriteManifestList(FileIO* io, const std::string& path,
                                  const std::vector<ManifestFileMeta>& metas,
                                  const ManifestWriterOptions& options = {});
Result<int64_t> WriteManifestFile(FileIO* io, const std::string& path,
                                  const std::vector<ManifestEntry>& entries,
                                  const ManifestWriterOptions& options = {});
Result<int64_t> WriteIndexManifest(FileIO* io, const std::string& path,
                                   const std::vector<IndexManifestEntry>& entries,
                                   const ManifestWriterOptions& options = {});

}  // namespace fjord
