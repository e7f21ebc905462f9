// The ORC file model Fjord's ORC code shares (ORC Specification v1, orc_proto.proto): compression
// kinds, the type tree, column statistics, stripe information, the parsed file tail (OrcTail, read
// by orc_tail.h), the limits that keep hostile input from exhausting memory, and the random-access
// read callback.
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
  // Where the Metadata section (the statistics of each stripe) starts, and its bytes as stored
  // (compressed) when the first read of the tail covered them; empty otherwise
  // (ReadOrcStripeStats then reads them).
  uint64_t metadata_offset = 0;
  std::string metadata;
};

// Limits that keep hostile input from exhausting memory.
inline constexpr uint64_t kOrcMaxFooterBytes = uint64_t{64} << 20;  // decompressed footer
inline constexpr uint64_t kOrcMaxBlockSize = uint64_t{64} << 20;    // compressionBlockSize
// Types + subtypes + field names + attributes + statistics entries + stripes, together.
inline constexpr uint64_t kOrcMaxElements = uint64_t{1} << 20;

// Reads `length` bytes at `offset` of the file. Returning fewer bytes is treated as corruption.
using OrcReadAt = std::function<Result<std::string>(uint64_t offset, uint64_t length)>;

}  // namespace fjord
