// ParseJsonLines (input_rows.h): JSON lines into canonical Arrow columns.
//
// simdjson's on-demand parser reads each line and its values go straight into the column
// builders. json_values.h stays the definition of what a line means: whenever this fast path
// does not take a line as plainly valid (any JSON or type error, a duplicate key, an unknown
// column, a control character, a NULL for a NOT NULL column), it appends nothing and the line is
// read again by ParseJsonLine, which gives the values or the exact error. The fast path only
// decides the lines whose values it reads the way ParseJsonLine does (json_lines_test.cc
// compares the two on generated lines).
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "fjord/common/arrow_status.h"
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
  kFromText,     // a JSON string through ValueFromText (binary, dates, times, timestamps, ...)
  kDecimal,      // a number's text or a string through ValueFromText
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

// One column's value of the line being read.
struct Slot {
  uint64_t row = 0;  // the line this slot was last set for; other lines see it as missing
  bool null = false;
  int64_t integer = 0;
  double real = 0;
  float single = 0;
  bool boolean = false;
  std::string_view text;  // points into the parser's string buffer until the next line
  Value value;
};

constexpr int kRowKind = -2;
constexpr int kUnknown = -1;

class FastLines {
 public:
  explicit FastLines(const std::vector<DataField>& fields) : fields_(fields) {
    slots_.resize(fields.size());
    for (size_t c = 0; c < fields.size(); ++c) {
      read_as_.push_back(ReadAsFor(*fields[c].type));
      index_.emplace(fields[c].name, static_cast<int>(c));
    }
  }

  // Reads a line (`capacity` >= size + SIMDJSON_PADDING readable bytes at `data`) into `out`.
  // False when the line is left to ParseJsonLine; nothing was appended then.
  Result<bool> TryLine(const char* data, size_t size, size_t capacity, RowsBuilder* out) {
    ++row_;
    if (!Plain(data, size)) return false;
    od::document doc;
    if (parser_.iterate(data, size, capacity).get(doc)) return false;
    od::object object;
    if (doc.get_object().get(object)) return false;
    int8_t kind = 0;
    int expected = 0;
    for (auto member : object) {
      od::field field;
      if (std::move(member).get(field)) return false;
      // A key without escapes is its own text (unescaping copies it through a call per key).
      std::string_view key = field.escaped_key();
      if (key.find('\\') != std::string_view::npos && field.unescaped_key().get(key)) {
        return false;
      }
      int c = Lookup(key, expected);
      if (c == kUnknown) return false;
      od::value v = field.value();
      if (c == kRowKind) {
        if (seen_row_kind_ == row_ || !ReadRowKind(v, &kind)) return false;
        seen_row_kind_ = row_;
        continue;
      }
      Slot& slot = slots_[static_cast<size_t>(c)];
      if (slot.row == row_) return false;  // a duplicate key
      slot.row = row_;
      if (!Read(static_cast<size_t>(c), v, &slot)) return false;
      expected = c + 1;
    }
    // Nothing may follow the object.
    const char* after = nullptr;
    if (doc.current_location().get(after) != simdjson::OUT_OF_BOUNDS) return false;
    for (size_t c = 0; c < slots_.size(); ++c) {
      const Slot& s = slots_[c];
      if ((s.row != row_ || s.null) && !fields_[c].type->nullable()) return false;
    }
    FJORD_RETURN_NOT_OK(Append(kind, out));
    return true;
  }

 private:
  // Lines without control characters (a raw one in a string is an error ParseJsonLine words;
  // a tab between tokens is rare), a trailing '\r' aside.
  static bool Plain(const char* data, size_t size) {
    while (size > 0 && data[size - 1] == '\r') --size;
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
    return true;
  }

