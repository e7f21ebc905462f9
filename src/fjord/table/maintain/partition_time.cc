// Java's PartitionTimeExtractor and the part of java.time's DateTimeFormatter it needs: pattern
// compilation (DateTimeFormatterBuilder#parsePattern, adjacent value parsing), strict parsing
// and the SMART / LENIENT resolution of ISO fields (Parsed, IsoChronology). Facts from the JDK's
// behaviour; see partition_time.h for what is honoured.

#include "fjord/table/maintain/partition_time.h"

#include <ctime>
#include <limits>
#include <utility>

#include "fjord/common/calendar.h"
#include "fjord/value.h"

namespace fjord {

namespace {

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int64_t kNanosPerDay = 86400 * kNanosPerSecond;
constexpr int64_t kMaxYear = 999999999;  // java.time's Year.MAX_VALUE

}  // namespace

// ---- LocalDateTime -----------------------------------------------------------------------------

LocalDateTime LocalDateTime::FromMillis(int64_t local_millis) {
  return LocalDateTime{FloorDiv(local_millis, 86400000),
                       FloorMod(local_millis, 86400000) * 1000000};
}

int64_t LocalDateTime::ToMillis() const { return days * 86400000 + nanos / 1000000; }

LocalDateTime LocalDateTime::Now() {
  struct timespec ts {};
  clock_gettime(CLOCK_REALTIME, &ts);
  time_t seconds = ts.tv_sec;
  struct tm local {};
  localtime_r(&seconds, &local);
  int64_t days = DaysFromCivil(local.tm_year + 1900, static_cast<unsigned>(local.tm_mon + 1),
                               static_cast<unsigned>(local.tm_mday));
  int64_t second_of_day = local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec;
  return LocalDateTime{days, second_of_day * kNanosPerSecond + ts.tv_nsec};
}

LocalDateTime LocalDateTime::MinusMillis(int64_t millis) const {
  int64_t total_days = FloorDiv(millis, 86400000);
  int64_t rest = FloorMod(millis, 86400000) * 1000000;
  LocalDateTime out{days - total_days, nanos - rest};
  if (out.nanos < 0) {
    out.nanos += kNanosPerDay;
    out.days -= 1;
  }
  return out;
}

namespace {

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  while (static_cast<int>(s.size()) < width) s.insert(s.begin(), '0');
  return s;
}

}  // namespace

std::string LocalDateTime::ToString() const {
  CivilDate d = CivilFromDays(days);
  std::string out;
  // LocalDate.toString: 4 digits, a sign and more beyond 9999.
  if (d.year < 0) {
    out = "-" + Pad(-d.year, 4);
  } else if (d.year > 9999) {
    out = "+" + std::to_string(d.year);
  } else {
    out = Pad(d.year, 4);
  }
  out += "-" + Pad(d.month, 2) + "-" + Pad(d.day, 2) + "T";
  int64_t second_of_day = nanos / kNanosPerSecond;
  int64_t nano = nanos % kNanosPerSecond;
  out += Pad(second_of_day / 3600, 2) + ":" + Pad(second_of_day / 60 % 60, 2);
  int64_t second = second_of_day % 60;
  if (second > 0 || nano > 0) {
    out += ":" + Pad(second, 2);
    if (nano > 0) {
      // LocalTime.toString: 3, 6 or 9 fraction digits.
      if (nano % 1000000 == 0) {
        out += "." + Pad(nano / 1000000, 3);
      } else if (nano % 1000 == 0) {
        out += "." + Pad(nano / 1000, 6);
      } else {
        out += "." + Pad(nano, 9);
      }
    }
  }
  return out;
}

// ---- The formatter -------------------------------------------------------------------------

namespace {

enum Field : int { kYearOfEra, kYear, kMonth, kDay, kHour, kMinute, kSecond, kNano, kFields };
enum class Sign : unsigned char { kNormal, kNotNegative, kExceedsPad };

struct Elem {
  enum Kind : unsigned char { kLiteral, kNumber, kReduced, kFraction, kOptional } kind = kLiteral;
  std::string literal;
  Field field = kYear;
  int min_width = 1;
  int max_width = 19;
  Sign sign = Sign::kNormal;
  int subsequent = 0;  // Java's subsequentWidth: -1 fixed width, > 0 width reserved after it
  bool decimal_point = false;
  std::vector<Elem> children;  // kOptional
};

}  // namespace

