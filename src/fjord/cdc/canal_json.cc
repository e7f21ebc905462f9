// `canal-json` (docs/cdc.md), as Java Paimon's CanalRecordParser: messages with `isDdl` true
// give nothing; `data` is an array of rows and `type` INSERT (or ROW) inserts each, DELETE
// deletes each, UPDATE deletes each row with the changed values of the matching `old` entry
// merged over it and then inserts it; any other type is invalid. With `mysqlType` the columns are
// the ones it names, in its order, typed by the MySQL type mapping (mysql_types.h), and enum and
// set values (sent as indexes) become their labels; without it every column is STRING. `sqlType`
// is not used, as in Java. Primary keys: `pkNames`; database and table: `database` and `table`.
#include <cctype>
#include <charconv>
#include <cstdint>

#include "fjord/cdc/geojson.h"
#include "fjord/cdc/json_record.h"
#include "fjord/cdc/mysql_types.h"
#include "fjord/common/strings.h"

namespace fjord::cdc {

namespace {

// Jackson's JsonNode.asBoolean(): true for true, "true" and non-zero integers.
bool AsBoolean(const JsonNode& node) {
  switch (node.kind) {
    case JsonNode::Kind::kBool:
      return node.text == "true";
    case JsonNode::Kind::kString:
      return Trim(node.text) == "true";
    case JsonNode::Kind::kInteger:
      return node.text != "0";
    default:
      return false;
  }
}

// The labels of enum('a','b') or set('a','b'): the text between the outer quotes split at
// quote-comma-quote (trailing empty labels dropped, as Java's String.split).
std::vector<std::string> Labels(const std::string& mysql_type, size_t prefix) {
  std::vector<std::string> out;
  if (mysql_type.size() < prefix + 2) return out;
  std::string body = mysql_type.substr(prefix, mysql_type.size() - prefix - 2);
  size_t start = 0;
  while (true) {
    size_t q = body.find('\'', start);
    size_t end = std::string::npos;
    size_t next = std::string::npos;
    while (q != std::string::npos) {
      size_t k = q + 1;
      while (k < body.size() && std::isspace(static_cast<unsigned char>(body[k]))) ++k;
      if (k < body.size() && body[k] == ',') {
        ++k;
        while (k < body.size() && std::isspace(static_cast<unsigned char>(body[k]))) ++k;
        if (k < body.size() && body[k] == '\'') {
          end = q;
          next = k + 1;
          break;
        }
      }
      q = body.find('\'', q + 1);
    }
    if (end == std::string::npos) {
      out.push_back(body.substr(start));
      break;
    }
    out.push_back(body.substr(start, end - start));
    start = next;
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

Result<int32_t> Index(const std::string& value) {
  int32_t v = 0;
  const char* b = value.data();
  const char* e = b + value.size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (b == e || ec != std::errc() || ptr != e) {
    return Status::Invalid("value '", value, "' is not an index");
  }
  return v;
}

// Java's CanalFieldParser: canal sends an enum as its 1-based index and a set as the bit mask of
// its labels, which become "label" and "[a,b]".
Result<std::string> EnumOrSetText(const std::string& value, const std::string& short_type,
                                  const std::string& mysql_type) {
  FJORD_ASSIGN_OR_RAISE(int32_t index, Index(value));
  if (short_type == "ENUM") {
    std::vector<std::string> labels = Labels(mysql_type, 6);
    if (index < 1 || index > static_cast<int32_t>(labels.size())) {
      return Status::Invalid("enum index ", index, " is not in ", mysql_type);
    }
    return labels[index - 1];
  }
  std::vector<std::string> labels = Labels(mysql_type, 5);
  std::string out = "[";
  bool first = true;
  uint32_t bits = static_cast<uint32_t>(index);
  for (size_t i = 0; bits != 0; ++i, bits >>= 1) {
    if ((bits & 1) == 0) continue;
    if (i >= labels.size()) return Status::Invalid("set value ", index, " is not in ", mysql_type);
    if (!first) out += ',';
    first = false;
    out += labels[i];
  }
  return out + "]";
}

// The columns of a row without `mysqlType`: all STRING, Java's text of each value, a JSON null
// a NULL value.
std::vector<CdcColumn> UntypedColumns(const JsonNode& row) {
  std::vector<CdcColumn> columns;
  for (const auto& [name, value] : row.members) {
    CdcColumn column;
    column.name = name;
    column.type = DataType::String();
    if (!value.is_null()) column.value = JavaObjectText(value);
    columns.push_back(std::move(column));
  }
  return columns;
}

// The columns of `row`: those `mysqlType` names, typed, when the message has it; else the
// row's, all STRING.
// Java's String.getBytes(ISO_8859_1) of UTF-8 text: a character above U+00FF becomes '?'.
std::string JavaLatin1Bytes(const std::string& text) {
  std::string bytes;
  for (size_t i = 0; i < text.size();) {
    uint32_t c = static_cast<uint8_t>(text[i]);
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (len > 1) {
      c &= 0x3F >> (len - 1);
      for (size_t k = 1; k < len && i + k < text.size(); ++k) {
        c = (c << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3F);
      }
    }
    bytes.push_back(c <= 0xFF ? static_cast<char>(c) : '?');
    i += len;
  }
  return bytes;
}

Result<std::vector<CdcColumn>> Columns(const JsonRecordContext& ctx, const JsonNode& root,
                                       const JsonNode& row) {
  const JsonNode* mysql_types = root.Get("mysqlType");
  if (mysql_types == nullptr || mysql_types->is_null()) return UntypedColumns(row);
  if (!mysql_types->is_object()) return ctx.Error("'mysqlType' is not a JSON object.");
  std::vector<CdcColumn> columns;
  for (const auto& [name, type_node] : mysql_types->members) {
    if (type_node.is_null() || type_node.is_object() || type_node.is_array()) {
      return ctx.Error("'mysqlType' of column '" + name + "' is not a type name.");
    }
    const std::string mysql_type = JsonAsText(type_node);
    auto info = ParseMySqlType(mysql_type);
    if (!info.ok()) return ctx.Error("column '" + name + "': " + info.status().message());
    auto type = MySqlToDataType(*info, ctx.mapping());
    if (!type.ok()) return ctx.Error("column '" + name + "': " + type.status().message());
    CdcColumn column;
    column.name = name;
    column.type = *type;
    const JsonNode* value = row.Get(name);
    if (value != nullptr && !value->is_null()) {
      std::string text = JavaObjectText(*value);
      if (info->short_type == "ENUM" || info->short_type == "SET") {
        auto label = EnumOrSetText(text, info->short_type, mysql_type);
        if (!label.ok()) return ctx.Error("column '" + name + "': " + label.status().message());
        text = std::move(*label);
      } else if (IsMySqlGeoType(info->short_type)) {
        // Java: MySQL's bytes to WKB, WKB to GeoJSON text.
        std::string bytes = JavaLatin1Bytes(text);
        auto wkb = MySqlGeometryToWkb(bytes);
        auto geojson = wkb.ok() ? WkbToGeoJson(*wkb) : Result<std::string>(wkb.status());
        if (!geojson.ok()) {
          return ctx.Error(
              "column '" + name +
              "': the MySQL geometry value is not one Java reads: " + geojson.status().message());
        }
        text = std::move(*geojson);
      }
      column.value = std::move(text);
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

Status DecodeCanal(const JsonRecordContext& ctx, const JsonNode& root,
                   std::vector<CdcRecord>* records) {
  if (const JsonNode* ddl = root.Get("isDdl"); ddl && AsBoolean(*ddl)) return Status::OK();
  const JsonNode* data = root.Get("data");
  if (data == nullptr || data->is_null()) return ctx.Error("missing 'data' field.");
  if (!data->is_array()) return ctx.Error("'data' is not a JSON array.");
  FJORD_ASSIGN_OR_RAISE(const std::string type, ctx.RequireText(root, "type"));
  auto add = [&](const JsonNode& row, ChangeKind kind) -> Status {
    FJORD_ASSIGN_OR_RAISE(std::vector<CdcColumn> columns, Columns(ctx, root, row));
    return ctx.Add(root, MemberTableName(root), kind, std::move(columns), records);
  };
  for (size_t i = 0; i < data->items.size(); ++i) {
    const JsonNode& row = data->items[i];
    FJORD_RETURN_NOT_OK(ctx.RequireObject(&row, "data").status());
    if (type == "UPDATE") {
      const JsonNode* old = root.Get("old");
      if (old == nullptr || old->is_null() || !old->is_array()) {
        return ctx.Error("missing 'old' field when 'type' is 'UPDATE'.");
      }
      if (i >= old->items.size()) return ctx.Error("'old' has fewer rows than 'data'.");
      FJORD_RETURN_NOT_OK(AddMergedUpdate(row, old->items[i], add));
    } else if (type == "INSERT" || type == "ROW") {
      FJORD_RETURN_NOT_OK(add(row, ChangeKind::kInsert));
    } else if (type == "DELETE") {
      FJORD_RETURN_NOT_OK(add(row, ChangeKind::kDelete));
    } else {
      return ctx.UnknownOperation(type);
    }
  }
  return Status::OK();
}

}  // namespace

std::unique_ptr<CdcFormat> MakeCanalJsonFormat(const TypeMapping& mapping) {
  return MakeJsonCdcFormat({"canal-json", "pkNames", mapping, DecodeCanal});
}

}  // namespace fjord::cdc
