// The first reading of a JSON line (json_lines.cc): the common shape of line read by one pass
// over its bytes, with no JSON parser. It takes a line that is one object, on one line, of
// members whose keys name the table's columns as written, with blanks (spaces) only between
// tokens, strings without control characters (values' escapes undone; a key with one is left),
// valid UTF-8 (checked by simdjson's validator when a string has a byte above 0x7f), and values of
// the plain types: strings, JSON numbers by JSON's grammar, true, false, null. Each value goes into
// its column as the other readings put it there (json_columns.h). Anything else, a value its column
// does not take included, and the line is left to the next reading: simdjson's walk, then the
// reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "fjord/format/json_columns.h"
#include "fjord/format/rows_builder.h"

namespace fjord {

// Reads the line at `data` (`size` bytes, followed by its '\n' or by zeros, at least 64
// readable bytes in all), after cols->Restart(). True when every member was set
// (the caller ends the line with cols->EndLine and `kind`); false when the line is left to
// another reading (the caller abandons the row and restarts the columns). `unescaped`: the
// caller's buffer for the text of strings with escapes.
bool ScanJsonLine(const char* data, size_t size, JsonLineColumns* cols, RowsBuilder* out,
                  int8_t* kind, std::string* unescaped);

// Whether every column is of a type ScanJsonLine reads (not one read from text through
// ValueFromText, nor a nested type).
bool ScannableColumns(JsonLineColumns& cols);

}  // namespace fjord
