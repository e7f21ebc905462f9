// Writers of the three manifest kinds (spec/format.md §4.1–4.7), producing the files exactly as
// Java Paimon 1.4 writes them: the 1.4 Avro writer schema with every field, Java's record names
// ("record", "record__FILE", ...), nullable fields as ["null", T] with default null, `_VERSION`
// 2 (manifest list, manifest) and 1 (index manifest), and only "avro.schema" and "avro.codec" in
// the header. BinaryRow-valued fields are written verbatim from the structs (their stored form:
// 4-byte big-endian arity, then the row), so a read followed by a write keeps every byte that
// identifies a file.
//
// With `manifest.format = orc` the same rows are written as ORC, the way Java 1.4 writes them
// (OrcFileFormat over the VersionedObjectSerializer row types): one struct column per field,
// TINYINT _KIND/_FILE_SOURCE as ORC byte, _CREATION_TIME as ORC timestamp, nested records as
// structs, arrays as lists, and Java's field ids as `paimon.id` type attributes (SpecialFields ids
// for list elements). Written through Arrow's ORC writer (liborc).
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
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/result.h"

namespace fjord {

// Table option `manifest.format`.
enum class ManifestFormat : unsigned char { kAvro, kOrc };

struct ManifestWriterOptions {
  ManifestFormat format = ManifestFormat::kAvro;
  // Avro: table option `manifest.compression` (default "zstd" = Avro "zstandard").
  avro::Codec codec = avro::Codec::kZstandard;
  // Table option `file.compression.zstd-level` for zstandard (ORC: `orc.compression.zstd.level`
  // first); nullopt = the codec's default (zstandard 1, deflate 6). Arrow's ORC writer takes no
  // level, only liborc's strategy: level <= 1 writes zstd level 1 (Java's default), higher levels
  // write level 3.
  std::optional<int> compression_level;
  // ORC: Java's CompressionKind name (upper case): NONE, ZLIB, SNAPPY, LZ4 or ZSTD, from
  // `orc.compress` if set, else `manifest.compression`.
  std::string orc_compression = "ZSTD";
  // The 16-byte sync marker; random when absent (set it for reproducible bytes in tests).
  std::optional<std::string> sync_marker;
  // Zstandard frames carry a content checksum. Java (Avro's ZstandardCodec, as Paimon creates it)
  // writes none (off here too, as Java); Java's reader verifies one when present.
  bool zstd_checksum = false;

  // The options Java derives from a table's options: `manifest.format` ("avro" by default, or
  // "orc"; NotImplemented for "parquet", Invalid for others). Avro: `avro.codec` if set, else
  // `manifest.compression` ("zstd" means "zstandard"; other names are Avro codec names). ORC:
  // `orc.compress` if set, else `manifest.compression`, upper-cased as Java does (Invalid for a
  // name Java's ORC does not know, such as "deflate"; NotImplemented for LZO, which liborc cannot
  // write). Both: `file.compression.zstd-level`. Invalid for a bad level.
  static Result<ManifestWriterOptions> FromOptions(const CoreOptions& options);
  // The same from an effective table options map (parsed as CoreOptions first).
  static Result<ManifestWriterOptions> FromTableOptions(
      const std::map<std::string, std::string>& table_options);
};

// The Avro writer schemas of Java Paimon 1.4, as the JSON text Java stores under "avro.schema".
std::string_view ManifestListAvroSchema();
std::string_view ManifestFileAvroSchema();
std::string_view IndexManifestAvroSchema();

// Whole-file encoders, in options.format. Invalid when an entry cannot be represented (an int
// field out of range).
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
