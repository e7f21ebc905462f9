#include "fjord/cdc/computed_text.h"

#include <locale.h>

#include <algorithm>
#include <cwctype>
#include <functional>
#include <map>
#include <set>

#include "fjord/common/strings.h"

namespace fjord::cdc {

std::vector<std::string> JavaSplit(std::string_view text, char ch) {
  if (text.find(ch) == std::string_view::npos) return {std::string(text)};
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(ch, start);
    if (at == std::string_view::npos) {
      parts.emplace_back(text.substr(start));
      break;
    }
    parts.emplace_back(text.substr(start, at - start));
    start = at + 1;
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

std::string JavaTrim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && static_cast<unsigned char>(text[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(text[e - 1]) <= 0x20) --e;
  return std::string(text.substr(b, e - b));
}

std::string JoinComma(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

namespace {

std::optional<int64_t> ParseJavaIntegral(std::string_view text, int64_t min, int64_t max) {
  size_t i = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  // Accumulate negatively, as Java does, so the minimum fits.
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    int d = c - '0';
    if (v < (INT64_MIN + d) / 10) return std::nullopt;
    v = v * 10 - d;
  }
  if (!negative) {
    if (v == INT64_MIN) return std::nullopt;
    v = -v;
  }
  if (v < min || v > max) return std::nullopt;
  return v;
}

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// Java's long arithmetic wraps.
int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

// UTF-8 decoding; a byte that starts no valid sequence counts as one character.
std::vector<std::pair<uint32_t, std::string_view>> CodePoints(std::string_view s) {
  std::vector<std::pair<uint32_t, std::string_view>> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    uint32_t cp = n == 1 ? b : n == 2 ? b & 0x1f : n == 3 ? b & 0x0f : b & 0x07;
    for (size_t k = 1; ok && k < n; ++k) {
      unsigned char c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (!ok) {
      out.emplace_back(b, s.substr(i, 1));
      ++i;
      continue;
    }
    out.emplace_back(cp, s.substr(i, n));
    i += n;
  }
  return out;
}

// One UTF-16 code unit: its UTF-8 text (a supplementary character's whole text on its high
// half, nothing on its low half).
struct Unit {
  std::string_view text;
  bool high = false;
  bool low = false;
};

std::vector<Unit> Utf16Units(std::string_view s) {
  std::vector<Unit> units;
  for (const auto& [cp, text] : CodePoints(s)) {
    if (cp >= 0x10000) {
      units.push_back(Unit{text, true, false});
      units.push_back(Unit{{}, false, true});
    } else {
      units.push_back(Unit{text, false, false});
    }
  }
  return units;
}

std::string JoinUnits(const std::vector<Unit>& units, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    const Unit& u = units[i];
    if (u.low) {
      if (i == begin) out += '?';  // the low half of a pair cut at the start
    } else if (u.high && i + 1 >= end) {
      out += '?';  // the high half of a pair cut at the end
    } else {
      out += u.text;
    }
  }
  return out;
}

// A BigDecimal as Java's new BigDecimal(text) reads it: unscaled value and scale.
struct Decimal {
  Int128 unscaled = 0;
  int64_t scale = 0;
};

std::optional<Decimal> ParseBigDecimal(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  Decimal d;
  int digits = 0, significant = 0, fraction = 0;
  bool point = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (point) return std::nullopt;
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digits;
    if (point) ++fraction;
    if (significant > 0 || c != '0') ++significant;
    if (significant > 38) return std::nullopt;  // beyond what Fjord computes with
    d.unscaled = d.unscaled * 10 + (c - '0');
  }
  if (digits == 0) return std::nullopt;
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    auto e = ParseJavaIntegral(s.substr(i + 1), INT32_MIN, INT32_MAX);
    if (!e) return std::nullopt;
    exponent = *e;
    i = s.size();
  }
  if (i != s.size()) return std::nullopt;
  d.scale = fraction - exponent;
  if (negative) d.unscaled = -d.unscaled;
  return d;
}

