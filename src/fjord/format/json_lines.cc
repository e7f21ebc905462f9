// ParseJsonLines (input_rows.h): JSON lines into canonical Arrow columns.
//
// simdjson's on-demand parser reads each line and its values go straight into the columns
// (RowsBuilder), each as it is read. json_values.h stays the definition of what a line means:
// whenever this fast path does not take a line as plainly valid (any JSON or type error, a
// duplicate key, an unknown column, a control character, a NULL for a NOT NULL column), the
// values it wrote are abandoned (RowsBuilder::AbandonRow) and the line is read again by
// ParseJsonLine, which gives the values or the exact error. The fast path only
// decides the lines whose values it reads the way ParseJsonLine does (json_lines_test.cc
// compares the two on generated lines).
#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/input_rows.h"
#include "fjord/format/json_values.h"
#include "fjord/format/rows_builder.h"
#include "fjord/format/text_values.h"

namespace fjord {

namespace {

namespace od = simdjson::ondemand;

// How a column's JSON value is read.
enum class ReadAs {
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

ReadAs ReadAsFor(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return ReadAs::kBool;
    case TypeRoot::kTinyInt:
      return ReadAs::kInt8;
    case TypeRoot::kSmallInt:
      return ReadAs::kInt16;
    case TypeRoot::kInt:
      return ReadAs::kInt32;
    case TypeRoot::kBigInt:
      return ReadAs::kInt64;
    case TypeRoot::kFloat:
      return ReadAs::kFloat;
    case TypeRoot::kDouble:
      return ReadAs::kDouble;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return type.root() == TypeRoot::kVarChar && type.length() == DataType::kMaxLength
                 ? ReadAs::kString
                 : ReadAs::kCheckedText;
    case TypeRoot::kDecimal:
      return ReadAs::kDecimal;
    case TypeRoot::kDate:
      return ReadAs::kDate;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return ReadAs::kTimestamp;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return ReadAs::kNested;
    default:
      return ReadAs::kFromText;
  }
}

// The value of a column built through an Arrow builder (BOOLEAN, the types read from text, the
// nested types) of the line being read: appended once the whole line is taken. The other
// columns' values are written as they are read (RowsBuilder::AbandonRow undoes a line left to
// ParseJsonLine).
struct Slot {
  bool null = false;
  bool boolean = false;
  Value value;
};

constexpr int kRowKind = -2;
constexpr int kUnknown = -1;

// A key's text hashed for lookups without a copy.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
};

class FastLines {
 public:
  FastLines(const std::vector<DataField>& fields, RowsBuilder* out) : fields_(fields) {
    cols_.resize(fields.size());
    for (size_t c = 0; c < fields.size(); ++c) {
      ColumnPlan& col = cols_[c];
      col.type = fields[c].type.get();
      col.read_as = ReadAsFor(*col.type);
      col.nullable = col.type->nullable();
      col.builder = out->storage(c) == RowsBuilder::Storage::kBuilder;
      if (col.read_as == ReadAs::kTimestamp) col.per_second = UnitsPerSecond(*out->arrow_type(c));
      if (col.builder) deferred_.push_back(c);
      index_.emplace(fields[c].name, static_cast<int>(c));
      const std::string& name = fields[c].name;
      col.name.size = name.size();
      col.name.backslash = name.find('\\') != std::string::npos;
      std::memcpy(&col.name.head, name.data(), std::min<size_t>(8, name.size()));
      const unsigned char ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
      std::memcpy(&col.name.mask, ones, std::min<size_t>(8, name.size()));
    }
  }

