#include "fjord/cdc/java_time_text.h"

#include <optional>

#include "fjord/common/calendar.h"

namespace fjord::cdc {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The cursor of one parse; an optional section restores `pos` when it fails.
struct Cursor {
  std::string_view s;
  size_t pos = 0;

  // Exactly `width` digits (Java's fixed-width appendValue(field, width)).
  std::optional<int64_t> Fixed(int width) {
    if (pos + static_cast<size_t>(width) > s.size()) return std::nullopt;
    int64_t v = 0;
    for (int i = 0; i < width; ++i) {
      if (!IsDigit(s[pos + static_cast<size_t>(i)])) return std::nullopt;
      v = v * 10 + (s[pos + static_cast<size_t>(i)] - '0');
    }
    pos += static_cast<size_t>(width);
    return v;
  }
  // appendValue(field) with SignStyle.NORMAL, strict: an optional '-', then 1..18 digits greedy.
  std::optional<int64_t> Normal() {
    size_t p = pos;
    bool negative = p < s.size() && s[p] == '-';
    if (negative) ++p;
    size_t start = p;
    int64_t v = 0;
    while (p < s.size() && IsDigit(s[p]) && p - start < 18) v = v * 10 + (s[p++] - '0');
    if (p == start) return std::nullopt;
    pos = p;
    return negative ? -v : v;
  }
  bool Literal(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
};

// "[MM][M]": two digits when there are two, then a free-width number that must agree with them
// (Java keeps the first value of a field; a different second one fails its optional section).
std::optional<int64_t> TwoThenOne(Cursor* c) {
  std::optional<int64_t> value;
  size_t before = c->pos;
  if (auto two = c->Fixed(2)) value = two;
  if (!value) c->pos = before;
  size_t mid = c->pos;
  if (auto one = c->Normal()) {
    if (value && *one != *value) {
      c->pos = mid;
    } else {
      value = one;
    }
  } else {
    c->pos = mid;
  }
  return value;
}

}  // namespace

Result<LocalDateTime> ParseJavaDateTimeText(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::Invalid("date-time text '", std::string(text), "' could not be parsed (", why,
                           "); the form read is yyyy-MM-dd[ HH:mm:ss[.fraction]]");
  };
  Cursor c{text};
  // "yyyy": year-of-era, SignStyle.EXCEEDS_PAD, at least 4 digits: exactly 4 without a sign,
  // more only after a '+'.
  bool plus = c.Literal('+');
  size_t start = c.pos;
  int64_t year = 0;
  while (c.pos < text.size() && IsDigit(text[c.pos]) && c.pos - start < 18) {
    year = year * 10 + (text[c.pos++] - '0');
  }
  size_t digits = c.pos - start;
  if (digits < 4 || (plus && digits <= 4) || (!plus && digits > 4)) return bad("the year");
  if (year < 1 || year > 999999999) return bad("the year of era is out of range");
  if (!c.Literal('-')) return bad("'-' after the year");
  std::optional<int64_t> month = TwoThenOne(&c);
  if (!month) return bad("the month");
  if (!c.Literal('-')) return bad("'-' after the month");
  std::optional<int64_t> day = TwoThenOne(&c);
  if (!day) return bad("the day");
  int64_t hour = 0, minute = 0, second = 0, nano = 0;
  {
    // The optional " H:m:s[.fraction]" section: all of it or nothing.
    Cursor t = c;
    std::optional<int64_t> h, m, s;
    bool ok = t.Literal(' ') && (h = TwoThenOne(&t)) && t.Literal(':') && (m = TwoThenOne(&t)) &&
              t.Literal(':') && (s = TwoThenOne(&t));
    if (ok) {
      int64_t n = 0;
      if (t.Literal('.')) {
        int count = 0;
        while (t.pos < text.size() && IsDigit(text[t.pos]) && count < 9) {
          n = n * 10 + (text[t.pos++] - '0');
          ++count;
        }
        for (; count < 9; ++count) n *= 10;
      }
      c = t;
      hour = *h;
      minute = *m;
      second = *s;
      nano = n;
    }
  }
  if (c.pos != text.size()) return bad("unparsed text at index " + std::to_string(c.pos));
  if (*month < 1 || *month > 12) return bad("month of year " + std::to_string(*month));
  if (*day < 1 || *day > 31) return bad("day of month " + std::to_string(*day));
  int64_t dom = std::min<int64_t>(*day, DaysInMonth(year, static_cast<unsigned>(*month)));
  if (minute < 0 || minute > 59) return bad("minute " + std::to_string(minute));
  if (second < 0 || second > 59) return bad("second " + std::to_string(second));
  bool end_of_day = hour == 24 && minute == 0 && second == 0 && nano == 0;
  if (!end_of_day && (hour < 0 || hour > 23)) return bad("hour " + std::to_string(hour));
  LocalDateTime out;
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(*month), static_cast<unsigned>(dom));
  if (end_of_day) ++days;  // SMART: 24:00 is the next day's midnight
  CivilDate d = CivilFromDays(days);
  out.year = d.year;
  out.month = static_cast<int>(d.month);
  out.day = static_cast<int>(d.day);
  out.hour = end_of_day ? 0 : static_cast<int>(hour);
  out.minute = static_cast<int>(minute);
  out.second = static_cast<int>(second);
  out.nano = static_cast<int32_t>(nano);
  return out;
}