std::string Int128Text(Int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  UInt128 u = negative ? static_cast<UInt128>(-(v + 1)) + 1 : static_cast<UInt128>(v);
  std::string s;
  while (u > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

// BigDecimal.toString(): plain unless the scale is negative or the exponent below -6.
std::string BigDecimalText(const Decimal& d) {
  std::string coeff = Int128Text(d.unscaled < 0 ? -d.unscaled : d.unscaled);
  std::string sign = d.unscaled < 0 ? "-" : "";
  int64_t len = static_cast<int64_t>(coeff.size());
  int64_t adjusted = -d.scale + (len - 1);
  if (d.scale == 0) return sign + coeff;
  if (d.scale > 0 && adjusted >= -6) {
    if (len > d.scale) {
      return sign + coeff.substr(0, static_cast<size_t>(len - d.scale)) + "." +
             coeff.substr(static_cast<size_t>(len - d.scale));
    }
    return sign + "0." + std::string(static_cast<size_t>(d.scale - len), '0') + coeff;
  }
  std::string out = sign + coeff.substr(0, 1);
  if (len > 1) out += "." + coeff.substr(1);
  out += "E";
  if (adjusted > 0) out += "+";
  return out + std::to_string(adjusted);
}

}  // namespace

std::optional<int32_t> ParseJavaInt(std::string_view text) {
  auto v = ParseJavaIntegral(text, INT32_MIN, INT32_MAX);
  if (!v) return std::nullopt;
  return static_cast<int32_t>(*v);
}
std::optional<int64_t> ParseJavaLong(std::string_view text) {
  return ParseJavaIntegral(text, INT64_MIN, INT64_MAX);
}
std::optional<int16_t> ParseJavaShort(std::string_view text) {
  auto v = ParseJavaIntegral(text, INT16_MIN, INT16_MAX);
  if (!v) return std::nullopt;
  return static_cast<int16_t>(*v);
}

Result<LocalDateTime> EpochToLocalDateTime(int64_t value, int precision) {
  int64_t millis = value;
  int64_t nanos = 0;
  switch (precision) {
    case 0:
      millis = Wrap(static_cast<uint64_t>(value) * 1000u);
      break;
    case 3:
      break;
    case 6:
      millis = value / 1000;
      nanos = value % 1000 * 1000;
      break;
    case 9:
      millis = value / 1000000;
      nanos = value % 1000000;
      break;
    default:
      return Status::Invalid("epoch precision ", precision);
  }
  if (nanos < 0) {
    return Status::Invalid(
        "a negative epoch number with a sub-millisecond part (Java's "
        "Timestamp refuses a negative nano-of-millisecond)");
  }
  return LocalDateTimeFromEpochMillis(millis, static_cast<int32_t>(nanos));
}

std::optional<std::string> Utf16Substring(std::string_view text, int64_t begin,
                                          std::optional<int64_t> end) {
  std::vector<Unit> units = Utf16Units(text);
  int64_t size = static_cast<int64_t>(units.size());
  int64_t e = end ? *end : size;
  if (begin < 0 || e > size || begin > e) return std::nullopt;
  return JoinUnits(units, static_cast<size_t>(begin), static_cast<size_t>(e));
}

Result<std::string> TruncateText(const std::string& text, const DataType& type, int32_t width) {
  auto not_number = [&]() {
    return Status::Invalid("'", text, "' is not a ", type.ToString(), " value");
  };
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt: {
      std::optional<int32_t> v;
      if (type.root() == TypeRoot::kInt) {
        v = ParseJavaInt(text);
      } else if (auto s = ParseJavaShort(text)) {
        v = *s;
      }
      if (!v) return not_number();
      if (width == 0) return Status::Invalid("truncate width 0: division by zero");
      // Java's int arithmetic: value - (((value % width) + width) % width), wrapping.
      int32_t r = width == -1 ? 0 : *v % width;
      int32_t sum = static_cast<int32_t>(static_cast<uint32_t>(r) + static_cast<uint32_t>(width));
      int32_t mod = width == -1 ? 0 : sum % width;
      int32_t out = static_cast<int32_t>(static_cast<uint32_t>(*v) - static_cast<uint32_t>(mod));
      if (type.root() != TypeRoot::kInt) out = static_cast<int16_t>(out);  // Java's (short)
      return std::to_string(out);
    }
    case TypeRoot::kBigInt: {
      std::optional<int64_t> v = ParseJavaLong(text);
      if (!v) return not_number();
      if (width == 0) return Status::Invalid("truncate width 0: division by zero");
      int64_t w = width;
      int64_t mod = w == -1 ? 0 : ((*v % w) + w) % w;
      return std::to_string(Wrap(static_cast<uint64_t>(*v) - static_cast<uint64_t>(mod)));
    }
    case TypeRoot::kDecimal: {
      std::optional<Decimal> d = ParseBigDecimal(text);
      if (!d) return not_number();
      if (width == 0) return Status::Invalid("truncate width 0: BigInteger divide by zero");
      Int128 w = width;
      Int128 mod = ((d->unscaled % w) + w) % w;
      Decimal out{d->unscaled - mod, d->scale};
      return BigDecimalText(out);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      std::vector<Unit> units = Utf16Units(text);
      if (static_cast<int64_t>(width) > static_cast<int64_t>(units.size())) {
        return Status::Invalid("invalid width ", width,
                               " for truncate, expected less than or equal to ", units.size());
      }
      if (width < 0) return Status::Invalid("invalid width ", width, " for truncate");
      return JoinUnits(units, 0, static_cast<size_t>(width));
    }
    default:
      return Status::Invalid("unsupported type");
  }
}