  // Reads a line (`capacity` >= size + SIMDJSON_PADDING readable bytes at `data`) into `out`.
  // False when the line is left to ParseJsonLine; nothing was appended then.
  Result<bool> TryLine(const char* data, size_t size, size_t capacity, RowsBuilder* out) {
    ++row_;
    if (!Plain(data, size)) return false;
    int8_t kind = 0;
    if (!ReadLine(data, size, capacity, out, &kind)) {
      out->AbandonRow();
      return false;
    }
    for (size_t c : deferred_) {
      const Slot& s = cols_[c].slot;
      if (cols_[c].seen != row_ || s.null) {
        out->SetNull(c);
      } else if (cols_[c].read_as == ReadAs::kBool) {
        FJORD_RETURN_NOT_OK(out->AppendValue(c, Value(s.boolean)));
      } else {
        FJORD_RETURN_NOT_OK(out->AppendValue(c, s.value));
      }
    }
    FJORD_RETURN_NOT_OK(out->EndRow(kind));
    return true;
  }

 private:
  // Lines without control characters (a raw one in a string is an error ParseJsonLine words;
  // a tab between tokens is rare), a trailing '\r' aside. Sets escapes_: whether the line has a
  // backslash anywhere (else no string in it has an escape).
  bool Plain(const char* data, size_t size) {
    while (size > 0 && data[size - 1] == '\r') --size;
#if defined(__SSE2__)
    // Sixteen bytes at a time (the line is padded: the last load may pass its end, the bits
    // of bytes past it are dropped): min(byte, 0x1f) == byte exactly for the bytes below 0x20.
    const __m128i limit = _mm_set1_epi8(0x1f);
    const __m128i backslash = _mm_set1_epi8('\\');
    uint32_t escapes = 0;
    for (size_t i = 0; i < size; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
      auto low =
          static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, limit), x)));
      auto slash = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, backslash)));
      if (size - i < 16) {
        low &= (uint32_t{1} << (size - i)) - 1;
        slash &= (uint32_t{1} << (size - i)) - 1;
      }
      if (low != 0) return false;
      escapes |= slash;
    }
    escapes_ = escapes != 0;
    return true;
#else
    // Eight bytes at a time: (w - 0x20 in every byte) & ~w has a byte's top bit set for some
    // byte exactly when a byte of w is below 0x20 (a borrow starts only at such a byte).
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kTops = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
      uint64_t w;
      std::memcpy(&w, data + i, 8);
      if (((w - kOnes * 0x20) & ~w & kTops) != 0) return false;
    }
    for (; i < size; ++i) {
      if (static_cast<unsigned char>(data[i]) < 0x20) return false;
    }
    escapes_ = std::memchr(data, '\\', size) != nullptr;
    return true;
