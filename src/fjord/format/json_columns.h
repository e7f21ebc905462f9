// The table's columns as the two fast readings of a JSON line see them (json_lines.cc: the
// line scanner of json_line_scan.h first, simdjson's on-demand walk for the lines it leaves):
// how each column's value is read, which key names which column, which columns the line being
// read has given, and the conversions from a value's text that both readings share. A line
// either reading does not take is read by ParseJsonLine (json_values.h), the definition of what
// a line means; neither takes a line it would read differently.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/rows_builder.h"
#include "fjord/value.h"

namespace fjord {

// How a column's JSON value is read.
enum class JsonReadAs : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kString,       // STRING: no length to check
  kCheckedText,  // CHAR(n) / VARCHAR(n): length checked
  kDate,         // a JSON string through ParseDateText
  kTimestamp,    // TIMESTAMP / TIMESTAMP_LTZ: a JSON string through ParseTimestampText
  kDecimal,      // a number's text or a string through Decimal::FromString
  kFromText,     // a JSON string through ValueFromText (binary, times, ...)
  kNested,       // ARRAY / MAP / MULTISET / ROW: the value's JSON through ValueFromJson
};

class JsonLineColumns {
 public:
  static constexpr int kRowKind = -2;  // the key "_row_kind"
  static constexpr int kUnknown = -1;

  // The value of a column built through an Arrow builder (BOOLEAN, the types read from text,
  // the nested types) of the line being read: appended by EndLine. The other columns' values are
  // written as they are read (RowsBuilder::AbandonRow undoes a line left to another reading).
  struct Slot {
    bool null = false;
    bool boolean = false;
    Value value;
  };
  struct Name {
    size_t size = 0;
    uint64_t head = 0;  // the first (up to) eight bytes, zeros after
    uint64_t mask = 0;  // of the bytes of head that are the name's
    // The name has a backslash: a key written as the name is another name unescaped.
    bool backslash = false;
    // Neither a backslash, a quote nor a control character: a key as written is the name.
    bool plain = false;
  };
  // What a reading needs of a column, in one place.
  struct Plan {
    const DataType* type = nullptr;
    JsonReadAs read_as = JsonReadAs::kFromText;
    bool nullable = true;
    bool builder = false;  // built through an Arrow builder: its value waits in `slot`
    Name name;
    uint64_t seen = 0;       // the line that last gave the column a value
    int64_t per_second = 0;  // of a timestamp column
    bool ltz = false;        // TIMESTAMP_LTZ: its text ends in Z
    Slot slot;
  };

  // `out` gives each column's storage; `fields` must outlive this.
  JsonLineColumns(const std::vector<DataField>& fields, const RowsBuilder& out);

  size_t size() const { return plans_.size(); }
  Plan& plan(size_t c) { return plans_[c]; }

  // Starts a reading of a line: its columns not yet seen.
  void Restart() {
    ++row_;
    given_ = 0;
  }
  // Restarts for the walk, which takes a line (`size` bytes, followed by at least 16 readable
  // bytes) only when it has no control character (a raw one in a string is an error
  // ParseJsonLine words; a tab between tokens is rare), a trailing '\r' aside: false otherwise.
  // Sets escapes().
  bool BeginLine(const char* data, size_t size);
  // The line has a backslash anywhere (else no string in it has an escape).
  bool escapes() const { return escapes_; }