LocalDateTime LocalDateTimeFromEpochMillis(int64_t millis, int32_t nano_of_milli) {
  constexpr int64_t kDay = 86400000;
  int64_t days = FloorDiv(millis, kDay);
  int64_t ms = FloorMod(millis, kDay);
  CivilDate d = CivilFromDays(days);
  LocalDateTime t;
  t.year = d.year;
  t.month = static_cast<int>(d.month);
  t.day = static_cast<int>(d.day);
  t.hour = static_cast<int>(ms / 3600000);
  t.minute = static_cast<int>(ms / 60000 % 60);
  t.second = static_cast<int>(ms / 1000 % 60);
  t.nano = static_cast<int32_t>(ms % 1000 * 1000000 + nano_of_milli);
  return t;
}

// ---- DateTimePattern ---------------------------------------------------------------------------

namespace {

// The most letters Java's DateTimeFormatterBuilder.appendPattern takes for each letter Fjord
// prints; 0 for letters it does not print.
int MaxCount(char letter) {
  switch (letter) {
    case 'G':
    case 'M':
    case 'L':
    case 'Q':
    case 'q':
    case 'E':
      return 5;
    case 'y':
    case 'u':
    case 'n':
    case 'N':
    case 'A':
      return 19;
    case 'S':
      return 9;
    case 'D':
      return 3;
    case 'd':
    case 'h':
    case 'K':
    case 'k':
    case 'H':
    case 'm':
    case 's':
      return 2;
    case 'a':
      return 1;
    default:
      return 0;
  }
}

const char* const kMonths[] = {"January",   "February", "March",    "April",
                               "May",       "June",     "July",     "August",
                               "September", "October",  "November", "December"};
const char* const kDays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                             "Friday", "Saturday", "Sunday"};

std::string Pad(int64_t v, int width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (static_cast<int>(digits.size()) < width) {
    digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
  }
  return digits;
}

// Java's NumberPrinterParser: `min` zero padding, a sign per `exceeds_pad` (EXCEEDS_PAD: '+'
// once the value needs more than `min` digits) or NORMAL ('-' only); NOT_NEGATIVE never gets a
// negative value here.
std::string Number(int64_t v, int min, bool exceeds_pad) {
  std::string sign;
  if (v < 0) {
    sign = "-";
  } else if (exceeds_pad && min < 19) {
    int64_t limit = 1;
    for (int i = 0; i < min; ++i) limit *= 10;
    if (v >= limit) sign = "+";
  }
  return sign + Pad(v, min);
}

}  // namespace

Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern) {
  DateTimePattern out;
  auto literal = [&](std::string text) {
    if (!out.items_.empty() && out.items_.back().letter == 0) {
      out.items_.back().text += text;
    } else {
      out.items_.push_back(Item{0, 0, std::move(text)});
    }
  };
  int depth = 0;
  for (size_t i = 0; i < pattern.size();) {
    char ch = pattern[i];
    if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) {
      size_t j = i;
      while (j < pattern.size() && pattern[j] == ch) ++j;
      int count = static_cast<int>(j - i);
      int max = MaxCount(ch);
      if (max == 0) {
        return Status::Invalid("date_format pattern '", std::string(pattern), "': letter '",
                               std::string(1, ch),
                               "' is not supported (Fjord prints G y u M L Q q d D E a h K k H m "
                               "s S n N A)");
      }
      if (count > max) {
        return Status::Invalid("date_format pattern '", std::string(pattern),
                               "': too many pattern letters: ", std::string(1, ch));
      }
      out.items_.push_back(Item{ch, count, {}});
      i = j;
    } else if (ch == '\'') {
      size_t j = i + 1;
      std::string text;
      bool closed = false;
      while (j < pattern.size()) {
        if (pattern[j] == '\'') {
          if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
            text += '\'';
            j += 2;
            continue;
          }
          closed = true;
          break;
        }
        text += pattern[j++];
      }
      if (!closed) {
        return Status::Invalid("date_format pattern '", std::string(pattern),
                               "' ends with an incomplete string literal");
      }
      literal(j == i + 1 ? "'" : text);  // '' alone is one quote
      i = j + 1;
    } else if (ch == '[') {
      ++depth;
      ++i;
    } else if (ch == ']') {
      if (depth == 0) {
        return Status::Invalid("date_format pattern '", std::string(pattern),
                               "' has ] without a previous [");
      }
      --depth;
      ++i;
    } else if (ch == '{' || ch == '}' || ch == '#') {
      return Status::Invalid("date_format pattern '", std::string(pattern),
                             "' includes the reserved character '", std::string(1, ch), "'");
    } else {
      literal(std::string(1, ch));
      ++i;
    }
  }
  return out;
}

