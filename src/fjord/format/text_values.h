// Exact text-to-value parsing for input rows: the text forms of `fjord cat` (and of CSV cells)
// read back as values of a column's type, refusing what the type cannot hold instead of changing
// it. Shared by the CSV reader, the JSON-lines reader (strings inside JSON: dates, times,
// decimals, base64) and the checked conversion of string columns of Arrow and Parquet input.
//
// The rules (docs/writing.md, "Exact conversion"):
//  * no leading or trailing blanks, except in strings;
//  * BOOLEAN: true/false, t/f, yes/no, y/n, 1/0, any case (Java's string-to-boolean cast);
//  * integers: optional sign and decimal digits, in the type's range;
//  * FLOAT/DOUBLE: decimal or scientific notation, NaN, Infinity, -Infinity; a finite value too
//    large for the type is an error (rounding to the nearest float is not);
//  * DECIMAL(p, s): excess scale digits round HALF_UP (Java's BigDecimal.setScale), more than
//    p - s integer digits is an error;
//  * CHAR(n)/VARCHAR(n): byte for byte, at most n characters (Unicode code points);
//  * BINARY(n)/VARBINARY(n): base64 (RFC 4648, padded), at most n bytes;
//  * DATE YYYY-MM-DD, TIME HH:MM:SS[.f], TIMESTAMP YYYY-MM-DD[( |T)HH:MM:SS[.f]] (LTZ ending in
//    Z): real calendar dates and times of day; fraction digits beyond the precision (or beyond
//    milliseconds for TIME, which Paimon stores in milliseconds) must be zeros;
//  * ARRAY, MAP, MULTISET, ROW: their canonical JSON text (json_values.h).
// Nothing here uses Arrow.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

// `text` as a value of `type`. Errors are Invalid and quote the text; callers add where it was.
Result<Value> ValueFromText(std::string_view text, const DataType& type);

// The parsers ValueFromText uses, for readers whose input is already typed in part (JSON).
Result<bool> ParseBooleanText(std::string_view text);
Result<int64_t> ParseIntegerText(std::string_view text, const DataType& type);
Result<double> ParseDoubleText(std::string_view text);
Result<float> ParseFloatText(std::string_view text);
// Days since 1970-01-01.
Result<int32_t> ParseDateText(std::string_view text);
// Milliseconds of the day of TIME(precision).
Result<int32_t> ParseTimeText(std::string_view text, int32_t precision);
// TIMESTAMP(precision) or, with `ltz`, TIMESTAMP_LTZ(precision) (the text ends in Z).
Result<Timestamp> ParseTimestampText(std::string_view text, int32_t precision, bool ltz);
// The common form YYYY-MM-DD(T| )HH:MM:SS[.f] of a valid date and time with no more fraction
// digits than `precision` (at most 6), read in one pass: ParseTimestampText's first reading
// (without the Z of TIMESTAMP_LTZ). False leaves the text to ParseTimestampText, which gives
// the same value for every text this takes.
bool ParsePlainTimestamp(std::string_view text, int32_t precision, Timestamp* out);
Result<std::string> Base64DecodeText(std::string_view text);

// Invalid when `text` has blanks (space, tab, CR, LF) at either end, which only CHAR and VARCHAR
// values may have.
Status CheckNoBlankEdges(std::string_view text, const DataType& type);

// Invalid unless `value` (a string of CHAR/VARCHAR or bytes of BINARY/VARBINARY) fits the
// type's length.
Status CheckLength(std::string_view value, const DataType& type);

// `value` as a FLOAT: Invalid when finite but beyond FLOAT's range.
Result<float> NarrowToFloat(double value);

}  // namespace fjord
