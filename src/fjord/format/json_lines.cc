// ParseJsonLines (input_rows.h): JSON lines into canonical Arrow columns.
//
// Each line is read by the first of three readings that takes it, its values going straight
// into the columns (RowsBuilder) as they are read: the scanner (json_line_scan.h) reads the
// common shape of line (no escapes, the plain types) with no JSON parser; simdjson's on-demand
// walk the other lines it can take as plainly valid; json_values.h, the definition of what a
// line means, the rest (any JSON or type error, a duplicate key, an unknown column, a control
// character, a NULL for a NOT NULL column), giving the values or the exact error. A reading that
// stops part way abandons what it wrote (RowsBuilder::AbandonRow). The fast readings only decide
// the lines whose values they read the way ParseJsonLine does (json_lines_test.cc compares them
// on generated lines).
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/input_rows.h"
#include "fjord/format/json_columns.h"
#include "fjord/format/json_line_scan.h"
#include "fjord/format/json_values.h"
#include "fjord/format/rows_builder.h"
#include "fjord/format/text_values.h"

namespace fjord {

namespace {

namespace od = simdjson::ondemand;
using ReadAs = JsonReadAs;

class FastLines {
 public:
  FastLines(const std::vector<DataField>& fields, RowsBuilder* out)
      : cols_(fields, *out), scan_(ScannableColumns(cols_)) {}

  // Reads a line (`capacity` >= size + SIMDJSON_PADDING readable bytes at `data`, the line
  // followed by its '\n' or by zeros) into `out`: the scanner first, simdjson's walk for a line
  // it leaves. False when the line is left to ParseJsonLine; nothing was appended then.
  Result<bool> TryLine(const char* data, size_t size, size_t capacity, RowsBuilder* out) {
    int8_t kind = 0;
    if (scan_) {
      cols_.Restart();
      if (ScanJsonLine(data, size, &cols_, out, &kind, &unescaped_)) {
        FJORD_ASSIGN_OR_RAISE(bool ended, cols_.EndLine(out, kind));
        if (ended) {
          ++scanned_;
          return true;
        }
      }
      out->AbandonRow();
      kind = 0;
      // Input whose lines the scanner mostly leaves (another shape of line) is not scanned.
      if (++unscanned_ > 1024 && unscanned_ > scanned_) scan_ = false;
    }
    if (!cols_.BeginLine(data, size)) return false;  // restarts the columns
    if (!ReadLine(data, size, capacity, out, &kind)) {
      out->AbandonRow();
      return false;
    }
    FJORD_ASSIGN_OR_RAISE(bool ended, cols_.EndLine(out, kind));
    if (!ended) out->AbandonRow();
    return ended;
  }

  int64_t scanned() const { return scanned_; }

