// A small, hardened reader of the tail of an ORC file (ORC Specification v1, "File Tail"):
//
//   ... stripes ... | Metadata | Footer | PostScript | psLen (1 byte)
//
// The PostScript is an uncompressed protobuf message; the Footer is compressed with the file's
// codec in ORC's chunked framing (a 3-byte little-endian header (length << 1) | isOriginal before
// each chunk). From the Footer we keep the type tree, the row count and the file-level column
// statistics; stripes are only counted and the Metadata section (stripe statistics) is not read.
//
// Why our own: Arrow's ORC adapter aborts the process (an ARROW_CHECK) when a MAP column holds a
// NULL key, which Java writers produce legitimately, and ORC's own C++ API is not exported from
// the Arrow build Fjord uses. Reading the tail first lets Fjord send such files to its own ORC
// reader (orc/orc_reader.h) before Arrow sees them. The protobuf wire format is decoded by hand
// (orc/protobuf.h); decompression is orc/compression.h.
//
// Every length and offset is validated: bad input ends in Status::Corruption naming the source,
// never a crash. Inputs beyond the limits below are refused as Corruption too. Codecs: NONE, ZLIB,
// SNAPPY, LZ4 and ZSTD; LZO is NotImplemented.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fjord/result.h"

namespace arrow::io {
class RandomAccessFile;
}  // namespace arrow::io

