#include "fjord/cdc/postgres_types.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "fjord/common/calendar.h"
#include "fjord/common/local_time.h"

namespace fjord::cdc {

namespace {

struct ArrayOid {
  uint32_t array;
  uint32_t element;
};
// The array types Java's PostgresTypeUtils maps (others are refused as there).
constexpr ArrayOid kArrays[] = {
    {1000, pg_oid::kBool},    {1001, pg_oid::kBytea},       {1005, pg_oid::kInt2},
    {1007, pg_oid::kInt4},    {1009, pg_oid::kText},        {1014, pg_oid::kBpchar},
    {1015, pg_oid::kVarchar}, {1016, pg_oid::kInt8},        {1021, pg_oid::kFloat4},
    {1022, pg_oid::kFloat8},  {1115, pg_oid::kTimestamp},   {1182, pg_oid::kDate},
    {1183, pg_oid::kTime},    {1185, pg_oid::kTimestamptz}, {1231, pg_oid::kNumeric},
};

// Precision of time, timestamp and timestamptz: the modifier, or 6 when there is none (what the
// JDBC driver reports as the scale Java maps).
int32_t TimePrecision(int32_t typmod) { return typmod < 0 ? 6 : typmod; }

Status BadText(uint32_t oid, std::string_view text, const char* why) {
  const char* name = PostgresTypeName(oid);
  return Status::Invalid("PostgreSQL ", name ? name : "type " + std::to_string(oid), " value '",
                         std::string(text.substr(0, 64)), "': ", why);
}

bool Digits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// "YYYY-MM-DD HH:MM:SS[.ffffff]" at the start of `s`: micros since 1970-01-01 00:00 of that
// wall clock, and how many characters it took.
bool ParseDateTime(std::string_view s, int64_t* micros, size_t* used) {
  int64_t y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, &y) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, &mo) ||
      s[7] != '-' || !Digits(s, 8, 2, &d) || s[10] != ' ' || !Digits(s, 11, 2, &h) ||
      s[13] != ':' || !Digits(s, 14, 2, &mi) || s[16] != ':' || !Digits(s, 17, 2, &sec)) {
    return false;
  }
  size_t pos = 19;
  int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) frac = frac * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (; digits < 6; ++digits) frac *= 10;
  }
  int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  *micros = ((days * 24 + h) * 60 + mi) * 60 * 1000000 + sec * 1000000 + frac;
  *used = pos;
  return true;
}

// Java's DateTimeUtils.formatLocalDateTime(dt, digits) of a wall clock in micros since 1970.
std::string FormatDateTime(int64_t micros, int digits) {
  int64_t days = FloorDiv(micros, int64_t{86400} * 1000000);
  int64_t rest = micros - days * 86400 * 1000000;
  CivilDate date = CivilFromDays(days);
  int64_t secs = rest / 1000000, frac = rest % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u %02lld:%02lld:%02lld",
                static_cast<long long>(date.year), date.month, date.day,
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  std::string out = buf;
  if (digits > 0) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    out += std::string(buf).substr(0, 1 + digits);
  }
  return out;
}

std::string Base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i < bytes.size()) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= uint8_t(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      *out += buf;
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

// A one-dimensional array literal "{a,"b c",NULL}" as a JSON list of the element values.
Result<std::string> ArrayText(uint32_t oid, uint32_t element, std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    return BadText(oid, text, "not a one-dimensional array literal");
  }
  std::string out = "[";
  size_t pos = 1, end = text.size() - 1;
  bool first = true;
  while (pos < end) {
    std::string item;
    bool quoted = false;
    if (text[pos] == '"') {
      quoted = true;
      ++pos;
      while (pos < end && text[pos] != '"') {
        if (text[pos] == '\\' && pos + 1 < end) ++pos;
        item.push_back(text[pos++]);
      }
      if (pos >= end) return BadText(oid, text, "unterminated quoted element");
      ++pos;
    } else {
      if (text[pos] == '{') return BadText(oid, text, "multi-dimensional arrays are not supported");
      while (pos < end && text[pos] != ',') item.push_back(text[pos++]);
    }
    if (pos < end) {
      if (text[pos] != ',') return BadText(oid, text, "expected ',' between elements");
      ++pos;
    }
    if (!first) out.push_back(',');
    first = false;
    if (!quoted && item == "NULL") {
      out += "null";
    } else {
      FJORD_ASSIGN_OR_RAISE(std::string value, PostgresValueText(element, -1, item));
      AppendJsonString(value, &out);
    }
  }
  out.push_back(']');
  return out;
}

}  // namespace

uint32_t PostgresArrayElement(uint32_t oid) {
  for (const ArrayOid& a : kArrays) {
    if (a.array == oid) return a.element;
  }
  return 0;
}