namespace {

// The unconditional one-to-many upper-case mappings of Unicode's SpecialCasing that Java's
// String.toUpperCase makes outside the Greek extended block: ß, ŉ, ǰ, ΐ, ΰ, և and the Latin
// and Armenian ligatures.
const char* SpecialUpper(uint32_t cp) {
  switch (cp) {
    case 0x00DF:
      return "SS";
    case 0x0149:
      return "\u02BCN";
    case 0x01F0:
      return "J\u030C";
    case 0x0390:
      return "\u0399\u0308\u0301";
    case 0x03B0:
      return "\u03A5\u0308\u0301";
    case 0x0587:
      return "\u0535\u0552";
    case 0xFB00:
      return "FF";
    case 0xFB01:
      return "FI";
    case 0xFB02:
      return "FL";
    case 0xFB03:
      return "FFI";
    case 0xFB04:
      return "FFL";
    case 0xFB05:
      return "ST";
    case 0xFB06:
      return "ST";
    case 0xFB13:
      return "\u0544\u0546";
    case 0xFB14:
      return "\u0544\u0535";
    case 0xFB15:
      return "\u0544\u053B";
    case 0xFB16:
      return "\u054E\u0546";
    case 0xFB17:
      return "\u0544\u053D";
    default:
      return nullptr;
  }
}

}  // namespace

std::string JavaCase(std::string_view text, bool upper) {
  static locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  auto letter = [&](uint32_t cp) {
    return utf8 != static_cast<locale_t>(0) && iswalpha_l(static_cast<wint_t>(cp), utf8);
  };
  std::vector<std::pair<uint32_t, std::string_view>> cps = CodePoints(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < cps.size(); ++i) {
    const auto& [cp, bytes] = cps[i];
    if (cp < 0x80) {
      char c = static_cast<char>(cp);
      out.push_back(upper ? UpperChar(c) : LowerChar(c));
      continue;
    }
    if (bytes.size() == 1 || utf8 == static_cast<locale_t>(0)) {
      out += bytes;  // not valid UTF-8, or no case tables: kept
      continue;
    }
    if (upper) {
      if (const char* special = SpecialUpper(cp)) {
        out += special;
        continue;
      }
    } else if (cp == 0x0130) {  // İ: i and a combining dot above
      out += "i\u0307";
      continue;
    } else if (cp == 0x03A3) {
      // Σ at the end of a word (after a letter, before none) is the final ς.
      bool after = i > 0 && letter(cps[i - 1].first);
      bool before = i + 1 < cps.size() && letter(cps[i + 1].first);
      AppendUtf8(after && !before ? 0x03C2 : 0x03C3, &out);
      continue;
    }
    wint_t m = upper ? towupper_l(static_cast<wint_t>(cp), utf8)
                     : towlower_l(static_cast<wint_t>(cp), utf8);
    AppendUtf8(static_cast<uint32_t>(m), &out);
  }
  return out;
}

namespace {

// Java's String.hashCode over UTF-16 units, spread and bucketed as HashMap does: the iteration
// order of a small HashSet<String>.
uint32_t JavaHashBucket(std::string_view s, uint32_t capacity) {
  int32_t h = 0;
  for (const auto& [cp, bytes] : CodePoints(s)) {
    auto add = [&](uint32_t unit) {
      h = static_cast<int32_t>(31u * static_cast<uint32_t>(h) + unit);
    };
    if (cp >= 0x10000) {
      add(0xd800 + ((cp - 0x10000) >> 10));
      add(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      add(cp);
    }
  }
  uint32_t u = static_cast<uint32_t>(h);
  return (u ^ (u >> 16)) & (capacity - 1);
}

std::vector<std::string> HashSetOrder(const std::vector<std::string>& inserted) {
  uint32_t capacity = 16;
  while (inserted.size() > capacity * 3 / 4) capacity *= 2;
  std::vector<std::string> out = inserted;
  std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
    return JavaHashBucket(a, capacity) < JavaHashBucket(b, capacity);
  });
  return out;
}

}  // namespace

Result<std::vector<std::string>> JavaDfsSort(
    const std::vector<std::pair<std::string, std::string>>& refs) {
  std::set<std::string> keys;
  for (const auto& [k, v] : refs) keys.insert(k);
  std::vector<std::string> no_deps;
  std::map<std::string, std::vector<std::string>> dependents;  // in insertion order
  for (const auto& [k, v] : refs) {
    if (!keys.count(v)) {
      no_deps.push_back(k);
    } else {
      auto& list = dependents[v];
      if (std::find(list.begin(), list.end(), k) == list.end()) list.push_back(k);
    }
  }
  std::vector<std::string> sorted;
  std::set<std::string> visited, marked;
  std::function<Status(const std::string&)> dfs = [&](const std::string& node) -> Status {
    if (marked.count(node)) return Status::Invalid("computed columns: cycle detected at ", node);
    if (visited.count(node)) return Status::OK();
    marked.insert(node);
    auto it = dependents.find(node);
    if (it != dependents.end()) {
      for (const std::string& d : HashSetOrder(it->second)) FJORD_RETURN_NOT_OK(dfs(d));
    }
    marked.erase(node);
    visited.insert(node);
    sorted.push_back(node);
    return Status::OK();
  };
  for (const auto& [k, v] : refs) {
    if (!keys.count(v)) continue;
    if (!visited.count(k)) FJORD_RETURN_NOT_OK(dfs(k));
  }
  // Java: reverse(noDeps) appended to sorted, all reversed: noDeps in order, then sorted reversed.
  std::vector<std::string> out = no_deps;
  out.insert(out.end(), sorted.rbegin(), sorted.rend());
  return out;
}

}  // namespace fjord::cdc
