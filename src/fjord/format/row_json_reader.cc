#include "fjord/format/row_json_reader.h"

#include <arrow/api.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "fjord/common/arrow_status.h"
#include "fjord/common/calendar.h"
#include "fjord/common/json.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"

namespace fjord {

namespace {

bool ParseNumber(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

Result<int32_t> ParseDate(std::string_view s) {
  int64_t y, m, d;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !ParseNumber(s.substr(0, 4), &y) ||
      !ParseNumber(s.substr(5, 2), &m) || !ParseNumber(s.substr(8, 2), &d) || m < 1 || m > 12 ||
      d < 1 || d > 31) {
    return Status::Invalid("'", s, "' is not a date YYYY-MM-DD");
  }
  return static_cast<int32_t>(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
}

// "HH:MM:SS[.fffffffff]" to nanoseconds of the day.
Result<int64_t> ParseTimeOfDay(std::string_view s) {
  int64_t h, mi, se;
  if (s.size() < 8 || s[2] != ':' || s[5] != ':' || !ParseNumber(s.substr(0, 2), &h) ||
      !ParseNumber(s.substr(3, 2), &mi) || !ParseNumber(s.substr(6, 2), &se) || h > 23 || mi > 59 ||
      se > 59) {
    return Status::Invalid("'", s, "' is not a time HH:MM:SS[.f]");
  }
  int64_t nanos = 0;
  if (s.size() > 8) {
    std::string_view frac = s.substr(9);
    if (s[8] != '.' || frac.empty() || frac.size() > 9) {
      return Status::Invalid("'", s, "' has a bad fraction of a second");
    }
    int64_t f;
    if (!ParseNumber(frac, &f)) return Status::Invalid("'", s, "' has a bad fraction of a second");
    for (size_t i = frac.size(); i < 9; ++i) f *= 10;
    nanos = f;
  }
  return ((h * 60 + mi) * 60 + se) * 1000000000 + nanos;
}

Result<std::string> Base64Decode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    int v = value(c);
    if (v < 0) return Status::Invalid("not base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

Result<Value> FromJson(const Json& j, const DataType& type) {
  if (j.is_null()) return Value();
  auto bad = [&](const char* what) {
    return Status::Invalid("expected ", what, " for ", type.ToString(), ", got ", j.dump());
  };
  auto integer = [&](int64_t lo, int64_t hi) -> Result<int64_t> {
    if (!j.is_number_integer()) return bad("an integer");
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(hi))
      return bad("a value in range");
    int64_t v = j.get<int64_t>();
    if (v < lo || v > hi) return bad("a value in range");
    return v;
  };
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (!j.is_boolean()) return bad("true or false");
      return Value(j.get<bool>());
    case TypeRoot::kTinyInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer(INT8_MIN, INT8_MAX));
      return Value(static_cast<int8_t>(v));
    }
    case TypeRoot::kSmallInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer(INT16_MIN, INT16_MAX));
      return Value(static_cast<int16_t>(v));
    }
    case TypeRoot::kInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer(INT32_MIN, INT32_MAX));
      return Value(static_cast<int32_t>(v));
    }
    case TypeRoot::kBigInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integer(INT64_MIN, INT64_MAX));
      return Value(v);
    }
    case TypeRoot::kFloat:
    case TypeRoot::kDouble: {
      double d;
      if (j.is_number()) {
        d = j.get<double>();
      } else if (j.is_string() && j.get<std::string>() == "NaN") {
        d = std::numeric_limits<double>::quiet_NaN();
      } else if (j.is_string() && j.get<std::string>() == "Infinity") {
        d = std::numeric_limits<double>::infinity();
      } else if (j.is_string() && j.get<std::string>() == "-Infinity") {
        d = -std::numeric_limits<double>::infinity();
      } else {
        return bad("a number");
      }
      if (type.root() == TypeRoot::kFloat) return Value(static_cast<float>(d));
      return Value(d);
    }
    case TypeRoot::kDecimal: {
      std::string text = j.is_string() ? j.get<std::string>() : j.is_number() ? j.dump() : "";
      if (text.empty()) return bad("a decimal string");
      Result<Decimal> d = Decimal::FromString(text, type.precision(), type.scale());
      if (!d.ok()) return d.status();
      return Value(*d);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      if (!j.is_string()) return bad("a string");
      return Value(j.get<std::string>());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant: {
      if (!j.is_string()) return bad("a base64 string");
      FJORD_ASSIGN_OR_RAISE(std::string bytes, Base64Decode(j.get<std::string>()));
      return Value(std::move(bytes));
    }
    case TypeRoot::kDate: {
      if (!j.is_string()) return bad("a date string");
      FJORD_ASSIGN_OR_RAISE(int32_t days, ParseDate(j.get<std::string>()));
      return Value(days);
    }
    case TypeRoot::kTime: {
      if (!j.is_string()) return bad("a time string");
      FJORD_ASSIGN_OR_RAISE(int64_t nanos, ParseTimeOfDay(j.get<std::string>()));
      return Value(static_cast<int32_t>(nanos / 1000000));
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (!j.is_string()) return bad("a timestamp string");
      std::string s = j.get<std::string>();
      if (type.root() == TypeRoot::kTimestampLtz) {
        if (s.empty() || s.back() != 'Z') return bad("a UTC timestamp ending in Z");
        s.pop_back();
      }
      if (s.size() < 19 || (s[10] != 'T' && s[10] != ' ')) return bad("YYYY-MM-DDTHH:MM:SS[.f]");
      FJORD_ASSIGN_OR_RAISE(int32_t days, ParseDate(std::string_view(s).substr(0, 10)));
      FJORD_ASSIGN_OR_RAISE(int64_t nanos, ParseTimeOfDay(std::string_view(s).substr(11)));
      int64_t millis = int64_t{days} * 86400000 + nanos / 1000000;
      return Value(Timestamp{millis, static_cast<int32_t>(nanos % 1000000)});
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector: {
      if (!j.is_array()) return bad("a list");
      ValueList items;
      for (const Json& e : j) {
        FJORD_ASSIGN_OR_RAISE(Value v, FromJson(e, *type.element()));
        items.push_back(std::move(v));
      }
      if (type.root() == TypeRoot::kMultiset) {
        ValueMap counts;
        for (Value& v : items) {
          bool found = false;
          for (auto& [k, c] : counts) {
            if (k == v) {
              c = Value(c.get<int32_t>() + 1);
              found = true;
            }
          }
          if (!found) counts.emplace_back(std::move(v), Value(int32_t{1}));
        }
        return Value::Map(std::move(counts));
      }
      return Value::List(std::move(items));
    }
    case TypeRoot::kMap: {
      if (!j.is_array()) return bad("a list of [key, value] pairs");
      ValueMap entries;
      for (const Json& e : j) {
        if (!e.is_array() || e.size() != 2) return bad("a list of [key, value] pairs");
        FJORD_ASSIGN_OR_RAISE(Value k, FromJson(e[0], *type.key()));
        FJORD_ASSIGN_OR_RAISE(Value v, FromJson(e[1], *type.value()));
        entries.emplace_back(std::move(k), std::move(v));
      }
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kRow: {
      if (!j.is_object()) return bad("an object");
      ValueList fields;
      for (const DataField& f : type.fields()) {
        auto it = j.find(f.name);
        if (it == j.end()) {
          fields.emplace_back();
          continue;
        }
        Result<Value> v = FromJson(*it, *f.type);
        if (!v.ok()) return v.status().WithContext("field '", f.name, "'");
        fields.push_back(std::move(*v));
      }
      return Value::List(std::move(fields));
    }
  }
  return Status::NotImplemented("JSON input for ", type.ToString());
}

}  // namespace