#endif
  }

  // The line's values into `out` (the builder columns' into their slots); false at the first thing
  // the fast path does not take (the caller abandons the row).
  bool ReadLine(const char* data, size_t size, size_t capacity, RowsBuilder* out, int8_t* kind) {
    od::document doc;
    if (parser_.iterate(data, size, capacity).get(doc)) return false;
    od::object object;
    if (doc.get_object().get(object)) return false;
    size_t seen = 0;
    int expected = 0;
    for (auto&& member : object) {
      if (member.error()) return false;
      od::field& field = member.value_unsafe();
      // A key as written is its text unless it has escapes (unescaping copies it through a
      // call per key); a column's name written with escapes is looked up again unescaped.
      std::string_view key = field.escaped_key();
      int c = expected;
      if (!InInput(key, expected)) {
        c = Lookup(key);
        if (c == kUnknown || (c >= 0 && cols_[static_cast<size_t>(c)].name.backslash)) {
          if (!HasBackslash(key) || field.unescaped_key().get(key)) return false;
          c = Lookup(key);
          if (c == kUnknown) return false;
        }
      }
      od::value& v = field.value();
      if (c == kRowKind) {
        if (seen_row_kind_ == row_ || !ReadRowKind(v, kind)) return false;
        seen_row_kind_ = row_;
        continue;
      }
      const auto column = static_cast<size_t>(c);
      if (cols_[column].seen == row_) return false;  // a duplicate key
      cols_[column].seen = row_;
      ++seen;
      // A STRING column's string in a line without escapes, the commonest value, is taken here
      // (StringText's reading, without the calls).
      if (cols_[column].read_as == ReadAs::kString && !escapes_) {
        if (std::string_view text; AsWritten(v, &text)) {
          static_assert(simdjson::SIMDJSON_PADDING >= 32);
          if (!out->SetPaddedString(column, text).ok()) return false;
          expected = c + 1;
          continue;
        }
      }
      // So is an INT or BIGINT column's integer (Read's reading).
      if (cols_[column].read_as == ReadAs::kInt32 || cols_[column].read_as == ReadAs::kInt64) {
        int64_t integer;
        if (!v.get_int64().get(integer)) {
          if (cols_[column].read_as == ReadAs::kInt32 &&
              (integer < INT32_MIN || integer > INT32_MAX)) {
            return false;
          }
          out->SetInteger(column, integer);
          expected = c + 1;
          continue;
        }
      }
      if (!Read(column, v, out)) return false;
      expected = c + 1;
    }
    // Nothing may follow the object.
    const char* after = nullptr;
    if (doc.current_location().get(after) != simdjson::OUT_OF_BOUNDS) return false;
    if (seen == cols_.size()) return true;
    // The columns the line leaves out are NULL.
    for (size_t c = 0; c < cols_.size(); ++c) {
      if (cols_[c].seen == row_) continue;
      if (!cols_[c].nullable) return false;
      if (!cols_[c].builder) out->SetNull(c);
    }
    return true;
  }

  static bool HasBackslash(std::string_view key) {
    for (char ch : key) {
      if (ch == '\\') return true;
    }
    return false;
  }

  // Whether `key`, a key of the line being read, is column c's name as written. Lines usually
  // give the columns in the table's order: this is asked of the column after the last one
  // first. A name with a backslash is never taken as written (Lookup's caller unescapes). The
  // line is padded, so eight bytes may be read at the key whatever its length.
  bool InInput(std::string_view key, int c) const {
    if (static_cast<size_t>(c) >= cols_.size()) return false;
    const Name& n = cols_[static_cast<size_t>(c)].name;
    if (key.size() != n.size || n.backslash) return false;
    uint64_t head;
    std::memcpy(&head, key.data(), 8);
    if ((head & n.mask) != n.head) return false;
    return n.size <= 8 ||
           std::memcmp(key.data() + 8, fields_[static_cast<size_t>(c)].name.data() + 8,
                       n.size - 8) == 0;
  }

  int Lookup(std::string_view key) const {
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    return key == "_row_kind" ? kRowKind : kUnknown;
  }

  // A JSON string value's text. In a line without a backslash it is the text between its
  // quotes as written: the line has no control character (Plain) and simdjson checked the
  // line's UTF-8, so nothing else can make the string differ from its bytes; the value is left
  // unread (the object's iteration steps over it). Otherwise simdjson unescapes it into its own
  // buffer.
  bool StringText(od::value& v, std::string_view* text) const {
    return (!escapes_ && AsWritten(v, text)) || !v.get_string().get(*text);
  }

  // The text between a string value's quotes as written (false if the value is no string).
  [[gnu::always_inline]] static inline bool AsWritten(od::value& v, std::string_view* text) {
    std::string_view raw = v.raw_json_token();  // the quotes, maybe blanks after
    while (!raw.empty() && raw.back() != '"') raw.remove_suffix(1);
    if (raw.size() < 2 || raw.front() != '"') return false;
    *text = raw.substr(1, raw.size() - 2);
    return true;
  }

  // A JSON string's text for the text-read types, which have no blanks around their values
  // (ValueFromText's rule; the reference words the error).
  bool Text(od::value& v, od::json_type type, std::string_view* text) const {
    if (type != od::json_type::string || !StringText(v, text)) return false;
    auto blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; };
    return text->empty() || (!blank(text->front()) && !blank(text->back()));
  }

  static bool ReadRowKind(od::value& v, int8_t* kind) {
    std::string_view s;
    if (v.get_string().get(s)) return false;
    static constexpr std::string_view kNames[] = {"+I", "-U", "+U", "-D"};
    for (int8_t k = 0; k < 4; ++k) {
      if (s == kNames[k]) {
        *kind = k;
        return true;
      }
    }
    return false;
  }

  // The text ParseJsonLine gives a number: its token, except an integer's as nlohmann prints it
  // (only "-0" differs: "0").
  static bool NumberText(od::value& v, std::string_view* text) {
    std::string_view token = v.raw_json_token();
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' ||
                              token.back() == '\r')) {
      token.remove_suffix(1);
    }
    double checked;  // the token is a JSON number
    if (v.get_double().get(checked)) return false;
    *text = token == "-0" ? std::string_view("0") : token;
    return true;
  }

  // Column c's value into `out` (a builder column's into its slot).
  bool Read(size_t c, od::value& v, RowsBuilder* out) {
    od::json_type type;
    if (v.type().get(type)) return false;
    Slot& slot = cols_[c].slot;
    if (type == od::json_type::null) {
      bool is_null = false;
      if (v.is_null().get(is_null) || !is_null || !cols_[c].nullable) return false;
      if (cols_[c].builder) {
        slot.null = true;
      } else {
        out->SetNull(c);
      }
      return true;
    }
    slot.null = false;
    const DataType& column = *cols_[c].type;
    switch (cols_[c].read_as) {
      case ReadAs::kBool:
        return type == od::json_type::boolean && !v.get_bool().get(slot.boolean);
      case ReadAs::kInt8:
      case ReadAs::kInt16:
      case ReadAs::kInt32:
      case ReadAs::kInt64: {
        int64_t integer;
        if (type != od::json_type::number || v.get_int64().get(integer)) return false;
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (cols_[c].read_as == ReadAs::kInt8) lo = INT8_MIN, hi = INT8_MAX;
        if (cols_[c].read_as == ReadAs::kInt16) lo = INT16_MIN, hi = INT16_MAX;
        if (cols_[c].read_as == ReadAs::kInt32) lo = INT32_MIN, hi = INT32_MAX;
        if (integer < lo || integer > hi) return false;
        out->SetInteger(c, integer);
        return true;
      }
      case ReadAs::kDouble:
        if (type == od::json_type::number) {
          // simdjson's reading is the correctly rounded double, as from_chars' of the text
          // is; a zero with a sign goes by the text: "-0" is the integer 0 (ParseJsonLine's
          // reading), "-0.0" or "-1e-400" negative zero.
          std::string_view token = v.raw_json_token();  // does not consume the value
          double real;
          if (v.get_double().get(real)) return false;
          if (real == 0 && std::signbit(real)) {
            token = token.substr(0, token.find_first_of(" \t\n\r"));
            if (token == "-0") real = 0;
          }
          out->SetDouble(c, real);
          return true;
        }
        [[fallthrough]];
      case ReadAs::kFloat: {
        std::string_view text;
        if (type == od::json_type::string) {
          if (v.get_string().get(text)) return false;
          if (text != "NaN" && text != "Infinity" && text != "-Infinity") return false;
        } else if (type != od::json_type::number || !NumberText(v, &text)) {
          return false;
        }
        if (cols_[c].read_as == ReadAs::kFloat) {
          Result<float> f = ParseFloatText(text);
          if (!f.ok()) return false;
          out->SetFloat(c, *f);
          return true;
        }
        Result<double> d = ParseDoubleText(text);
        if (!d.ok()) return false;
        out->SetDouble(c, *d);
        return true;
      }
      case ReadAs::kString:
      case ReadAs::kCheckedText: {
        std::string_view text;
        if (type != od::json_type::string || !StringText(v, &text)) return false;
        if (cols_[c].read_as == ReadAs::kCheckedText && !CheckLength(text, column).ok())
          return false;
        // A string as written is in the line, followed by SIMDJSON_PADDING readable bytes. A
        // column's text past 2 GiB is left to the reference path, whose append words the error.
        static_assert(simdjson::SIMDJSON_PADDING >= 32);
        return (escapes_ ? out->SetString(c, text) : out->SetPaddedString(c, text)).ok();
      }
      case ReadAs::kDate: {
        std::string_view text;
        if (!Text(v, type, &text)) return false;
        Result<int32_t> days = ParseDateText(text);
        if (!days.ok()) return false;
        out->SetInteger(c, *days);
        return true;
      }
      case ReadAs::kTimestamp: {
        std::string_view text;
        if (!Text(v, type, &text)) return false;
        Result<Timestamp> ts =
            ParseTimestampText(text, column.precision(), column.root() == TypeRoot::kTimestampLtz);
        if (!ts.ok()) return false;
        out->SetInteger(c, TimestampToUnits(*ts, cols_[c].per_second));
        return true;
      }
      case ReadAs::kDecimal: {
        std::string_view text;
        if (type == od::json_type::number ? !NumberText(v, &text) : !Text(v, type, &text)) {
          return false;
        }
        Result<Decimal> d = Decimal::FromString(text, column.precision(), column.scale());
        if (!d.ok()) return false;
        out->SetDecimal(c, d->unscaled);
        return true;
      }
      case ReadAs::kFromText: {
        std::string_view text;
        if (type != od::json_type::string || v.get_string().get(text)) return false;
        Result<Value> value = ValueFromText(text, column);
        if (!value.ok()) return false;
        slot.value = std::move(*value);
        return true;
      }
      case ReadAs::kNested: {
        std::string_view raw;
        if (type == od::json_type::array) {
          od::array a;
          if (v.get_array().get(a) || a.raw_json().get(raw)) return false;
        } else if (type == od::json_type::object) {
          od::object o;
          if (v.get_object().get(o) || o.raw_json().get(raw)) return false;
        } else {
          return false;
        }
        Result<Json> json = ParseExactJson(raw, "");
        if (!json.ok()) return false;
        Result<Value> value = ValueFromJson(*json, column);
        if (!value.ok()) return false;
        slot.value = std::move(*value);
        return true;
      }
    }
    return false;
  }

  const std::vector<DataField>& fields_;
  struct Name {
    size_t size = 0;
    uint64_t head = 0;  // the first (up to) eight bytes, zeros after
    uint64_t mask = 0;  // of the bytes of head that are the name's
    // The name has a backslash: a key written as the name is another name unescaped.
    bool backslash = false;
  };
  // What the walk needs of a column, in one place.
  struct ColumnPlan {
    const DataType* type = nullptr;
    ReadAs read_as = ReadAs::kFromText;
    bool nullable = true;
    bool builder = false;  // built through an Arrow builder: its value waits in `slot`
    Name name;
    uint64_t seen = 0;       // the line that last gave the column a value
    int64_t per_second = 0;  // of a timestamp column
    Slot slot;
  };
  std::vector<ColumnPlan> cols_;
  std::unordered_map<std::string, int, KeyHash, std::equal_to<>> index_;
  std::vector<size_t> deferred_;  // the builder columns
  uint64_t row_ = 0;
  uint64_t seen_row_kind_ = 0;
  bool escapes_ = false;  // the line being read has a backslash
  od::parser parser_;
};

}  // namespace