struct PartitionTimeExtractor::Compiled {
  std::vector<Elem> elems;
  bool lenient = false;
};

namespace {

// DateTimeFormatterBuilder's list of one composite (the top level or an optional section) and
// its active value parser.
struct Builder {
  std::vector<Elem> elems;
  int active = -1;

  void AppendInternal(Elem e) {
    elems.push_back(std::move(e));
    active = -1;
  }
  // Java's appendValue(NumberPrinterParser): adjacent value parsing.
  void AppendValue(Elem e) {
    if (active >= 0) {
      Elem& base = elems[static_cast<size_t>(active)];
      if (e.min_width == e.max_width && e.sign == Sign::kNotNegative) {
        base.subsequent += e.max_width;
        e.subsequent = -1;
        int keep = active;
        elems.push_back(std::move(e));
        active = keep;
      } else {
        base.subsequent = -1;
        elems.push_back(std::move(e));
        active = static_cast<int>(elems.size()) - 1;
      }
    } else {
      elems.push_back(std::move(e));
      active = static_cast<int>(elems.size()) - 1;
    }
  }
};

Elem Number(Field f, int min, int max, Sign sign) {
  Elem e;
  e.kind = Elem::kNumber;
  e.field = f;
  e.min_width = min;
  e.max_width = max;
  e.sign = sign;
  return e;
}

Elem Literal(std::string text) {
  Elem e;
  e.kind = Elem::kLiteral;
  e.literal = std::move(text);
  return e;
}

bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

Result<PartitionTimeExtractor::Compiled> CompilePattern(const std::string& pattern) {
  auto refuse = [&](const std::string& why) {
    return Status::Invalid("partition.timestamp-formatter '", pattern, "': ", why);
  };
  std::vector<Builder> stack(1);
  for (size_t pos = 0; pos < pattern.size(); ++pos) {
    char cur = pattern[pos];
    Builder& b = stack.back();
    if (IsLetter(cur)) {
      size_t start = pos;
      while (pos + 1 < pattern.size() && pattern[pos + 1] == cur) ++pos;
      int count = static_cast<int>(pos - start + 1);
      auto too_many = [&] {
        return refuse(std::string("too many pattern letters '") + cur + "' (Java rejects it)");
      };
      switch (cur) {
        case 'y':
        case 'u': {
          Field f = cur == 'y' ? kYearOfEra : kYear;
          if (count == 2) {
            Elem e = Number(f, 2, 2, Sign::kNotNegative);
            e.kind = Elem::kReduced;
            b.AppendValue(std::move(e));
          } else if (count < 4) {
            b.AppendValue(Number(f, count, 19, Sign::kNormal));
          } else {
            b.AppendValue(Number(f, count, 19, Sign::kExceedsPad));
          }
          break;
        }
        case 'M':
          if (count > 2) {
            return refuse("month names ('" + std::string(static_cast<size_t>(count), 'M') +
                          "') are not honoured by Fjord; use M or MM");
          }
          [[fallthrough]];
        case 'd':
        case 'H':
        case 'm':
        case 's': {
          if (count > 2) return too_many();
          Field f = cur == 'M'   ? kMonth
                    : cur == 'd' ? kDay
                    : cur == 'H' ? kHour
                    : cur == 'm' ? kMinute
                                 : kSecond;
          b.AppendValue(count == 1 ? Number(f, 1, 19, Sign::kNormal)
                                   : Number(f, 2, 2, Sign::kNotNegative));
          break;
        }
        case 'S': {
          if (count > 9) return refuse("more than 9 fraction digits 'S' (Java rejects it)");
          Elem e = Number(kNano, count, count, Sign::kNotNegative);
          e.kind = Elem::kFraction;
          b.AppendValue(std::move(e));
          break;
        }
        default:
          return refuse(std::string("pattern letter '") + cur +
                        "' is not honoured by Fjord (it honours y u M d H m s S, quoted text, "
                        "literals and [ ])");
      }
    } else if (cur == '\'') {
      size_t start = pos++;
      for (; pos < pattern.size(); ++pos) {
        if (pattern[pos] == '\'') {
          if (pos + 1 < pattern.size() && pattern[pos + 1] == '\'') {
            ++pos;
          } else {
            break;
          }
        }
      }
      if (pos >= pattern.size()) return refuse("it ends with an incomplete quoted literal");
      std::string text = pattern.substr(start + 1, pos - start - 1);
      if (text.empty()) {
        b.AppendInternal(Literal("'"));
      } else {
        std::string unquoted;
        for (size_t i = 0; i < text.size(); ++i) {
          unquoted += text[i];
          if (text[i] == '\'' && i + 1 < text.size() && text[i + 1] == '\'') ++i;
        }
        b.AppendInternal(Literal(std::move(unquoted)));
      }
    } else if (cur == '[') {
      stack.emplace_back();
    } else if (cur == ']') {
      if (stack.size() == 1) return refuse("it contains ] without a previous [");
      Elem opt;
      opt.kind = Elem::kOptional;
      opt.children = std::move(stack.back().elems);
      stack.pop_back();
      stack.back().AppendInternal(std::move(opt));
    } else if (cur == '{' || cur == '}' || cur == '#') {
      return refuse(std::string("it contains the reserved character '") + cur + "'");
    } else {
      b.AppendInternal(Literal(std::string(1, cur)));
    }
  }
  // Unclosed optional sections end with the pattern (toFormatter closes them).
  while (stack.size() > 1) {
    Elem opt;
    opt.kind = Elem::kOptional;
    opt.children = std::move(stack.back().elems);
    stack.pop_back();
    stack.back().AppendInternal(std::move(opt));
  }
  PartitionTimeExtractor::Compiled c;
  c.elems = std::move(stack.front().elems);
  return c;
}

// Java's default: year 1-10 digits, month and day 1-2, then optionally " H:m:s" (1-2 digits
// each) and optionally a fraction with its decimal point; LENIENT resolution.
const PartitionTimeExtractor::Compiled& DefaultFormatter() {
  static const PartitionTimeExtractor::Compiled c = [] {
    PartitionTimeExtractor::Compiled d;
    d.lenient = true;
    d.elems.push_back(Number(kYear, 1, 10, Sign::kNormal));
    d.elems.push_back(Literal("-"));
    d.elems.push_back(Number(kMonth, 1, 2, Sign::kNormal));
    d.elems.push_back(Literal("-"));
    d.elems.push_back(Number(kDay, 1, 2, Sign::kNormal));
    Elem time;
    time.kind = Elem::kOptional;
    time.children.push_back(Literal(" "));
    time.children.push_back(Number(kHour, 1, 2, Sign::kNormal));
    time.children.push_back(Literal(":"));
    time.children.push_back(Number(kMinute, 1, 2, Sign::kNormal));
    time.children.push_back(Literal(":"));
    time.children.push_back(Number(kSecond, 1, 2, Sign::kNormal));
    Elem fraction;
    fraction.kind = Elem::kOptional;
    Elem f = Number(kNano, 1, 9, Sign::kNotNegative);
    f.kind = Elem::kFraction;
    f.decimal_point = true;
    fraction.children.push_back(std::move(f));
    time.children.push_back(std::move(fraction));
    d.elems.push_back(std::move(time));
    return d;
  }();
  return c;
}

// ---- Parsing (strict, case-sensitive) --------------------------------------------------------

struct Context {
  std::optional<int64_t> fields[kFields];
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Stores a parsed field; a second, different value of the same field fails (Java's
// setParsedField).
int SetField(Context& ctx, Field f, int64_t value, int error_pos, int success_pos) {
  auto& slot = ctx.fields[f];
  if (slot && *slot != value) return ~error_pos;
  slot = value;
  return success_pos;
}

// Java's SignStyle.parse under strict parsing.
bool SignAllowed(Sign style, bool positive) {
  switch (style) {
    case Sign::kNormal:
      return !positive;  // '-' only
    case Sign::kExceedsPad:
      return true;
    case Sign::kNotNegative:
      return false;
  }
  return false;
}

int ParseNumber(const Elem& e, Context& ctx, std::string_view text, int position) {
  const int length = static_cast<int>(text.size());
  if (position == length) return ~position;
  bool negative = false;
  bool positive = false;
  char sign = text[static_cast<size_t>(position)];
  if (sign == '+') {
    if (!SignAllowed(e.sign, true)) return ~position;
    positive = true;
    ++position;
  } else if (sign == '-') {
    if (!SignAllowed(e.sign, false)) return ~position;
    negative = true;
    ++position;
  }
  const int eff_min = e.min_width;  // strict parsing
  const int min_end = position + eff_min;
  if (min_end > length) return ~position;
  int eff_max = e.max_width + std::max(e.subsequent, 0);
  Int128 total = 0;
  int pos = position;
  for (int pass = 0; pass < 2; ++pass) {
    int max_end = std::min(pos + eff_max, length);
    while (pos < max_end) {
      char ch = text[static_cast<size_t>(pos++)];
      if (!IsDigit(ch)) {
        --pos;
        if (pos < min_end) return ~position;
        break;
      }
      total = total * 10 + static_cast<unsigned>(ch - '0');
    }
    if (e.subsequent > 0 && pass == 0) {
      int parse_len = pos - position;
      eff_max = std::max(eff_min, parse_len - e.subsequent);
      pos = position;
      total = 0;
    } else {
      break;
    }
  }
  if (negative) {
    if (total == 0) return ~(position - 1);  // minus zero
  } else if (e.sign == Sign::kExceedsPad) {
    int parse_len = pos - position;
    if (positive) {
      if (parse_len <= e.min_width) return ~(position - 1);
    } else if (parse_len > e.min_width) {
      return ~position;
    }
  }
  if (total > static_cast<Int128>(std::numeric_limits<int64_t>::max())) {
    total /= 10;  // Java parses one digit less on overflow
    --pos;
  }
  int64_t value = static_cast<int64_t>(total);
  if (negative) value = -value;
  if (e.kind == Elem::kReduced && pos - position == e.min_width && value >= 0) {
    // Two digits from the base year 2000: 2000 .. 2099.
    value += 2000;
  }
  return SetField(ctx, e.field, value, position, pos);
}

int ParseFraction(const Elem& e, Context& ctx, std::string_view text, int position) {
  const int length = static_cast<int>(text.size());
  const int eff_min = e.min_width;
  const int eff_max = e.max_width;
  if (position == length) return eff_min > 0 ? ~position : position;
  if (e.decimal_point) {
    if (text[static_cast<size_t>(position)] != '.') return eff_min > 0 ? ~position : position;
    ++position;
  }
  int min_end = position + eff_min;
  if (min_end > length) return ~position;
  int max_end = std::min(position + eff_max, length);
  int64_t total = 0;
  int pos = position;
  while (pos < max_end) {
    char ch = text[static_cast<size_t>(pos)];
    if (!IsDigit(ch)) {
      if (pos < min_end) return ~position;
      break;
    }
    ++pos;
    total = total * 10 + (ch - '0');
  }
  for (int i = 9 - (pos - position); i > 0; --i) total *= 10;
  return SetField(ctx, kNano, total, position, pos);
}

int ParseElems(const std::vector<Elem>& elems, Context& ctx, std::string_view text, int position);

int ParseElem(const Elem& e, Context& ctx, std::string_view text, int position) {
  switch (e.kind) {
    case Elem::kLiteral: {
      if (text.substr(static_cast<size_t>(position)).substr(0, e.literal.size()) != e.literal) {
        return ~position;
      }
      return position + static_cast<int>(e.literal.size());
    }
    case Elem::kNumber:
    case Elem::kReduced:
      return ParseNumber(e, ctx, text, position);
    case Elem::kFraction:
      return ParseFraction(e, ctx, text, position);
    case Elem::kOptional: {
      Context saved = ctx;
      int pos = ParseElems(e.children, ctx, text, position);
      if (pos < 0) {
        ctx = saved;
        return position;
      }
      return pos;
    }
  }
  return ~position;
}

int ParseElems(const std::vector<Elem>& elems, Context& ctx, std::string_view text, int position) {
  for (const Elem& e : elems) {
    position = ParseElem(e, ctx, text, position);
    if (position < 0) break;
  }
  return position;
}

// ---- Resolution (java.time.format.Parsed, IsoChronology) -----------------------------------

struct Resolved {
  std::optional<int64_t> days;   // the date
  std::optional<int64_t> nanos;  // the time of day
};

Status OutOfRange(const char* field, int64_t value) {
  return Status::Invalid("invalid value for ", field, ": ", value);
}

Result<Resolved> Resolve(Context ctx, bool lenient) {
  auto& f = ctx.fields;
  Resolved out;
  // Year of era without an era: the year (SMART and LENIENT invent the era).
  if (f[kYearOfEra]) {
    int64_t yoe = *f[kYearOfEra];
    if (!lenient && (yoe < 1 || yoe > kMaxYear + 1)) return OutOfRange("YearOfEra", yoe);
    int64_t year = (!f[kYear] || *f[kYear] > 0) ? yoe : 1 - yoe;
    if (f[kYear] && *f[kYear] != year) {
      return Status::Invalid("conflict found: Year ", *f[kYear], " differs from Year ", year);
    }
    f[kYear] = year;
    f[kYearOfEra].reset();
  }
  if (f[kYear] && f[kMonth] && f[kDay]) {
    int64_t y = *f[kYear];
    if (y < -kMaxYear || y > kMaxYear) return OutOfRange("Year", y);
    int64_t month = *f[kMonth];
    int64_t day = *f[kDay];
    if (lenient) {
      // LocalDate.of(y, 1, 1).plusMonths(month - 1).plusDays(day - 1)
      int64_t months = y * 12 + (month - 1);
      int64_t ny = FloorDiv(months, 12);
      if (ny < -kMaxYear || ny > kMaxYear) return OutOfRange("Year", ny);
      int64_t days =
          DaysFromCivil(ny, static_cast<unsigned>(FloorMod(months, 12) + 1), 1) + (day - 1);
      CivilDate check = CivilFromDays(days);
      if (check.year < -kMaxYear || check.year > kMaxYear) return OutOfRange("Year", check.year);
      out.days = days;
    } else {
      if (month < 1 || month > 12) return OutOfRange("MonthOfYear", month);
      if (day < 1 || day > 31) return OutOfRange("DayOfMonth", day);
      // SMART: the previous valid day of a short month.
      int64_t last = DaysInMonth(y, static_cast<unsigned>(month));
      if (day > last) day = last;
      out.days = DaysFromCivil(y, static_cast<unsigned>(month), static_cast<unsigned>(day));
    }
  }
  // The time: an hour is needed; a missing minute, second, nano defaults to 0 unless what
  // follows it is given.
  if (f[kHour]) {
    const auto& moh = f[kMinute];
    const auto& som = f[kSecond];
    const auto& nos = f[kNano];
    bool invalid_combo = (!moh && (som || nos)) || (moh && !som && nos);
    if (!invalid_combo) {
      int64_t h = *f[kHour];
      int64_t m = moh.value_or(0);
      int64_t s = som.value_or(0);
      int64_t n = nos.value_or(0);
      int64_t excess = 0;
      int64_t nod = 0;
      if (lenient) {
        Int128 total = static_cast<Int128>(h) * 3600 * kNanosPerSecond +
                       static_cast<Int128>(m) * 60 * kNanosPerSecond +
                       static_cast<Int128>(s) * kNanosPerSecond + n;
        if (total > std::numeric_limits<int64_t>::max() ||
            total < std::numeric_limits<int64_t>::min()) {
          return Status::Invalid("time overflow");
        }
        excess = FloorDiv(static_cast<int64_t>(total), kNanosPerDay);
        nod = FloorMod(static_cast<int64_t>(total), kNanosPerDay);
      } else {
        if (m < 0 || m > 59) return OutOfRange("MinuteOfHour", m);
        if (n < 0 || n >= kNanosPerSecond) return OutOfRange("NanoOfSecond", n);
        if (h == 24 && m == 0 && s == 0 && n == 0) {
          excess = 1;  // 24:00 is the next midnight
        } else {
          if (h < 0 || h > 23) return OutOfRange("HourOfDay", h);
          if (s < 0 || s > 59) return OutOfRange("SecondOfMinute", s);
          nod = ((h * 60 + m) * 60 + s) * kNanosPerSecond + n;
        }
      }
      out.nanos = nod;
      if (out.days) out.days = *out.days + excess;
    }
  }
  return out;
}

}  // namespace

// ---- ParseLocalDateTime -------------------------------------------------------------------

Result<LocalDateTime> ParseLocalDateTime(std::string_view text) {
  static const PartitionTimeExtractor::Compiled iso = [] {
    PartitionTimeExtractor::Compiled c;
    c.elems.push_back(Number(kYear, 4, 10, Sign::kExceedsPad));
    c.elems.push_back(Literal("-"));
    c.elems.push_back(Number(kMonth, 2, 2, Sign::kNotNegative));
    c.elems.push_back(Literal("-"));
    c.elems.push_back(Number(kDay, 2, 2, Sign::kNotNegative));
    return c;
  }();
  auto bad = [&] {
    return Status::Invalid("'", text,
                           "' is not a local date-time (yyyy-MM-ddTHH:mm[:ss[.fffffffff]])");
  };
  Context ctx;
  int pos = ParseElems(iso.elems, ctx, text, 0);
  if (pos < 0) return bad();
  if (pos < static_cast<int>(text.size())) {
    char sep = text[static_cast<size_t>(pos)];
    if (sep != 'T' && sep != ' ') return bad();
    std::vector<Elem> time;
    time.push_back(Number(kHour, 2, 2, Sign::kNotNegative));
    time.push_back(Literal(":"));
    time.push_back(Number(kMinute, 2, 2, Sign::kNotNegative));
    Elem seconds;
    seconds.kind = Elem::kOptional;
    seconds.children.push_back(Literal(":"));
    seconds.children.push_back(Number(kSecond, 2, 2, Sign::kNotNegative));
    Elem fraction = Number(kNano, 1, 9, Sign::kNotNegative);
    fraction.kind = Elem::kFraction;
    fraction.decimal_point = true;
    Elem opt_fraction;
    opt_fraction.kind = Elem::kOptional;
    opt_fraction.children.push_back(std::move(fraction));
    seconds.children.push_back(std::move(opt_fraction));
    time.push_back(std::move(seconds));
    pos = ParseElems(time, ctx, text, pos + 1);
    if (pos < 0) return bad();
  }
  if (pos != static_cast<int>(text.size())) return bad();
  if (!ctx.fields[kHour]) ctx.fields[kHour] = 0;
  Result<Resolved> r = Resolve(ctx, false);
  if (!r.ok() || !r->days || !r->nanos || (ctx.fields[kHour] && *ctx.fields[kHour] == 24)) {
    return bad();
  }
  return LocalDateTime{*r->days, *r->nanos};
}

// ---- PartitionTimeExtractor ---------------------------------------------------------------

Result<PartitionTimeExtractor> PartitionTimeExtractor::Make(std::optional<std::string> pattern,
                                                            std::optional<std::string> formatter) {
  PartitionTimeExtractor x;
  if (formatter) {
    FJORD_ASSIGN_OR_RAISE(Compiled c, CompilePattern(*formatter));
    x.compiled_ = std::make_shared<const Compiled>(std::move(c));
  }
  x.pattern_ = std::move(pattern);
  x.formatter_ = std::move(formatter);
  return x;
}

Result<LocalDateTime> PartitionTimeExtractor::Parse(std::string_view text) const {
  const Compiled& c = compiled_ ? *compiled_ : DefaultFormatter();
  auto fail = [&](const std::string& why) {
    return Status::Invalid("'", text, "' does not parse as a time with ",
                           formatter_
                               ? "partition.timestamp-formatter '" + *formatter_ + "'"
                               : std::string("the default formatter (yyyy-MM-dd[ HH:mm:ss])"),
                           ": ", why);
  };
  Context ctx;
  int pos = ParseElems(c.elems, ctx, text, 0);
  if (pos < 0) return fail("mismatch at index " + std::to_string(~pos));
  if (pos < static_cast<int>(text.size())) {
    return fail("unparsed text at index " + std::to_string(pos));
  }
  Result<Resolved> r = Resolve(ctx, c.lenient);
  if (!r.ok()) return fail(r.status().message());
  // LocalDateTime.parse, else LocalDate.parse at midnight.
  if (!r->days) return fail("no date in it");
  return LocalDateTime{*r->days, r->nanos.value_or(0)};
}

Result<LocalDateTime> PartitionTimeExtractor::Extract(
    const std::vector<std::string>& keys,
    const std::vector<std::optional<std::string>>& values) const {
  std::string text;
  if (!pattern_) {
    if (values.empty() || !values[0]) return Status::Invalid("the first partition value is NULL");
    text = *values[0];
  } else {
    text = *pattern_;
    for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
      if (!values[i]) return Status::Invalid("partition value '", keys[i], "' is NULL");
      const std::string needle = "$" + keys[i];
      std::string replaced;
      size_t from = 0;
      for (size_t at; (at = text.find(needle, from)) != std::string::npos;
           from = at + needle.size()) {
        replaced.append(text, from, at - from);
        replaced += *values[i];
      }
      replaced.append(text, from, std::string::npos);
      text = std::move(replaced);
    }
  }
  return Parse(text);
}

}  // namespace fjord
