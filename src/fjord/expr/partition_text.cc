#include "fjord/expr/partition_text.h"

#include <charconv>
#include <cstdio>

#include "fjord/common/calendar.h"
#include "fjord/common/float_format.h"
#include "fjord/expr/predicate_internal.h"

namespace fjord {

namespace {

using predicate_internal::ConvertLiteral;
using predicate_internal::LiteralKind;
using predicate_internal::RawLiteral;

std::string DateText(int64_t days) {
  CivilDate d = CivilFromDays(days);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(d.year), d.month,
                d.day);
  return buf;
}

// ".123" / ".000456" / "": `nanos` (0..999999999) with trailing zeros dropped.
std::string FractionText(int64_t nanos) {
  if (nanos == 0) return "";
  char buf[16];
  std::snprintf(buf, sizeof(buf), ".%09lld", static_cast<long long>(nanos));
  std::string out = buf;
  while (out.back() == '0') out.pop_back();
  return out;
}

std::string TimeText(int64_t nanos_of_day) {
  int64_t seconds = nanos_of_day / 1000000000;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  return buf + FractionText(nanos_of_day % 1000000000);
}

std::string EscapeValue(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F || c == '%' || c == ',' || c == '=') {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

bool IsLegacyDayNumber(std::string_view text, int32_t* days) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *days);
  return ec == std::errc() && ptr == text.data() + text.size();
}

Result<Value> PartitionValue(const DataField& field, const std::string& text) {
  const DataType& type = *field.type;
  std::string what = "partition column '" + field.name + "' (" + type.ToString() + "): ";
  if (type.root() == TypeRoot::kDate) {
    int32_t days = 0;
    if (IsLegacyDayNumber(text, &days)) return Value(days);  // Java's legacy partition path form
    RawLiteral lit{LiteralKind::kString, text, "'" + text + "'"};
    Result<Value> v = ConvertLiteral(lit, field);
    if (!v.ok()) {
      return Status::Invalid(what, "'", text,
                             "' is not a date (yyyy-mm-dd, or the day number since 1970-01-01)");
    }
    return v;
  }
  if (type.IsNested()) return Status::Invalid(what, "cannot be a partition column");
  RawLiteral lit{LiteralKind::kString, text, "'" + text + "'"};
  Result<Value> v = ConvertLiteral(lit, field);
  if (v.ok()) return v;
  // The literal conversion speaks of filters: say partition instead.
  std::string message = v.status().message();
  size_t at = message.find("): ");
  if (at != std::string::npos) message = message.substr(at + 3);
  return Status::Invalid(what, message);
}

}  // namespace

Result<Predicate> PartitionSpecPredicate(const PartitionSpec& spec,
                                         const std::vector<DataField>& partition_fields,
                                         const std::string& default_name) {
  Predicate all;
  all.op = PredicateOp::kAnd;
  for (const auto& [key, text] : spec) {
    const DataField* field = nullptr;
    for (const DataField& f : partition_fields) {
      if (f.name == key) field = &f;
    }
    if (field == nullptr) {
      std::string keys;
      for (const DataField& f : partition_fields) keys += (keys.empty() ? "" : ", ") + f.name;
      return Status::Invalid("'", key, "' is not a partition column (partition columns: ",
                             keys.empty() ? "none" : keys, ")");
    }
    Predicate leaf;
    leaf.field = field->name;
    leaf.type = field->type->WithNullable(true);
    if (text == default_name) {
      leaf.op = PredicateOp::kIsNull;
    } else {
      leaf.op = PredicateOp::kEq;
      FJORD_ASSIGN_OR_RAISE(Value v, PartitionValue(*field, text));
      leaf.literals.push_back(std::move(v));
    }
    all.children.push_back(std::move(leaf));
  }
  if (all.children.size() == 1) return std::move(all.children[0]);
  return all;
}

std::string PartitionValueText(const Value& value, const DataType& type,
                               const std::string& default_name) {
  if (value.is_null()) return EscapeValue(default_name);
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return value.get<bool>() ? "true" : "false";
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      return std::to_string(value.AsInt64());
    case TypeRoot::kFloat:
      return ShortestFloatText(value.get<float>());
    case TypeRoot::kDouble:
      return ShortestFloatText(value.get<double>());
    case TypeRoot::kDecimal:
      return value.get<Decimal>().ToString();
    case TypeRoot::kDate:
      return DateText(value.AsInt64());
    case TypeRoot::kTime:
      return TimeText(value.AsInt64() * 1000000);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const Timestamp& ts = value.get<Timestamp>();
      int64_t days = FloorDiv(ts.millis, 86400000);
      int64_t nanos = FloorMod(ts.millis, 86400000) * 1000000 + ts.nanos_of_milli;
      return DateText(days) + "T" + TimeText(nanos);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return EscapeValue(value.get<std::string>());
    default:
      return "?";
  }
}

std::string PartitionText(const std::vector<DataField>& partition_fields,
                          const std::vector<Value>& values, const std::string& default_name) {
  std::string out;
  for (size_t i = 0; i < partition_fields.size() && i < values.size(); ++i) {
    if (!out.empty()) out += ",";
    out += partition_fields[i].name + "=" +
           PartitionValueText(values[i], *partition_fields[i].type, default_name);
  }
  return out;
}

}  // namespace fjord