  // The column `key` (as written, not unescaped) names, or kRowKind, or kUnknown; asked of
  // `expected` first (lines usually give the columns in the table's order). A key written as a
  // name with a backslash is kUnknown here (the walk unescapes it). The key is followed by at
  // least eight readable bytes.
  int Match(std::string_view key, int expected) const {
    if (InInput(key, expected)) return expected;
    const int c = Lookup(key);
    return c >= 0 && plans_[static_cast<size_t>(c)].name.backslash ? kUnknown : c;
  }
  int Lookup(std::string_view key) const;
  // Whether the text at `p`, before `end`, is column c's name as written followed by its
  // closing quote (`end` is followed by at least eight readable bytes).
  bool NameAt(const char* p, const char* end, int c) const {
    if (static_cast<size_t>(c) >= plans_.size()) return false;
    const Name& n = plans_[static_cast<size_t>(c)].name;
    if (!n.plain || static_cast<size_t>(end - p) <= n.size || p[n.size] != '"') return false;
    uint64_t head;
    std::memcpy(&head, p, 8);
    if ((head & n.mask) != n.head) return false;
    return n.size <= 8 ||
           std::memcmp(p + 8, fields_[static_cast<size_t>(c)].name.data() + 8, n.size - 8) == 0;
  }
  size_t NameSize(int c) const { return plans_[static_cast<size_t>(c)].name.size; }
  // Marks column c given by the line; false when it was already (a duplicate key).
  bool Take(size_t c) {
    Plan& p = plans_[c];
    if (p.seen == row_) return false;
    p.seen = row_;
    ++given_;
    return true;
  }
  // The "_row_kind" value's text; false when given twice or not a kind.
  bool TakeRowKind(std::string_view text, int8_t* kind);

  // Ends the line: the columns it left out are NULL (false when one is NOT NULL), the builder
  // columns' values appended, the row ended with `kind`.
  Result<bool> EndLine(RowsBuilder* out, int8_t kind);

  // Conversions of a value into column c (false: not taken; the caller abandons the line). An
  // integer into a TINYINT, SMALLINT, INT or BIGINT column, within its range.
  bool SetInteger(size_t c, int64_t v, RowsBuilder* out) {
    const JsonReadAs read_as = plans_[c].read_as;
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (read_as == JsonReadAs::kInt8) lo = INT8_MIN, hi = INT8_MAX;
    if (read_as == JsonReadAs::kInt16) lo = INT16_MIN, hi = INT16_MAX;
    if (read_as == JsonReadAs::kInt32) lo = INT32_MIN, hi = INT32_MAX;
    if (v < lo || v > hi) return false;
    out->SetInteger(c, v);
    return true;
  }
  // A null into a nullable column.
  bool SetNull(size_t c, RowsBuilder* out);
  // A JSON string's text (unescaped) into a STRING, CHAR or VARCHAR column; `padded`: the text
  // is followed by at least 32 readable bytes.
  bool SetText(size_t c, std::string_view text, bool padded, RowsBuilder* out);
  // A JSON string's text into a DATE, TIMESTAMP, DECIMAL column (no blanks around it: the
  // reference words that error), or FLOAT / DOUBLE ("NaN", "Infinity", "-Infinity").
  bool SetFromString(size_t c, std::string_view text, RowsBuilder* out);
  // A JSON number's text (as ParseJsonLine gives it: an integer "-0" is "0") into a FLOAT or
  // DECIMAL column; the number is known to be a double in range.
  bool SetFromNumberText(size_t c, std::string_view text, RowsBuilder* out);

 private:
  // Whether `key` is column c's name as written; a name with a backslash never is.
  bool InInput(std::string_view key, int c) const {
    if (static_cast<size_t>(c) >= plans_.size()) return false;
    const Name& n = plans_[static_cast<size_t>(c)].name;
    if (key.size() != n.size || n.backslash) return false;
    uint64_t head;
    std::memcpy(&head, key.data(), 8);
    if ((head & n.mask) != n.head) return false;
    return n.size <= 8 ||
           std::memcmp(key.data() + 8, fields_[static_cast<size_t>(c)].name.data() + 8,
                       n.size - 8) == 0;
  }

  // A key's text hashed for lookups without a copy.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
  };

  const std::vector<DataField>& fields_;
  std::vector<Plan> plans_;
  std::unordered_map<std::string, int, KeyHash, std::equal_to<>> index_;
  std::vector<size_t> deferred_;  // the builder columns
  uint64_t row_ = 0;
  uint64_t seen_row_kind_ = 0;
  size_t given_ = 0;  // columns the line has given
  bool escapes_ = false;
};

}  // namespace fjord
