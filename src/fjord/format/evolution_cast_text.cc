// Casts to CHAR / VARCHAR and BINARY / VARBINARY as Java Paimon's executors compute them:
// NumericToStringCastRule and BooleanToStringCastRule (Java's toString, then
// BinaryStringUtils.toCharacterString), StringToStringCastRule, BinaryToStringCastRule (the bytes
// unchanged, no length applied), DateToStringCastRule, TimeToStringCastRule and
// TimestampToStringCastRule (DateTimeUtils' formats), StringToBinaryCastRule and
// BinaryToBinaryCastRule (BinaryStringUtils.toBinaryString).
#include <climits>

#include "fjord/common/calendar.h"
#include "fjord/common/float_format.h"
#include "fjord/format/evolution_cast_internal.h"

namespace fjord::evolution {

namespace {

int32_t TargetLength(const DataType& t) {
  return t.length() <= 0 ? INT32_MAX : t.length();  // STRING / BYTES: the largest length
}

// Bytes of the UTF-8 character starting with `lead` (BinaryString.numBytesForFirstByte).
size_t CharBytes(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// BinaryStringUtils.toCharacterString: cut to the target's length in characters; CHAR(n) pads
// with blanks up to n characters.
std::string ToCharacterString(std::string s, const DataType& to) {
  int64_t length = TargetLength(to);
  int64_t chars = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    if (chars == length) {
      s.resize(pos);
      return s;
    }
    pos += CharBytes(static_cast<unsigned char>(s[pos]));
    ++chars;
  }
  if (to.root() == TypeRoot::kChar && chars < length) {
    s.append(static_cast<size_t>(length - chars), ' ');
  }
  return s;
}

// DateTimeUtils' int2 / int4: the last digits of `i`, computed as Java computes them.
void Int2(std::string* out, int64_t i) {
  out->push_back(static_cast<char>('0' + (i / 10) % 10));
  out->push_back(static_cast<char>('0' + i % 10));
}
void Int4(std::string* out, int64_t i) {
  out->push_back(static_cast<char>('0' + (i / 1000) % 10));
  out->push_back(static_cast<char>('0' + (i / 100) % 10));
  Int2(out, i);
}

void Ymd(std::string* out, int64_t epoch_day) {
  CivilDate d = CivilFromDays(epoch_day);
  Int4(out, d.year);
  out->push_back('-');
  Int2(out, d.month);
  out->push_back('-');
  Int2(out, d.day);
}

// DateTimeUtils.formatTimestamp: "yyyy-MM-dd HH:mm:ss", then the nanoseconds of the second in 9
// digits without the trailing zeros beyond `precision` digits.
std::string FormatTimestamp(const JavaTimestamp& ts, int32_t precision) {
  int64_t day = FloorDiv(ts.millis, 86400000);
  int64_t ms = FloorMod(ts.millis, 86400000);
  std::string out;
  Ymd(&out, day);
  out.push_back(' ');
  Int2(&out, ms / 3600000);
  out.push_back(':');
  Int2(&out, ms / 60000 % 60);
  out.push_back(':');
  Int2(&out, ms / 1000 % 60);
  int64_t nanos = ms % 1000 * 1000000 + ts.nanos_of_milli;
  std::string fraction = std::to_string(nanos);
  fraction.insert(0, 9 - fraction.size(), '0');
  while (fraction.size() > static_cast<size_t>(precision) && fraction.back() == '0') {
    fraction.pop_back();
  }
  if (!fraction.empty()) out += "." + fraction;
  return out;
}

// DateTimeUtils.formatTimestampMillis: "HH:mm:ss", then up to `precision` digits of the
// milliseconds, stopping after the last non-zero one (".0" for none).
std::string FormatTime(int32_t time, int32_t precision) {
  int64_t t = time;
  while (t < 0) t += 86400000;
  std::string out;
  Int2(&out, t / 3600000);
  out.push_back(':');
  Int2(&out, t % 3600000 / 60000);
  out.push_back(':');
  Int2(&out, t % 60000 / 1000);
  if (precision > 0) {
    int64_t ms = t % 1000;
    out.push_back('.');
    while (precision > 0) {
      out.push_back(static_cast<char>('0' + ms / 100));
      ms = ms % 100 * 10;
      if (ms == 0) break;
      --precision;
    }
  }
  return out;
}

}  // namespace

Result<Value> ToText(const Value& v, const DataType& from, const DataType& to) {
  switch (from.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Value(ToCharacterString(std::get<std::string>(v), to));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return v;
    case TypeRoot::kBoolean:
      return Value(ToCharacterString(std::get<bool>(v) ? "true" : "false", to));
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      return Value(ToCharacterString(std::to_string(std::get<int64_t>(v)), to));
    case TypeRoot::kFloat:
      return Value(ToCharacterString(JavaFloatText(std::get<float>(v)), to));
    case TypeRoot::kDouble:
      return Value(ToCharacterString(JavaDoubleText(std::get<double>(v)), to));
    case TypeRoot::kDecimal:
      return Value(ToCharacterString(PlainText(std::get<Decimal>(v)), to));
    case TypeRoot::kDate: {
      std::string out;
      Ymd(&out, std::get<Days>(v).value);
      return Value(std::move(out));
    }
    case TypeRoot::kTime:
      return Value(FormatTime(std::get<MillisOfDay>(v).value, from.precision()));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return Value(FormatTimestamp(std::get<JavaTimestamp>(v), from.precision()));
    default:
      return Status::NotImplemented("no cast to ", to.ToString());
  }
}

Result<Value> ToBytes(const Value& v, const DataType& from, const DataType& to) {
  if (!from.IsString() && !from.IsBinary()) {
    return Status::NotImplemented("no cast to ", to.ToString());
  }
  // BinaryStringUtils.toBinaryString: BINARY(n) pads with zero bytes or cuts to n bytes;
  // VARBINARY(n) cuts to n.
  std::string bytes = std::get<std::string>(v);
  size_t length = static_cast<size_t>(TargetLength(to));
  if (bytes.size() > length || (to.root() == TypeRoot::kBinary && bytes.size() < length)) {
    bytes.resize(length, '\0');
  }
  return Value(std::move(bytes));
}

}  // namespace fjord::evolution