namespace fjord {

// orc_proto.proto CompressionKind.
enum class OrcCompression : uint8_t {
  kNone = 0,
  kZlib = 1,
  kSnappy = 2,
  kLzo = 3,
  kLz4 = 4,
  kZstd = 5
};

// orc_proto.proto Type.Kind. Files may carry kinds newer than this list; OrcType keeps the number.
enum class OrcTypeKind : uint32_t {
  kBoolean = 0,
  kByte = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kFloat = 5,
  kDouble = 6,
  kString = 7,
  kBinary = 8,
  kTimestamp = 9,
  kList = 10,
  kMap = 11,
  kStruct = 12,
  kUnion = 13,
  kDecimal = 14,
  kDate = 15,
  kVarchar = 16,
  kChar = 17,
  kTimestampInstant = 18,
};

std::string_view OrcCompressionName(OrcCompression compression);
// "STRUCT", "MAP", ...; "KIND(<n>)" for kinds this code does not know.
std::string OrcTypeKindName(OrcTypeKind kind);

// One node of the type tree. Column ids are indexes into OrcTail::types, in pre-order: the root
// is 0 and every subtype id is greater than its parent's.
struct OrcType {
  OrcTypeKind kind = OrcTypeKind::kBoolean;
  std::vector<uint32_t> subtypes;
  std::vector<std::string> field_names;  // STRUCT only: one per subtype
  std::vector<std::pair<std::string, std::string>> attributes;
  std::optional<uint32_t> maximum_length;  // CHAR, VARCHAR
  std::optional<uint32_t> precision;       // DECIMAL
  std::optional<uint32_t> scale;           // DECIMAL
};

// Typed statistics, as the writer recorded them (ORC spec "Column Statistics").
struct OrcIntegerStats {
  std::optional<int64_t> minimum, maximum, sum;
};
struct OrcDoubleStats {
  std::optional<double> minimum, maximum, sum;
};
struct OrcStringStats {
  std::optional<std::string> minimum, maximum;
  std::optional<int64_t> sum;  // total length
  // Truncated bounds that writers store instead of minimum/maximum for long strings.
  std::optional<std::string> lower_bound, upper_bound;
};
struct OrcDecimalStats {
  std::optional<std::string> minimum, maximum, sum;  // decimal text, e.g. "-12.50"
};
struct OrcDateStats {
  std::optional<int32_t> minimum, maximum;  // days since 1970-01-01
};
struct OrcTimestampStats {
  std::optional<int64_t> minimum, maximum;          // millis, writer's local time (pre ORC-135)
  std::optional<int64_t> minimum_utc, maximum_utc;  // millis since the epoch, UTC
  // Nanos within the millisecond plus one, as written (Java writes them only when not 0 / 999999).
  std::optional<int32_t> minimum_nanos, maximum_nanos;
};

using OrcTypedStats = std::variant<std::monostate, OrcIntegerStats, OrcDoubleStats, OrcStringStats,
                                   OrcDecimalStats, OrcDateStats, OrcTimestampStats>;

struct OrcColumnStats {
  std::optional<uint64_t> number_of_values;  // non-null values
  // Absent in files of writers that predate the field (Hive 0.11/0.12); every ORC 1.x writer,
  // Java's and C++'s, records it.
  std::optional<bool> has_null;
  // At most one kind per column in files real writers make; if a file holds several, the last
  // one wins.
  OrcTypedStats typed;
};

// Where one stripe lies (Footer.stripes, StripeInformation), as the footer records it; ReadOrcTail
// does not check it against the file (the stripe reader does).
struct OrcStripeInfo {
  uint64_t offset = 0;
  uint64_t index_length = 0;
  uint64_t data_length = 0;
  uint64_t footer_length = 0;
  uint64_t rows = 0;
};

struct OrcTail {
  // PostScript.
  OrcCompression compression = OrcCompression::kNone;
  uint64_t compression_block_size = 0;  // 0 when the file is not compressed
  std::vector<uint32_t> version;        // e.g. {0, 12}
  uint32_t writer_version = 0;
  uint64_t footer_length = 0;    // compressed bytes
  uint64_t metadata_length = 0;  // compressed bytes
  // Footer.
  uint64_t rows = 0;
  uint64_t stripe_count = 0;
  std::vector<OrcStripeInfo> stripes;  // stripe_count of them
  uint32_t row_index_stride = 0;
  std::optional<uint32_t> writer;  // 0 = ORC Java, 1 = ORC C++, ...
  std::optional<std::string> software_version;
  std::vector<OrcType> types;  // never empty; a valid tree (see OrcType)
  // Usually one per type; may be fewer (even none) when the writer did not record them.
  std::vector<OrcColumnStats> stats;
};

// Limits that keep hostile input from exhausting memory.
inline constexpr uint64_t kOrcMaxFooterBytes = uint64_t{64} << 20;  // decompressed footer
inline constexpr uint64_t kOrcMaxBlockSize = uint64_t{64} << 20;    // compressionBlockSize
// Types + subtypes + field names + attributes + statistics entries + stripes, together.
inline constexpr uint64_t kOrcMaxElements = uint64_t{1} << 20;

// Reads `length` bytes at `offset` of the file. Returning fewer bytes is treated as corruption.
using OrcReadAt = std::function<Result<std::string>(uint64_t offset, uint64_t length)>;

// Parses the tail of the ORC file of `file_size` bytes read through `read_at`: first its last
// 16 KiB, then the footer alone if it starts earlier. `source` names the file in errors.
Result<OrcTail> ReadOrcTail(uint64_t file_size, const OrcReadAt& read_at, std::string_view source);
// The same for a file held in memory.
Result<OrcTail> ReadOrcTail(std::string_view file_bytes, std::string_view source);
// The same reading through `file` (not owned; only ReadAt and GetSize are used).
Result<OrcTail> ReadOrcTail(arrow::io::RandomAccessFile* file, std::string_view source);

// Whether the subtree of `column` holds a MAP whose key column may contain NULLs. The key column's
// hasNull statistic decides; when that statistic (or the column's statistics entry) is absent we
// cannot know and answer true, unless the file has no rows. Precondition: column < types.size().
bool HasMapWithNullKeys(const OrcTail& tail, uint32_t column);

// The top-level columns (field names of the root STRUCT, in file order) whose subtree holds a MAP
// with NULL keys, per HasMapWithNullKeys; empty when the root is not a STRUCT.
std::vector<std::string> MapColumnsWithNullKeys(const OrcTail& tail);

// OK when Arrow's ORC adapter can read the top-level `columns` (all of them when empty) of the
// file with this tail without aborting; NotImplemented naming `source` and the column otherwise:
// the root type is not a STRUCT, or a column holds a MAP with NULL keys. Names the file does not
// have are ignored (the caller reports them).
Status CheckArrowCanReadOrc(const OrcTail& tail, const std::vector<std::string>& columns,
                            std::string_view source);

}  // namespace fjord