 private:
  // The line's values into `out` (the builder columns' into their slots); false at the first
  // thing the walk does not take (the caller abandons the row).
  bool ReadLine(const char* data, size_t size, size_t capacity, RowsBuilder* out, int8_t* kind) {
    od::document doc;
    if (parser_.iterate(data, size, capacity).get(doc)) return false;
    od::object object;
    if (doc.get_object().get(object)) return false;
    int expected = 0;
    for (auto&& member : object) {
      if (member.error()) return false;
      od::field& field = member.value_unsafe();
      // A key as written is its text unless it has escapes (unescaping copies it through a
      // call per key); a column's name written with escapes is looked up again unescaped.
      std::string_view key = field.escaped_key();
      int c = cols_.Match(key, expected);
      if (c == JsonLineColumns::kUnknown) {
        if (!HasBackslash(key) || field.unescaped_key().get(key)) return false;
        c = cols_.Lookup(key);
        if (c == JsonLineColumns::kUnknown) return false;
      }
      od::value& v = field.value();
      if (c == JsonLineColumns::kRowKind) {
        std::string_view text;
        if (v.get_string().get(text) || !cols_.TakeRowKind(text, kind)) return false;
        continue;
      }
      const auto column = static_cast<size_t>(c);
      if (!cols_.Take(column)) return false;  // a duplicate key
      const ReadAs read_as = cols_.plan(column).read_as;
      // A STRING column's string in a line without escapes is taken here (StringText's
      // reading, without the calls).
      if (read_as == ReadAs::kString && !cols_.escapes()) {
        if (std::string_view text; AsWritten(v, &text)) {
          static_assert(simdjson::SIMDJSON_PADDING >= 32);
          if (!out->SetPaddedString(column, text).ok()) return false;
          expected = c + 1;
          continue;
        }
      }
      // So is an INT or BIGINT column's integer (Read's reading).
      if (read_as == ReadAs::kInt32 || read_as == ReadAs::kInt64) {
        int64_t integer;
        if (!v.get_int64().get(integer)) {
          if (read_as == ReadAs::kInt32 && (integer < INT32_MIN || integer > INT32_MAX)) {
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
    return doc.current_location().get(after) == simdjson::OUT_OF_BOUNDS;
  }

  static bool HasBackslash(std::string_view key) {
    for (char ch : key) {
      if (ch == '\\') return true;
    }
    return false;
  }

  // A JSON string value's text. In a line without a backslash it is the text between its
  // quotes as written: the line has no control character (BeginLine) and simdjson checked the
  // line's UTF-8, so nothing else can make the string differ from its bytes; the value is left
  // unread (the object's iteration steps over it). Otherwise simdjson unescapes it into its own
  // buffer.
  bool StringText(od::value& v, std::string_view* text) const {
    return (!cols_.escapes() && AsWritten(v, text)) || !v.get_string().get(*text);
  }

  // The text between a string value's quotes as written (false if the value is no string).
  [[gnu::always_inline]] static inline bool AsWritten(od::value& v, std::string_view* text) {
    std::string_view raw = v.raw_json_token();  // the quotes, maybe blanks after
    while (!raw.empty() && raw.back() != '"') raw.remove_suffix(1);
    if (raw.size() < 2 || raw.front() != '"') return false;
    *text = raw.substr(1, raw.size() - 2);
    return true;
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
    JsonLineColumns::Plan& plan = cols_.plan(c);
    if (type == od::json_type::null) {
      bool is_null = false;
      return !v.is_null().get(is_null) && is_null && cols_.SetNull(c, out);
    }
    JsonLineColumns::Slot& slot = plan.slot;
    slot.null = false;
    switch (plan.read_as) {
      case ReadAs::kBool:
        return type == od::json_type::boolean && !v.get_bool().get(slot.boolean);
      case ReadAs::kInt8:
      case ReadAs::kInt16:
      case ReadAs::kInt32:
      case ReadAs::kInt64: {
        int64_t integer;
        return type == od::json_type::number && !v.get_int64().get(integer) &&
               cols_.SetInteger(c, integer, out);
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
      case ReadAs::kFloat:
      case ReadAs::kDecimal: {
        std::string_view text;
        if (type == od::json_type::number) {
          return NumberText(v, &text) && cols_.SetFromNumberText(c, text, out);
        }
        if (type != od::json_type::string || !StringText(v, &text)) return false;
        return cols_.SetFromString(c, text, out);
      }
      case ReadAs::kString:
      case ReadAs::kCheckedText: {
        std::string_view text;
        if (type != od::json_type::string || !StringText(v, &text)) return false;
        // A string as written is in the line, followed by SIMDJSON_PADDING readable bytes.
        static_assert(simdjson::SIMDJSON_PADDING >= 32);
        return cols_.SetText(c, text, !cols_.escapes(), out);
      }
      case ReadAs::kDate:
      case ReadAs::kTimestamp: {
        std::string_view text;
        if (type != od::json_type::string || !StringText(v, &text)) return false;
        return cols_.SetFromString(c, text, out);
      }
      case ReadAs::kFromText: {
        std::string_view text;
        if (type != od::json_type::string || v.get_string().get(text)) return false;
        Result<Value> value = ValueFromText(text, *plan.type);
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
        Result<Value> value = ValueFromJson(*json, *plan.type);
        if (!value.ok()) return false;
        slot.value = std::move(*value);
        return true;
      }
    }
    return false;
  }

  JsonLineColumns cols_;
  bool scan_;              // lines go to the scanner first
  int64_t scanned_ = 0;    // lines the scanner took
  int64_t unscanned_ = 0;  // and left
  std::string unescaped_;  // the scanner's text of a string with escapes
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
int64_t JsonLinesReader::lines_scanned() const {
  return state_->fast ? state_->fast->scanned() : 0;
}

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
