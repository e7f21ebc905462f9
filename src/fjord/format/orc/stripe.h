// One stripe of an ORC file (ORC Specification v1, "Stripes"): the stripe footer's stream
// directory, column encodings and writer time zone, and the decompressed bytes of the streams a
// read needs.
//
// Layout: the streams lie one after another from the stripe's offset in the order the footer
// lists them (index streams first, then data streams), and the footer follows them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/format/orc/compression.h"
#include "fjord/format/orc/orc_types.h"
#include "fjord/result.h"

namespace fjord::orc {

// orc_proto.proto Stream.Kind (the kinds column decoders read).
enum class StreamKind : uint32_t {
  kPresent = 0,
  kData = 1,
  kLength = 2,
  kDictionaryData = 3,
  kDictionaryCount = 4,
  kSecondary = 5,
  kRowIndex = 6,
};

std::string StreamKindName(StreamKind kind);

// orc_proto.proto ColumnEncoding.Kind.
enum class EncodingKind : uint32_t {
  kDirect = 0,
  kDictionary = 1,
  kDirectV2 = 2,
  kDictionaryV2 = 3
};

struct ColumnEncoding {
  EncodingKind kind = EncodingKind::kDirect;
  uint32_t dictionary_size = 0;
};

// What column decoders read of one stripe. Tests fill it by hand.
struct StripeData {
  uint64_t rows = 0;
  std::vector<ColumnEncoding> encodings;  // by column id; missing ids are DIRECT
  std::string writer_timezone;            // empty when the footer records none
  std::map<std::pair<uint32_t, StreamKind>, std::string> streams;  // decompressed

  // The stream of `column`, or nullptr when the stripe has none (or it was not loaded).
  const std::string* Stream(uint32_t column, StreamKind kind) const {
    auto it = streams.find({column, kind});
    return it == streams.end() ? nullptr : &it->second;
  }
  ColumnEncoding Encoding(uint32_t column) const {
    return column < encodings.size() ? encodings[column] : ColumnEncoding{};
  }
};

// Largest decompressed stream or stripe footer accepted (hostile input must not exhaust memory).
inline constexpr uint64_t kOrcMaxStreamBytes = uint64_t{1} << 31;
// Most rows accepted in one stripe (Arrow arrays are indexed with 32-bit offsets).
inline constexpr uint64_t kOrcMaxStripeRows = (uint64_t{1} << 31) - 1;

// Reads stripe `index` of the file of `file_size` bytes described by `tail`: its footer, then the
// data streams (PRESENT, DATA, LENGTH, DICTIONARY_DATA, SECONDARY) of the columns whose ids are
// set in `columns` (indexed by column id), in one read spanning them. Corruption naming `source`
// and the stripe when the stripe's extent, its footer or its stream directory is invalid;
// NotImplemented for encrypted stripes.
Result<StripeData> ReadStripe(const OrcTail& tail, uint64_t file_size, const OrcReadAt& read_at,
                              size_t index, const std::vector<bool>& columns,
                              Decompressor* decompressor, std::string_view source);

}  // namespace fjord::orc
