#include "fjord/format/json_line_scan.h"

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "fjord/common/plain_decimal.h"
#include "fjord/common/strings.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/text_values.h"

namespace fjord {

namespace {

using ReadAs = JsonReadAs;

inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// The closing quote of the string whose text starts at `p`, or nullptr when there is none
// before `end` or a backslash or a control character comes first (strings the scanner leaves:
// escapes, and raw control characters, an error the reference words). Sets *high when a byte of
// the text is above 0x7f. Reads up to 31 bytes past `end`.
inline const char* StringEnd(const char* p, const char* end, bool* high) {
#if defined(__SSE2__)
  // Thirty-two bytes at a time (most strings end within the first): min(byte, 0x1f) == byte
  // exactly for the bytes below 0x20.
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i limit = _mm_set1_epi8(0x1f);
  auto bits = [](__m128i lo, __m128i hi) {
    return static_cast<uint32_t>(_mm_movemask_epi8(lo)) |
           static_cast<uint32_t>(_mm_movemask_epi8(hi)) << 16;
  };
  for (; p < end; p += 32) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    const uint32_t quotes = bits(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(y, quote));
    const uint32_t stops =
        bits(_mm_or_si128(_mm_cmpeq_epi8(x, backslash), _mm_cmpeq_epi8(_mm_min_epu8(x, limit), x)),
             _mm_or_si128(_mm_cmpeq_epi8(y, backslash), _mm_cmpeq_epi8(_mm_min_epu8(y, limit), y)));
    const uint32_t tops = bits(x, y);
    // The bytes before the first quote (all 32 when there is none).
    const uint32_t before = quotes == 0 ? ~uint32_t{0} : (quotes & (0 - quotes)) - 1;
    if ((stops & before) != 0) return nullptr;
    if ((tops & before) != 0) *high = true;
    if (quotes != 0) {
      const char* q = p + __builtin_ctz(quotes);
      return q < end ? q : nullptr;
    }
  }
  return nullptr;
#else
  for (; p < end; ++p) {
    const auto b = static_cast<unsigned char>(*p);
    if (b == '"') return p;
    if (b == '\\' || b < 0x20) return nullptr;
    if (b > 0x7f) *high = true;
  }
  return nullptr;
#endif
}

// The code unit of the four hex digits at `p` (before `end`), or -1.
inline int32_t CodeUnit(const char* p, const char* end) {
  if (end - p < 4) return -1;
  int32_t unit = 0;
  for (int k = 0; k < 4; ++k) {
    const int d = HexDigit(p[k]);
    if (d < 0) return -1;
    unit = unit * 16 + d;
  }
  return unit;
}

// The string whose text starts at `p`, with escapes, unescaped into `out` (JSON's escapes; a
// \u escape of a surrogate must pair a high one with a low one): its closing quote, or nullptr
// when there is none before `end`, an escape JSON does not have or a lone surrogate comes, or a
// control character (the reference words those errors). Sets *high as StringEnd.
inline const char* UnescapeString(const char* p, const char* end, std::string* out, bool* high) {
  out->clear();
  while (p < end) {
    const auto b = static_cast<unsigned char>(*p);
    if (b == '"') return p;
    if (b < 0x20) return nullptr;
    if (b != '\\') {
      if (b > 0x7f) *high = true;
      out->push_back(static_cast<char>(b));
      ++p;
      continue;
    }
    if (end - p < 2) return nullptr;
    const char escape = p[1];
    p += 2;
    switch (escape) {
      case '"':
      case '\\':
      case '/':
        out->push_back(escape);
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        int32_t cp = CodeUnit(p, end);
        if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return nullptr;
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return nullptr;
          const int32_t low = CodeUnit(p + 2, end);
          if (low < 0xDC00 || low > 0xDFFF) return nullptr;
          p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        AppendUtf8(static_cast<uint32_t>(cp), out);
        break;
      }
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// What the reading of a line carries along: whether a string had a byte above 0x7f (the line's
// UTF-8 is then checked at its end) and the buffer of unescaped strings.
struct ScanState {
  bool high = false;
  std::string* unescaped;
};

// The string whose text starts at `p`: its closing quote and its text (`padded`: the text is in
// the line, followed by at least 32 readable bytes; else in state->unescaped), or nullptr.
inline const char* ScanString(const char* p, const char* end, ScanState* state,
                              std::string_view* text, bool* padded) {
  if (const char* q = StringEnd(p, end, &state->high)) {
    *text = std::string_view(p, static_cast<size_t>(q - p));
    *padded = true;
    return q;
  }
  const char* q = UnescapeString(p, end, state->unescaped, &state->high);
  *text = *state->unescaped;
  *padded = false;
  return q;
}

// A JSON number as ScanNumber reads it.
struct Number {
  uint64_t mantissa = 0;  // its digits as one integer (wrapped past 19 digits)
  int digits = 0;         // how many
  int exponent = 0;       // the power of ten: the exponent less the fraction digits
  bool negative = false;
  bool fraction = false;       // a fraction part
  bool exponent_part = false;  // an exponent part
  bool big_exponent = false;   // of more than three digits (`exponent` does not hold it)
  bool integer() const { return !fraction && !exponent_part; }
};

// The JSON number at `p` (-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?) read in one
// pass: its end, or nullptr when `p` starts none. The line is followed by its '\n' or zeros, so
// no digit runs past its end; what follows the number is the caller's to check.
inline const char* ScanNumber(const char* p, Number* n) {
  if (*p == '-') {
    n->negative = true;
    ++p;
  }
  if (!IsDigit(*p)) return nullptr;
  if (*p == '0') {
    ++p;
    n->digits = 1;
  } else {
    do {
      n->mantissa = n->mantissa * 10 + static_cast<uint64_t>(*p++ - '0');
      ++n->digits;
    } while (IsDigit(*p));
  }
  if (*p == '.') {
    ++p;
    if (!IsDigit(*p)) return nullptr;
    n->fraction = true;
    do {
      n->mantissa = n->mantissa * 10 + static_cast<uint64_t>(*p++ - '0');
      ++n->digits;
      --n->exponent;
    } while (IsDigit(*p));
  }
  if ((*p | 0x20) == 'e') {
    ++p;
    n->exponent_part = true;
    const bool minus = *p == '-';
    if (*p == '+' || *p == '-') ++p;
    if (!IsDigit(*p)) return nullptr;
    int e = 0, digits = 0;
    do {
      if (++digits <= 3) e = e * 10 + (*p - '0');
      ++p;
    } while (IsDigit(*p));
    n->big_exponent = digits > 3;
    n->exponent += minus ? -e : e;
  }
  return p;
}

// The integer `n` when it fits 64 bits.
inline bool IntegerValue(const Number& n, int64_t* out) {
  if (!n.integer() || n.digits > 19) return false;  // 19 digits always fit in 64 unsigned bits
  constexpr uint64_t kMin = uint64_t{1} << 63;      // -INT64_MIN
  if (n.negative) {
    if (n.mantissa > kMin) return false;
    *out = n.mantissa == kMin ? INT64_MIN : -static_cast<int64_t>(n.mantissa);
  } else {
    if (n.mantissa >= kMin) return false;
    *out = static_cast<int64_t>(n.mantissa);
  }
  return true;
}

// A double in range (finite, not flushed to zero), correctly rounded as simdjson's.
inline bool InRangeDouble(const char* p, const char* end, double* out) {
  auto [stop, ec] = std::from_chars(p, end, *out);
  return ec == std::errc() && stop == end;
}

// `n` as a double when it is m * 10^e with m <= 2^53 and |e| <= 22: both exact doubles, so one
// multiplication or division rounds the exact value once, correctly (Clinger's fast path; IEEE
// arithmetic in double precision, as on x86-64); false otherwise.
inline bool ExactDouble(const Number& n, double* out) {
  if (n.digits > 19 || n.big_exponent || n.mantissa > (uint64_t{1} << 53) || n.exponent < -22 ||
      n.exponent > 22) {
    return false;
  }
  static constexpr double kPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  double v = static_cast<double>(n.mantissa);
  v = n.exponent < 0 ? v / kPowers[-n.exponent] : v * kPowers[n.exponent];
  *out = n.negative ? -v : v;
  return true;
}

// A TIMESTAMP_LTZ's text without its last character (the Z, checked by the caller).
inline std::string_view WithoutZ(std::string_view text) {
  return text.empty() ? text : text.substr(0, text.size() - 1);
}

// The text ParseJsonLine gives a number: its token, but an integer "-0" is "0".
inline std::string_view NumberText(std::string_view token) {
  return token == "-0" ? std::string_view("0") : token;
}

// Column c's value at `p` into `out`: the end of the value, or nullptr when it is not taken.
inline const char* ScanValue(const char* p, const char* end, size_t c, JsonLineColumns* cols,
                             RowsBuilder* out, ScanState* state) {
  JsonLineColumns::Plan& plan = cols->plan(c);
  const char ch = *p;
  if (ch == '"') {
    std::string_view text;
    bool padded = false;
    const char* q = ScanString(p + 1, end, state, &text, &padded);
    if (q == nullptr) return nullptr;
    if (plan.read_as == ReadAs::kString) {
      if (!(padded ? out->SetPaddedString(c, text) : out->SetString(c, text)).ok()) return nullptr;
    } else if (Timestamp ts;
               plan.read_as == ReadAs::kTimestamp &&
               ParsePlainTimestamp(plan.ltz ? WithoutZ(text) : text, plan.type->precision(), &ts) &&
               (!plan.ltz || text.back() == 'Z')) {
      out->SetInteger(c, TimestampToUnits(ts, plan.per_second));
    } else if (Int128 unscaled;
               plan.read_as == ReadAs::kDecimal &&
               PlainDecimal(text, plan.type->precision(), plan.type->scale(), &unscaled)) {
      out->SetDecimal(c, unscaled);
    } else if (plan.read_as == ReadAs::kCheckedText) {
      if (!cols->SetText(c, text, padded, out)) return nullptr;
    } else if (!cols->SetFromString(c, text, out)) {
      return nullptr;
    }
    return q + 1;
  }
  if (ch == '-' || IsDigit(ch)) {
    Number n;
    const char* q = ScanNumber(p, &n);
    if (q == nullptr) return nullptr;
    const std::string_view token(p, static_cast<size_t>(q - p));
    switch (plan.read_as) {
      case ReadAs::kInt8:
      case ReadAs::kInt16:
      case ReadAs::kInt32:
      case ReadAs::kInt64: {
        int64_t v;
        return IntegerValue(n, &v) && cols->SetInteger(c, v, out) ? q : nullptr;
      }
      case ReadAs::kDouble: {
        double real;
        if (!ExactDouble(n, &real) && !InRangeDouble(p, q, &real)) return nullptr;
        // As the walk: a zero with a sign goes by the text ("-0" is the integer 0).
        if (n.integer() && n.negative && n.mantissa == 0) real = 0;
        out->SetDouble(c, real);
        return q;
      }
      case ReadAs::kFloat: {
        double checked;  // the walk takes only numbers that are doubles in range
        if (!InRangeDouble(p, q, &checked)) return nullptr;
        return cols->SetFromNumberText(c, NumberText(token), out) ? q : nullptr;
      }
      case ReadAs::kDecimal:
        // Without an exponent and at most 40 characters a number is a double in range, as the
        // walk requires; other numbers are left to it.
        if (n.exponent_part || token.size() > 40) return nullptr;
        return cols->SetFromNumberText(c, NumberText(token), out) ? q : nullptr;
      default:
        return nullptr;
    }
  }
  if (ch == 'n') {
    if (end - p < 4 || std::memcmp(p, "null", 4) != 0 || !cols->SetNull(c, out)) return nullptr;
    return p + 4;
  }
  if ((ch == 't' || ch == 'f') && plan.read_as == ReadAs::kBool) {
    const bool value = ch == 't';
    const size_t n = value ? 4 : 5;
    if (static_cast<size_t>(end - p) < n || std::memcmp(p, value ? "true" : "false", n) != 0) {
      return nullptr;
    }
    plan.slot.null = false;
    plan.slot.boolean = value;
    return p + n;
  }
  return nullptr;
}

}  // namespace

bool ScannableColumns(JsonLineColumns& cols) {
  for (size_t c = 0; c < cols.size(); ++c) {
    const ReadAs read_as = cols.plan(c).read_as;
    if (read_as == ReadAs::kFromText || read_as == ReadAs::kNested) return false;
  }
  return true;
}

bool ScanJsonLine(const char* data, size_t size, JsonLineColumns* cols, RowsBuilder* out,
                  int8_t* kind, std::string* unescaped) {
  ScanState state{false, unescaped};
  const char* p = data;
  const char* const end = data + size;
  // The line is followed by its '\n' or by zeros: a blank never runs past it.
  auto blanks = [&] {
    while (*p == ' ') ++p;
  };
  blanks();
  if (p == end || *p != '{') return false;
  ++p;
  blanks();
  if (p < end && *p == '}') {
    ++p;
  } else {
    int expected = 0;
    for (;;) {
      if (*p != '"') return false;
      // The key is usually the next column's name: compared in place, no search for its end.
      int c = expected;
      if (cols->NameAt(p + 1, end, expected)) {
        p += cols->NameSize(expected) + 2;
      } else {
        const char* key_end = StringEnd(p + 1, end, &state.high);  // keys with escapes: the walk's
        if (key_end == nullptr) return false;
        c = cols->Match(std::string_view(p + 1, static_cast<size_t>(key_end - p - 1)), expected);
        if (c == JsonLineColumns::kUnknown) return false;
        p = key_end + 1;
      }
      blanks();
      if (*p != ':') return false;
      ++p;
      blanks();
      if (p == end) return false;
      if (c == JsonLineColumns::kRowKind) {
        if (*p != '"') return false;
        std::string_view text;
        bool padded = false;
        const char* q = ScanString(p + 1, end, &state, &text, &padded);
        if (q == nullptr || !cols->TakeRowKind(text, kind)) return false;
        p = q + 1;
      } else {
        const auto column = static_cast<size_t>(c);
        if (!cols->Take(column)) return false;  // a duplicate key
        p = ScanValue(p, end, column, cols, out, &state);
        if (p == nullptr) return false;
        expected = c + 1;
      }
      blanks();
      if (p == end) return false;
      if (*p == '}') {
        ++p;
        break;
      }
      if (*p != ',') return false;
      ++p;
      blanks();
    }
  }
  // Blanks may follow the object (a '\r' of a CRLF line break too), nothing else.
  while (p < end && (*p == ' ' || *p == '\r')) ++p;
  return p == end && (!state.high || simdjson::validate_utf8(data, size));
}

}  // namespace fjord