Result<Value> ValueFromCanonicalJson(const void* json_value, const DataType& type) {
  return FromJson(*static_cast<const Json*>(json_value), type);
}

Result<JsonLinesBatch> ParseJsonLines(std::string_view text, const std::vector<DataField>& fields,
                                      std::string_view source) {
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  arrow::FieldVector arrow_fields;
  for (const DataField& f : fields) {
    FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
    arrow_fields.push_back(af);
    std::unique_ptr<arrow::ArrayBuilder> b;
    FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), af->type(), &b));
    builders.push_back(std::move(b));
  }
  JsonLinesBatch out;
  int64_t line_no = 0, rows = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string where = std::string(source) + " line " + std::to_string(line_no);
    FJORD_ASSIGN_OR_RAISE(Json j, ParseJson(line, where));
    if (!j.is_object()) return Status::Invalid(where, ": expected a JSON object");
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool known = it.key() == "_row_kind";
      for (const DataField& f : fields) known |= f.name == it.key();
      if (!known) return Status::Invalid(where, ": unknown column '", it.key(), "'");
    }
    int8_t kind = 0;
    if (auto k = j.find("_row_kind"); k != j.end()) {
      std::string ks = k->is_string() ? k->get<std::string>() : "";
      if (ks == "+I")
        kind = 0;
      else if (ks == "-U")
        kind = 1;
      else if (ks == "+U")
        kind = 2;
      else if (ks == "-D")
        kind = 3;
      else
        return Status::Invalid(where, ": _row_kind must be +I, -U, +U or -D, got ", k->dump());
    }
    std::vector<Value> values;
    for (const DataField& f : fields) {
      auto it = j.find(f.name);
      Value v;
      if (it != j.end()) {
        Result<Value> parsed = FromJson(*it, *f.type);
        if (!parsed.ok()) return parsed.status().WithContext(where, ", column '", f.name, "'");
        v = std::move(*parsed);
      }
      values.push_back(std::move(v));
    }
    for (size_t c = 0; c < fields.size(); ++c) {
      FJORD_RETURN_NOT_OK(AppendValueToBuilder(builders[c].get(), values[c], *fields[c].type));
    }
    out.row_kinds.push_back(kind);
    ++rows;
  }
  arrow::ArrayVector columns;
  for (auto& b : builders) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto a, b->Finish());
    columns.push_back(a);
  }
  out.rows = arrow::Table::Make(arrow::schema(arrow_fields), columns, rows);
  return out;
}

}  // namespace fjord