Result<std::string> DateTimePattern::Format(const LocalDateTime& t) const {
  std::string out;
  const int64_t year_of_era = t.year >= 1 ? t.year : 1 - t.year;
  const int64_t days =
      DaysFromCivil(t.year, static_cast<unsigned>(t.month), static_cast<unsigned>(t.day));
  const int dow = static_cast<int>(FloorMod(days + 3, 7));  // 1970-01-01 was a Thursday
  const int64_t day_of_year = days - DaysFromCivil(t.year, 1, 1) + 1;
  const int quarter = (t.month - 1) / 3 + 1;
  const int64_t nano_of_day = ((t.hour * 60LL + t.minute) * 60 + t.second) * 1000000000LL + t.nano;
  auto text = [](int count, const std::string& full, const std::string& short_form) {
    if (count == 4) return full;
    if (count == 5) return full.substr(0, 1);
    return short_form;
  };
  auto fixed = [&](char letter, int64_t v, int count) -> Result<std::string> {
    // appendValue(field, count): at most `count` digits.
    std::string digits = std::to_string(v);
    if (static_cast<int>(digits.size()) > count) {
      return Status::Invalid("date_format: field '", std::string(1, letter),
                             "' cannot be printed as the value ", v,
                             " exceeds the maximum print width of ", count);
    }
    return Pad(v, count);
  };
  for (const Item& it : items_) {
    const int n = it.count;
    switch (it.letter) {
      case 0:
        out += it.text;
        break;
      case 'G':
        out += text(n, t.year >= 1 ? "Anno Domini" : "Before Christ", t.year >= 1 ? "AD" : "BC");
        break;
      case 'y':
      case 'u': {
        int64_t v = it.letter == 'y' ? year_of_era : t.year;
        if (n == 2) {
          out += Pad((v < 0 ? -v : v) % 100, 2);
        } else {
          out += Number(v, n, n >= 4);
        }
        break;
      }
      case 'M':
      case 'L':
        if (n <= 2) {
          out += Pad(t.month, n);
        } else {
          std::string full = kMonths[t.month - 1];
          out += text(n, full, full.substr(0, 3));
        }
        break;
      case 'Q':
      case 'q':
        if (n <= 2) {
          out += Pad(quarter, n);
        } else if (n == 3) {
          out += "Q" + std::to_string(quarter);
        } else if (n == 4) {
          static const char* const kQ[] = {"1st quarter", "2nd quarter", "3rd quarter",
                                           "4th quarter"};
          out += kQ[quarter - 1];
        } else {
          out += std::to_string(quarter);
        }
        break;
      case 'd':
        out += Pad(t.day, n);
        break;
      case 'D':
        out += Pad(day_of_year, n);
        break;
      case 'E': {
        std::string full = kDays[dow];
        out += text(n, full, full.substr(0, 3));
        break;
      }
      case 'a':
        out += t.hour < 12 ? "AM" : "PM";
        break;
      case 'h':
        out += Pad(t.hour % 12 == 0 ? 12 : t.hour % 12, n);
        break;
      case 'K':
        out += Pad(t.hour % 12, n);
        break;
      case 'k':
        out += Pad(t.hour == 0 ? 24 : t.hour, n);
        break;
      case 'H':
        out += Pad(t.hour, n);
        break;
      case 'm':
        out += Pad(t.minute, n);
        break;
      case 's':
        out += Pad(t.second, n);
        break;
      case 'S': {
        int64_t v = t.nano;
        for (int i = n; i < 9; ++i) v /= 10;  // truncated, as Java's fraction printer
        out += Pad(v, n);
        break;
      }
      case 'n':
      case 'N':
      case 'A': {
        int64_t v = it.letter == 'n'   ? t.nano
                    : it.letter == 'N' ? nano_of_day
                                       : nano_of_day / 1000000;
        if (n == 1) {
          out += std::to_string(v);
        } else {
          FJORD_ASSIGN_OR_RAISE(std::string s, fixed(it.letter, v, n));
          out += s;
        }
        break;
      }
      default:
        return Status::Internal("date_format letter ", std::string(1, it.letter));
    }
  }
  return out;
}

}  // namespace fjord::cdc