const char* PostgresTypeName(uint32_t oid) {
  switch (oid) {
    case pg_oid::kBool:
      return "bool";
    case pg_oid::kBytea:
      return "bytea";
    case pg_oid::kInt8:
      return "int8";
    case pg_oid::kInt2:
      return "int2";
    case pg_oid::kInt4:
      return "int4";
    case pg_oid::kText:
      return "text";
    case pg_oid::kJson:
      return "json";
    case pg_oid::kFloat4:
      return "float4";
    case pg_oid::kFloat8:
      return "float8";
    case pg_oid::kBpchar:
      return "bpchar";
    case pg_oid::kVarchar:
      return "varchar";
    case pg_oid::kDate:
      return "date";
    case pg_oid::kTime:
      return "time";
    case pg_oid::kTimestamp:
      return "timestamp";
    case pg_oid::kTimestamptz:
      return "timestamptz";
    case pg_oid::kBit:
      return "bit";
    case pg_oid::kVarbit:
      return "varbit";
    case pg_oid::kNumeric:
      return "numeric";
    case pg_oid::kUuid:
      return "uuid";
    case pg_oid::kJsonb:
      return "jsonb";
    default:
      break;
  }
  static const char* kArrayNames[] = {
      "_bool",   "_bytea",  "_int2",      "_int4", "_text", "_bpchar",      "_varchar", "_int8",
      "_float4", "_float8", "_timestamp", "_date", "_time", "_timestamptz", "_numeric"};
  for (size_t i = 0; i < std::size(kArrays); ++i) {
    if (kArrays[i].array == oid) return kArrayNames[i];
  }
  return nullptr;
}

Result<DataTypePtr> PostgresToPaimonType(uint32_t oid, int32_t typmod, const TypeMapping& mapping) {
  if (mapping.Has(TypeMappingMode::kToString)) return DataType::String();
  if (uint32_t element = PostgresArrayElement(oid)) {
    // The modifier of an array column is its element's.
    FJORD_ASSIGN_OR_RAISE(DataTypePtr e, PostgresToPaimonType(element, typmod, mapping));
    return DataType::Array(e);
  }
  switch (oid) {
    case pg_oid::kBool:
      return DataType::Boolean();
    case pg_oid::kBytea:
      return DataType::Bytes();
    case pg_oid::kInt2:
      return DataType::SmallInt();
    case pg_oid::kInt4:
      return DataType::Int();
    case pg_oid::kInt8:
      return DataType::BigInt();
    case pg_oid::kFloat4:
      return DataType::Float();
    case pg_oid::kFloat8:
      return DataType::Double();
    case pg_oid::kNumeric: {
      if (typmod < 4) return DataType::Decimal(DataType::kMaxDecimalPrecision, 18);
      int32_t p = ((typmod - 4) >> 16) & 0xffff, s = (typmod - 4) & 0xffff;
      if (p > DataType::kMaxDecimalPrecision || s > p) {
        return Status::NotImplemented("PostgreSQL numeric(", p, ",", s,
                                      ") does not fit a Paimon DECIMAL (precision at most 38)");
      }
      return DataType::Decimal(p, s);
    }
    case pg_oid::kBpchar:
      // char without a modifier only comes from expressions; the column type char is char(1).
      return typmod < 4 ? DataType::String() : DataType::Char(typmod - 4);
    case pg_oid::kVarchar:
      return typmod < 4 ? DataType::String() : DataType::VarChar(typmod - 4);
    case pg_oid::kText:
    case pg_oid::kJson:
    case pg_oid::kJsonb:  // Java's PostgresTypeUtils lacks jsonb and uuid; its records (from
    case pg_oid::kUuid:   // Debezium) carry both as strings
      return DataType::String();
    case pg_oid::kTimestamp:
      return DataType::Timestamp(TimePrecision(typmod));
    case pg_oid::kTimestamptz:
      return DataType::TimestampLtz(TimePrecision(typmod));
    case pg_oid::kTime:
      return DataType::Time(TimePrecision(typmod));
    case pg_oid::kDate:
      return DataType::Date();
    case pg_oid::kBit:
    case pg_oid::kVarbit: {
      // varbit without a length: the JDBC driver reports Integer.MAX_VALUE bits.
      int64_t bits = typmod < 0 ? DataType::kMaxLength : typmod;
      if (bits <= 1) return DataType::Boolean();
      return DataType::Binary(
          static_cast<int32_t>(bits == DataType::kMaxLength ? bits / 8 : (bits + 7) / 8));
    }
    default:
      return Status::NotImplemented("PostgreSQL type ", oid,
                                    " is not supported (as in Java Paimon's PostgresTypeUtils)");
  }
}