struct JsonLinesReader::State {
  State(std::string_view t, const std::vector<DataField>& f, std::string s, int64_t first_line)
      : text(t), fields(f), source(std::move(s)), line_no(first_line - 1) {}
  std::string_view text;
  const std::vector<DataField>& fields;
  std::string source;
  int64_t line_no;  // of the last line read
  size_t pos = 0;
  std::string padded;               // the line and simdjson's padding
  std::unique_ptr<FastLines> fast;  // made with the first batch's builder (its storage by column)
};

JsonLinesReader::JsonLinesReader(std::string_view text, const std::vector<DataField>& fields,
                                 std::string source, int64_t first_line)
    : state_(std::make_unique<State>(text, fields, std::move(source), first_line)) {}
JsonLinesReader::~JsonLinesReader() = default;
JsonLinesReader::JsonLinesReader(JsonLinesReader&&) noexcept = default;
JsonLinesReader& JsonLinesReader::operator=(JsonLinesReader&&) noexcept = default;

size_t JsonLinesReader::position() const { return state_->pos; }

Result<std::optional<InputRows>> JsonLinesReader::Next(size_t bytes) {
  State& st = *state_;
  const std::string_view text = st.text;
  if (st.pos >= text.size()) return std::optional<InputRows>();
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(st.fields));
  if (!st.fast) st.fast = std::make_unique<FastLines>(st.fields, &builder);
  FastLines& fast = *st.fast;
  const size_t start = st.pos;
  bytes = std::max<size_t>(bytes, 1);  // at least one line
  const size_t stop = text.size() - start > bytes ? start + bytes : text.size();
  size_t pos = start;
  // After a sample of lines, the columns are grown once for the lines that follow, estimated
  // from the sample's bytes per line with an eighth to spare (room reserved and never written
  // costs no memory); a count of the rest would read the batch's text once more.
  constexpr int64_t kSample = 1024;
  bool reserved = false;
  while (pos < stop) {
    if (!reserved && builder.rows() == kSample) {
      reserved = true;
      const auto rest = static_cast<double>(stop - pos) / static_cast<double>(pos - start) *
                        static_cast<double>(kSample);
      FJORD_RETURN_NOT_OK(builder.ReserveMore(static_cast<int64_t>(rest * 1.125) + 16));
    }
    size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    st.pos = pos;
    ++st.line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    // simdjson reads up to SIMDJSON_PADDING bytes past a line (what they hold does not change
    // its reading, simdjson promises). A line followed by its newline and enough of the input
    // is read in place: the newline ends any token that might run on. The last lines are
    // copied, padded with zeros (never a longer earlier line's bytes).
    const char* data = line.data();
    size_t capacity = text.size() - static_cast<size_t>(line.data() - text.data());
    if (capacity < line.size() + 1 + simdjson::SIMDJSON_PADDING) {
      std::string& padded = st.padded;
      if (padded.size() < line.size() + simdjson::SIMDJSON_PADDING) {
        padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
      }
      std::fill(
          std::copy(line.begin(), line.end(), padded.begin()),
          padded.begin() + static_cast<std::ptrdiff_t>(line.size() + simdjson::SIMDJSON_PADDING),
          '\0');
      data = padded.data();
      capacity = padded.size();
    }
    FJORD_ASSIGN_OR_RAISE(bool read, fast.TryLine(data, line.size(), capacity, &builder));
    if (read) continue;
    std::string where = st.source + " line " + std::to_string(st.line_no);
    FJORD_ASSIGN_OR_RAISE(JsonLineRow row, ParseJsonLine(line, st.fields, where));
    FJORD_RETURN_NOT_OK(builder.Append(row.values, row.kind));
  }
  FJORD_ASSIGN_OR_RAISE(InputRows rows, builder.Finish());
  return std::optional<InputRows>(std::move(rows));
}

Result<InputRows> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                 std::string_view source, int64_t first_line) {
  JsonLinesReader reader(text, fields, std::string(source), first_line);
  FJORD_ASSIGN_OR_RAISE(std::optional<InputRows> rows, reader.Next(text.size()));
  if (rows) return std::move(*rows);
  RowsBuilder empty;
  FJORD_RETURN_NOT_OK(empty.Init(fields));
  return empty.Finish();
}

}  // namespace fjord
