// A small, hardened reader of the tail of an ORC file (ORC Specification v1, "File Tail"):
//
//   ... stripes ... | Metadata | Footer | PostScript | psLen (1 byte)
//
// The PostScript is an uncompressed protobuf message; the Footer is compressed with the file's
// codec in ORC's chunked framing (a 3-byte little-endian header (length << 1) | isOriginal before
// each chunk). From the Footer we keep the type tree, the row count, the stripes and the
// file-level column statistics; the Metadata section (the statistics of each stripe) is parsed
// only on demand (ReadOrcStripeStats), for the columns asked for.
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
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/orc/orc_types.h"
#include "fjord/result.h"

namespace arrow::io {
class RandomAccessFile;
}  // namespace arrow::io

namespace fjord {

// Parses the tail of the ORC file of `file_size` bytes read through `read_at`: first its last
// 16 KiB, then the footer alone if it starts earlier. `source` names the file in errors.
Result<OrcTail> ReadOrcTail(uint64_t file_size, const OrcReadAt& read_at, std::string_view source);
// The same for a file held in memory.
Result<OrcTail> ReadOrcTail(std::string_view file_bytes, std::string_view source);
// The same reading through `file` (not owned; only ReadAt and GetSize are used).
Result<OrcTail> ReadOrcTail(arrow::io::RandomAccessFile* file, std::string_view source);

// Calls `on_stripe(index, stats)` for each StripeStatistics message of the Metadata section of the
// file with this tail, in stripe order; `stats[k]` holds the statistics of column id
// `columns[k]` (distinct ids; default-constructed when the message has none for it). The section is
// read through `read_at` unless the tail holds it. A file without a Metadata section calls nothing;
// the caller compares the number of calls with the stripe count. Malformed input and a section
// decompressing to more than kOrcMaxFooterBytes are Corruption naming `source`; an error of
// `on_stripe` ends the walk and is returned.
Status ReadOrcStripeStats(
    const OrcTail& tail, uint64_t file_size, const OrcReadAt& read_at, std::string_view source,
    const std::vector<uint32_t>& columns,
    const std::function<Status(size_t index, const std::vector<OrcColumnStats>& stats)>& on_stripe);

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