Result<DataTypePtr> PostgresColumnType(uint32_t oid, int32_t typmod, bool not_null,
                                       const TypeMapping& mapping) {
  FJORD_ASSIGN_OR_RAISE(DataTypePtr type, PostgresToPaimonType(oid, typmod, mapping));
  if (!not_null || mapping.Has(TypeMappingMode::kToNullable)) return type;
  return type->WithNullable(false);
}

Result<std::string> PostgresZeroValueText(uint32_t oid, int32_t typmod) {
  // PostgreSQL's text of the zero value, turned into value text as any value is.
  std::string zero;
  if (PostgresArrayElement(oid) != 0) {
    zero = "{}";
  } else {
    switch (oid) {
      case pg_oid::kBool:
        zero = "f";
        break;
      case pg_oid::kBytea:
        zero = "\\x";
        break;
      case pg_oid::kInt2:
      case pg_oid::kInt4:
      case pg_oid::kInt8:
      case pg_oid::kFloat4:
      case pg_oid::kFloat8:
      case pg_oid::kNumeric:
        zero = "0";
        break;
      case pg_oid::kDate:
        zero = "1970-01-01";
        break;
      case pg_oid::kTime:
        zero = "00:00:00";
        break;
      case pg_oid::kTimestamp:
        zero = "1970-01-01 00:00:00";
        break;
      case pg_oid::kTimestamptz:
        zero = "1970-01-01 00:00:00+00";
        break;
      case pg_oid::kBit:
      case pg_oid::kVarbit:
        zero = std::string(static_cast<size_t>(std::max(typmod, 1)), '0');
        break;
      default:
        break;  // strings (text, varchar, char, json, uuid, enums, ...): empty
    }
  }
  return PostgresValueText(oid, typmod, zero);
}

Result<std::string> PostgresValueText(uint32_t oid, int32_t typmod, std::string_view text) {
  if (uint32_t element = PostgresArrayElement(oid)) return ArrayText(oid, element, text);
  switch (oid) {
    case pg_oid::kBool:
      if (text == "t") return std::string("true");
      if (text == "f") return std::string("false");
      return BadText(oid, text, "expected t or f");
    case pg_oid::kBytea: {
      // bytea_output = hex. Java's record parser hands BYTES over as the raw bytes (a String of
      // them), which castFromCdcValueString turns back into the same bytes.
      if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0) {
        return BadText(oid, text, "expected hex output (\\x...)");
      }
      std::string out;
      for (size_t i = 2; i < text.size(); i += 2) {
        auto nib = [](char c) {
          return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        };
        int hi = nib(text[i]), lo = nib(text[i + 1]);
        if (hi < 0 || lo < 0) return BadText(oid, text, "bad hex digit");
        out.push_back(static_cast<char>(hi * 16 + lo));
      }
      return out;
    }
    case pg_oid::kTimestamp: {
      // Java's records (Debezium Timestamp/MicroTimestamp) have 3 digits up to timestamp(3), 6
      // above.
      int64_t micros;
      size_t used;
      if (!ParseDateTime(text, &micros, &used) || used != text.size()) {
        return BadText(oid, text,
                       "expected YYYY-MM-DD HH:MM:SS[.ffffff] (infinity and BC dates "
                       "are not supported)");
      }
      return FormatDateTime(micros, TimePrecision(typmod) <= 3 ? 3 : 6);
    }
    case pg_oid::kTimestamptz: {
      // The session's TimeZone is UTC, so the text ends in "+00". Java's record parser turns
      // the instant into the wall clock of the server time zone (the JVM's by default) with 6
      // digits, which castFromCdcValueString reads back in the JVM's zone: the process's here.
      int64_t micros;
      size_t used;
      if (!ParseDateTime(text, &micros, &used) || text.substr(used) != "+00") {
        return BadText(oid, text, "expected YYYY-MM-DD HH:MM:SS[.ffffff]+00");
      }
      int64_t millis = FloorDiv(micros, 1000);
      int64_t local = EpochMillisToLocalMillis(millis) * 1000 + (micros - millis * 1000);
      return FormatDateTime(local, 6);
    }
    case pg_oid::kBit:
    case pg_oid::kVarbit: {
      for (char c : text) {
        if (c != '0' && c != '1') return BadText(oid, text, "expected 0s and 1s");
      }
      if (typmod >= 0 && typmod <= 1) return std::string(text == "1" ? "true" : "false");
      // BINARY: base64 of the bit string as a big-endian number in whole bytes.
      std::string bytes((text.size() + 7) / 8, '\0');
      for (size_t i = 0; i < text.size(); ++i) {
        size_t bit = text.size() - 1 - i;  // 0: the least significant
        if (text[i] == '1') bytes[bytes.size() - 1 - bit / 8] |= static_cast<char>(1 << (bit % 8));
      }
      return Base64(bytes);
    }
    default:
      return std::string(text);
  }
}

}  // namespace fjord::cdc
