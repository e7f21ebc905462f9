// The Java behaviours the computed columns (computed_column.h) rest on, each as the Java method
// it copies: String.split / trim / substring / toUpperCase, Integer.parseInt, Long.parseLong,
// the epoch numbers of TemporalExpressionBase, TruncateComputer and DfsSort.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fjord/cdc/java_time_text.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

// String.split(ch): trailing empty parts dropped ("a,," gives {"a"}, "," gives {}, "" gives
// {""}).
std::vector<std::string> JavaSplit(std::string_view text, char ch);
// String.trim(): every character up to U+0020 off both ends.
std::string JavaTrim(std::string_view text);
// "a, b, c".
std::string Join(const std::vector<std::string>& parts);

// Integer.parseInt / Long.parseLong / Short.parseShort: an optional sign, then decimal digits,
// in range; nullopt otherwise.
std::optional<int32_t> ParseJavaInt(std::string_view text);
std::optional<int64_t> ParseJavaLong(std::string_view text);
std::optional<int16_t> ParseJavaShort(std::string_view text);

// An epoch number of `precision` 0, 3, 6 or 9 as Java's TemporalExpressionBase reads it (the
// UTC wall clock; Java's long arithmetic, truncating division; a negative micro or nano number
// with a sub-millisecond part fails as Java's Timestamp check does).
Result<LocalDateTime> EpochToLocalDateTime(int64_t value, int precision);

// String.substring(begin[, end]) in UTF-16 code units; nullopt when out of range. A cut through
// a surrogate pair leaves '?' for the lone half.
std::optional<std::string> Utf16Substring(std::string_view text, int64_t begin,
                                          std::optional<int64_t> end);

// TruncateComputer.eval: TINYINT/SMALLINT/INT/BIGINT to a multiple of `width` (towards negative
// infinity, with Java's int / long overflow), DECIMAL's unscaled value likewise (printed as
// BigDecimal.toString), CHAR/VARCHAR cut to `width` UTF-16 units. Another type: Invalid
// "unsupported type".
Result<std::string> TruncateText(const std::string& text, const DataType& type, int32_t width);

// String.toUpperCase() / toLowerCase(): ASCII exactly, other characters by the C library's
// simple case mapping of C.UTF-8 (Java's one-to-many mappings such as 'ß' to "SS" are not made).
std::string JavaCase(std::string_view text, bool upper);

// Java's DfsSort.sortKeys over (computed column, the name its first argument gives): those not
// referencing another computed column first, in their order, then the others after what they
// reference. A cycle is Invalid naming a column in it.
Result<std::vector<std::string>> JavaDfsSort(
    const std::vector<std::pair<std::string, std::string>>& refs);

}  // namespace fjord::cdc