  int Lookup(std::string_view key, int expected) {
    // Lines usually give the columns in the table's order.
    if (static_cast<size_t>(expected) < fields_.size() &&
        fields_[static_cast<size_t>(expected)].name == key) {
      return expected;
    }
    auto it = index_.find(std::string(key));
    if (it != index_.end()) return it->second;
    return key == "_row_kind" ? kRowKind : kUnknown;
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

  bool Read(size_t c, od::value& v, Slot* slot) {
    od::json_type type;
    if (v.type().get(type)) return false;
    if (type == od::json_type::null) {
      bool is_null = false;
      if (v.is_null().get(is_null) || !is_null) return false;
      slot->null = true;
      return true;
    }
    slot->null = false;
    const DataType& column = *fields_[c].type;
    switch (read_as_[c]) {
      case ReadAs::kBool:
        return type == od::json_type::boolean && !v.get_bool().get(slot->boolean);
      case ReadAs::kInt8:
      case ReadAs::kInt16:
      case ReadAs::kInt32:
      case ReadAs::kInt64: {
        if (type != od::json_type::number || v.get_int64().get(slot->integer)) return false;
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        if (read_as_[c] == ReadAs::kInt8) lo = INT8_MIN, hi = INT8_MAX;
        if (read_as_[c] == ReadAs::kInt16) lo = INT16_MIN, hi = INT16_MAX;
        if (read_as_[c] == ReadAs::kInt32) lo = INT32_MIN, hi = INT32_MAX;
        return slot->integer >= lo && slot->integer <= hi;
      }
      case ReadAs::kFloat:
      case ReadAs::kDouble: {
        std::string_view text;
        if (type == od::json_type::string) {
          if (v.get_string().get(text)) return false;
          if (text != "NaN" && text != "Infinity" && text != "-Infinity") return false;
        } else if (type != od::json_type::number || !NumberText(v, &text)) {
          return false;
        }
        if (read_as_[c] == ReadAs::kFloat) {
          Result<float> f = ParseFloatText(text);
          if (!f.ok()) return false;
          slot->single = *f;
          return true;
        }
        Result<double> d = ParseDoubleText(text);
        if (!d.ok()) return false;
        slot->real = *d;
        return true;
      }
      case ReadAs::kString:
        return type == od::json_type::string && !v.get_string().get(slot->text);
      case ReadAs::kCheckedText:
        return type == od::json_type::string && !v.get_string().get(slot->text) &&
               CheckLength(slot->text, column).ok();
      case ReadAs::kFromText:
      case ReadAs::kDecimal: {
        std::string_view text;
        if (type == od::json_type::string) {
          if (v.get_string().get(text)) return false;
        } else if (read_as_[c] != ReadAs::kDecimal || type != od::json_type::number ||
                   !NumberText(v, &text)) {
          return false;
        }
        Result<Value> value = ValueFromText(text, column);
        if (!value.ok()) return false;
        slot->value = std::move(*value);
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
        slot->value = std::move(*value);
        return true;
      }
    }
    return false;
  }

  Status Append(int8_t kind, RowsBuilder* out) {
    for (size_t c = 0; c < slots_.size(); ++c) {
      const Slot& s = slots_[c];
      arrow::ArrayBuilder* b = out->builder(c);
      if (s.row != row_ || s.null) {
        FJORD_ARROW_RETURN_NOT_OK(b->AppendNull());
        continue;
      }
      switch (read_as_[c]) {
        case ReadAs::kBool:
          FJORD_ARROW_RETURN_NOT_OK(static_cast<arrow::BooleanBuilder*>(b)->Append(s.boolean));
          break;
        case ReadAs::kInt8:
          FJORD_ARROW_RETURN_NOT_OK(
              static_cast<arrow::Int8Builder*>(b)->Append(static_cast<int8_t>(s.integer)));
          break;
        case ReadAs::kInt16:
          FJORD_ARROW_RETURN_NOT_OK(
              static_cast<arrow::Int16Builder*>(b)->Append(static_cast<int16_t>(s.integer)));
          break;
        case ReadAs::kInt32:
          FJORD_ARROW_RETURN_NOT_OK(
              static_cast<arrow::Int32Builder*>(b)->Append(static_cast<int32_t>(s.integer)));
          break;
        case ReadAs::kInt64:
          FJORD_ARROW_RETURN_NOT_OK(static_cast<arrow::Int64Builder*>(b)->Append(s.integer));
          break;
        case ReadAs::kFloat:
          FJORD_ARROW_RETURN_NOT_OK(static_cast<arrow::FloatBuilder*>(b)->Append(s.single));
          break;
        case ReadAs::kDouble:
          FJORD_ARROW_RETURN_NOT_OK(static_cast<arrow::DoubleBuilder*>(b)->Append(s.real));
          break;
        case ReadAs::kString:
        case ReadAs::kCheckedText:
          FJORD_ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder*>(b)->Append(s.text));
          break;
        default:
          FJORD_RETURN_NOT_OK(out->AppendValue(c, s.value));
          break;
      }
    }
    out->EndRow(kind);
    return Status::OK();
  }

  const std::vector<DataField>& fields_;
  std::vector<ReadAs> read_as_;
  std::unordered_map<std::string, int> index_;
  std::vector<Slot> slots_;
  uint64_t row_ = 0;
  uint64_t seen_row_kind_ = 0;
  od::parser parser_;
};

}  // namespace

Result<InputRows> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                 std::string_view source, int64_t first_line) {
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(fields));
  FastLines fast(fields);
  std::string padded;  // the line and simdjson's padding
  int64_t line_no = first_line - 1;
  size_t pos = 0;
  // After a sample of lines, the columns are grown once for the lines that follow.
  constexpr int64_t kSample = 1024;
  bool reserved = false;
  while (pos < text.size()) {
    if (!reserved && builder.rows() == kSample) {
      reserved = true;
      // Counted with memchr: a plain byte loop over the rest of a large file cost as much as
      // parsing a sixth of it.
      int64_t rest = 0;  // the lines left: newlines + 1
      for (const char* p = text.data() + pos; p != nullptr; ++rest) {
        p = static_cast<const char*>(
            std::memchr(p, '\n', static_cast<size_t>(text.data() + text.size() - p)));
        if (p != nullptr) ++p;
      }
      FJORD_RETURN_NOT_OK(builder.ReserveMore(rest));
    }
    size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (padded.size() < line.size() + simdjson::SIMDJSON_PADDING) {
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
    }
    // simdjson may look at the padding: zeros, never a longer earlier line's bytes.
    std::fill(
        std::copy(line.begin(), line.end(), padded.begin()),
        padded.begin() + static_cast<std::ptrdiff_t>(line.size() + simdjson::SIMDJSON_PADDING),
        '\0');
    FJORD_ASSIGN_OR_RAISE(bool read,
                          fast.TryLine(padded.data(), line.size(), padded.size(), &builder));
    if (read) continue;
    std::string where = std::string(source) + " line " + std::to_string(line_no);
    FJORD_ASSIGN_OR_RAISE(JsonLineRow row, ParseJsonLine(line, fields, where));
    FJORD_RETURN_NOT_OK(builder.Append(row.values, row.kind));
  }
  return builder.Finish();
}

}  // namespace fjord
