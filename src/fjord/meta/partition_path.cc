#include "fjord/meta/partition_path.h"

#include <algorithm>

#include "fjord/common/float_format.h"
#include "fjord/common/strings.h"
#include "fjord/file_io.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/row_json.h"

namespace fjord {

namespace {

bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '}':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

// %XX (two hex digits) decoded, as partition directory names and PartitionText escape; a '%' not
// followed by two hex digits stays as it is.
std::string UnescapeSpecValue(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 &&
        HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string EscapePathName(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (NeedsEscape(c)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string LegacyPartitionString(const Value& value, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return value.get<bool>() ? "true" : "false";
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
    case TypeRoot::kBigInt:
      return std::to_string(value.AsInt64());
    case TypeRoot::kFloat:
      return JavaFloatText(value.get<float>());
    case TypeRoot::kDouble:
      return JavaDoubleText(value.get<double>());
    case TypeRoot::kDecimal:
      return value.get<Decimal>().ToString();
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return value.get<std::string>();
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      // java.time.LocalDateTime.toString(): seconds only when non-zero (or with a fraction), the
      // fraction in groups of 3 digits.
      const Timestamp& ts = value.get<Timestamp>();
      int64_t secs = ts.millis / 1000 - (ts.millis % 1000 < 0 ? 1 : 0);
      int64_t nanos = (ts.millis - secs * 1000) * 1000000 + ts.nanos_of_milli;
      std::string full = FormatTimestamp(secs, static_cast<int32_t>(nanos), 9);
      std::string out = full.substr(0, full.find('T') + 6);  // yyyy-MM-ddTHH:mm
      std::string ss = full.substr(full.find('T') + 7, 2);
      if (ss != "00" || nanos != 0) out += ":" + ss;
      if (nanos != 0) {
        std::string frac = full.substr(full.find('.') + 1);
        if (nanos % 1000000 == 0) {
          frac = frac.substr(0, 3);
        } else if (nanos % 1000 == 0) {
          frac = frac.substr(0, 6);
        }
        out += "." + frac;
      }
      return out;
    }
    default:
      return "?";
  }
}

std::string PartitionPath(const std::vector<DataField>& partition_fields,
                          const std::vector<Value>& values, const std::string& default_name) {
  std::string out;
  for (size_t i = 0; i < partition_fields.size(); ++i) {
    std::string text;
    if (i < values.size() && !values[i].is_null()) {
      text = LegacyPartitionString(values[i], *partition_fields[i].type);
    }
    bool blank = text.find_first_not_of(" \t\n\r\f\v") == std::string::npos;
    if (blank) text = default_name;
    out += EscapePathName(partition_fields[i].name) + "=" + EscapePathName(text) + "/";
  }
  return out;
}

Result<std::string> BucketPath(const std::string& root, const TableSchema& schema,
                               const CoreOptions& options, const std::string& stored_partition,
                               int32_t bucket) {
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> types;
  for (const DataField& f : partition_fields) types.push_back(f.type->WithNullable(true));
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(stored_partition, types));
  std::string dir = root;
  std::string ppath = PartitionPath(partition_fields, values, options.partition_default_name());
  if (!ppath.empty()) dir = JoinPath(dir, ppath);
  return JoinPath(dir, "bucket-" + std::to_string(bucket));
}

Result<PartitionSpec> ParsePartitionSpec(std::string_view text) {
  PartitionSpec spec;
  if (text.empty()) return spec;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status::Invalid("a partition spec is k=v[,k2=v2...], got '", text, "'");
    }
    std::string key(item.substr(0, eq));
    if (!spec.emplace(key, UnescapeSpecValue(item.substr(eq + 1))).second) {
      return Status::Invalid("partition spec '", text, "' gives '", key, "' twice");
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return spec;
}

}  // namespace fjord
