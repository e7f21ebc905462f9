#include "fjord/format/row_json.h"

#include <arrow/api.h>

#include <cmath>
#include <cstdio>

#include "fjord/common/calendar.h"
#include "fjord/common/float_format.h"
#include "fjord/common/json.h"
#include "fjord/format/arrow_types.h"

namespace fjord {

namespace {

template <typename T>
void AppendFloat(T v, std::string* out) {
  if (std::isnan(v) || std::isinf(v)) {
    out->append("\"").append(ShortestFloatText(v)).append("\"");
  } else {
    // Large values in scientific notation, where the plain form would spell out the binary
    // value's exact integer digits instead of the shortest ones (FLOAT 2^31 is 2.1474836e+09,
    // as Java prints it, not 2147483648): from 1e7 for FLOAT (2^24 and up have gaps), 1e16 for
    // DOUBLE.
    out->append(ShortestFloatDigits(v, sizeof(T) == sizeof(float) ? 1e7 : 1e16));
  }
}

std::string DecimalText(const arrow::Decimal128& value, int32_t scale) {
  std::string digits = value.ToIntegerString();
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (scale > 0) {
    if (static_cast<int32_t>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

}  // namespace

std::string FormatDate(int32_t days) {
  CivilDate date = CivilFromDays(days);
  int64_t y = date.year;
  unsigned m = date.month, d = date.day;
  char buf[32];
  if (y >= 0 && y <= 9999) {
    std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  } else {
    std::snprintf(buf, sizeof(buf), "%+05lld-%02u-%02u", static_cast<long long>(y), m, d);
  }
  return buf;
}

std::string FormatTimestamp(int64_t epoch_seconds, int32_t nanos_of_second, int32_t precision) {
  int64_t days = FloorDiv(epoch_seconds, 86400);
  int64_t secs = epoch_seconds - days * 86400;
  std::string out = FormatDate(static_cast<int32_t>(days));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "T%02d:%02d:%02d", static_cast<int>(secs / 3600),
                static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60));
  out += buf;
  if (precision > 0) {
    std::snprintf(buf, sizeof(buf), "%09d", nanos_of_second);
    out += '.';
    out.append(buf, static_cast<size_t>(precision));
  }
  return out;
}

std::string Base64Encode(std::string_view in) {
  static const char* kTable = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += kTable[(n >> 6) & 63];
    out += kTable[n & 63];
  }
  if (i < in.size()) {
    uint32_t n = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kTable[(n >> 18) & 63];
    out += kTable[(n >> 12) & 63];
    out += i + 1 < in.size() ? kTable[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Status AppendValueJson(const arrow::Array& array, int64_t i, const DataType& type,
                       std::string* out) {
  if (array.IsNull(i)) {
    out->append("null");
    return Status::OK();
  }
  switch (type.root()) {
    case TypeRoot::kBoolean:
      out->append(static_cast<const arrow::BooleanArray&>(array).Value(i) ? "true" : "false");
      return Status::OK();
    case TypeRoot::kTinyInt:
      out->append(std::to_string(static_cast<const arrow::Int8Array&>(array).Value(i)));
      return Status::OK();
    case TypeRoot::kSmallInt:
      out->append(std::to_string(static_cast<const arrow::Int16Array&>(array).Value(i)));
      return Status::OK();
    case TypeRoot::kInt:
      out->append(std::to_string(static_cast<const arrow::Int32Array&>(array).Value(i)));
      return Status::OK();
    case TypeRoot::kBigInt:
      out->append(std::to_string(static_cast<const arrow::Int64Array&>(array).Value(i)));
      return Status::OK();
    case TypeRoot::kFloat:
      AppendFloat(static_cast<const arrow::FloatArray&>(array).Value(i), out);
      return Status::OK();
    case TypeRoot::kDouble:
      AppendFloat(static_cast<const arrow::DoubleArray&>(array).Value(i), out);
      return Status::OK();
    case TypeRoot::kDecimal: {
      arrow::Decimal128 v(static_cast<const arrow::Decimal128Array&>(array).GetValue(i));
      AppendJsonString(out, DecimalText(v, type.scale()));
      return Status::OK();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      AppendJsonString(out, static_cast<const arrow::StringArray&>(array).GetView(i));
      return Status::OK();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      AppendJsonString(out, Base64Encode(static_cast<const arrow::BinaryArray&>(array).GetView(i)));
      return Status::OK();
    case TypeRoot::kDate:
      AppendJsonString(out, FormatDate(static_cast<const arrow::Date32Array&>(array).Value(i)));
      return Status::OK();
    case TypeRoot::kTime: {
      int32_t ms = static_cast<const arrow::Time32Array&>(array).Value(i);
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%02d:%02d:%02d", ms / 3600000, ms / 60000 % 60,
                    ms / 1000 % 60);
      std::string text = buf;
      if (type.precision() > 0) {
        // Zero-padded on the left to 3 characters, also a negative remainder (a TIME before
        // midnight, which only a TIMESTAMP cast to TIME makes before 1970): "0-1", as the Java
        // oracle prints it.
        std::string millis = std::to_string(ms % 1000);
        text += "." + std::string(millis.size() < 3 ? 3 - millis.size() : 0, '0') + millis;
      }
      AppendJsonString(out, text);
      return Status::OK();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const auto& ts = static_cast<const arrow::TimestampArray&>(array);
      auto unit = static_cast<const arrow::TimestampType&>(*ts.type()).unit();
      int64_t per_second = unit == arrow::TimeUnit::SECOND  ? 1
                           : unit == arrow::TimeUnit::MILLI ? 1000
                           : unit == arrow::TimeUnit::MICRO ? 1000000
                                                            : 1000000000;
      int64_t v = ts.Value(i);
      int64_t secs = FloorDiv(v, per_second);
      int64_t frac = v - secs * per_second;
      auto nanos = static_cast<int32_t>(frac * (1000000000 / per_second));
      std::string text = FormatTimestamp(secs, nanos, type.precision());
      if (type.root() == TypeRoot::kTimestampLtz) text += 'Z';
      AppendJsonString(out, text);
      return Status::OK();
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      auto values = list.values();
      out->push_back('[');
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        if (j > list.value_offset(i)) out->push_back(',');
        FJORD_RETURN_NOT_OK(AppendValueJson(*values, j, *type.element(), out));
      }
      out->push_back(']');
      return Status::OK();
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      // A MapArray, or the list form of a MAP with NULL keys (arrow_types.h).
      MapEntries map = ViewMap(array);
      const DataType& key_type = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      DataTypePtr count_type = DataType::Int(false);
      const DataType& value_type = type.root() == TypeRoot::kMap ? *type.value() : *count_type;
      out->push_back('[');
      for (int64_t j = map.list->value_offset(i); j < map.list->value_offset(i + 1); ++j) {
        if (j > map.list->value_offset(i)) out->push_back(',');
        out->push_back('[');
        FJORD_RETURN_NOT_OK(AppendValueJson(*map.keys, j, key_type, out));
        out->push_back(',');
        FJORD_RETURN_NOT_OK(AppendValueJson(*map.items, j, value_type, out));
        out->push_back(']');
      }
      out->push_back(']');
      return Status::OK();
    }
    case TypeRoot::kRow: {
      const auto& st = static_cast<const arrow::StructArray&>(array);
      out->push_back('{');
      for (size_t f = 0; f < type.fields().size(); ++f) {
        if (f > 0) out->push_back(',');
        AppendJsonString(out, type.fields()[f].name);
        out->push_back(':');
        FJORD_RETURN_NOT_OK(
            AppendValueJson(*st.field(static_cast<int>(f)), i, *type.fields()[f].type, out));
      }
      out->push_back('}');
      return Status::OK();
    }
  }
  return Status::NotImplemented("no JSON form for ", type.ToString());
}

Status AppendRowJson(const std::vector<std::shared_ptr<arrow::Array>>& columns,
                     const std::vector<DataField>& fields, int64_t row, std::string* out) {
  out->push_back('{');
  for (size_t c = 0; c < fields.size(); ++c) {
    if (c > 0) out->push_back(',');
    AppendJsonString(out, fields[c].name);
    out->push_back(':');
    FJORD_RETURN_NOT_OK(AppendValueJson(*columns[c], row, *fields[c].type, out));
  }
  out->push_back('}');
  return Status::OK();
}

}  // namespace fjord
