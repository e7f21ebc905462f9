#include "fjord/format/orc/orc_types.h"

#include <iterator>

namespace fjord {

std::string_view OrcCompressionName(OrcCompression compression) {
  switch (compression) {
    case OrcCompression::kNone:
      return "NONE";
    case OrcCompression::kZlib:
      return "ZLIB";
    case OrcCompression::kSnappy:
      return "SNAPPY";
    case OrcCompression::kLzo:
      return "LZO";
    case OrcCompression::kLz4:
      return "LZ4";
    case OrcCompression::kZstd:
      return "ZSTD";
  }
  return "?";
}

std::string OrcTypeKindName(OrcTypeKind kind) {
  static constexpr const char* kNames[] = {
      "BOOLEAN",          "BYTE",   "SHORT",   "INT",       "LONG",    "FLOAT",
      "DOUBLE",           "STRING", "BINARY",  "TIMESTAMP", "LIST",    "MAP",
      "STRUCT",           "UNION",  "DECIMAL", "DATE",      "VARCHAR", "CHAR",
      "TIMESTAMP_INSTANT"};
  auto k = static_cast<uint32_t>(kind);
  if (k < std::size(kNames)) return kNames[k];
  return "KIND(" + std::to_string(k) + ")";
}

}  // namespace fjord
