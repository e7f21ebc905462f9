// `ogg-json` (docs/cdc.md), as Java Paimon's OggRecordParser: `op_type` I (insert `after`), U
// (delete `before`, insert `after`; OGG's before image is complete, nothing is merged) or D
// (delete `before`); any other op, truncate T included, is invalid as in Java. Primary keys:
// `primary_keys`; `table` is SCHEMA.TABLE, split at its first dot into database and table
// (Identifier.fromString). All columns STRING.
#include "fjord/cdc/json_record.h"
#include "fjord/common/strings.h"

namespace fjord::cdc {

namespace {

// `table` as SCHEMA.TABLE, split at its first dot.
Result<JsonTableName> SchemaTableName(const JsonRecordContext& ctx, const JsonNode& root) {
  JsonTableName name;
  if (std::optional<std::string> full = TextOrNull(root.Get("table"))) {
    size_t dot = full->find('.');
    if (Trim(*full).empty() || dot == std::string::npos) {
      return ctx.Error("'table' is '" + *full + "', not SCHEMA.TABLE.");
    }
    name.database = full->substr(0, dot);
    name.table = full->substr(dot + 1);
  }
  return name;
}

Status DecodeOgg(const JsonRecordContext& ctx, const JsonNode& root,
                 std::vector<CdcRecord>* records) {
  FJORD_ASSIGN_OR_RAISE(const std::string op, ctx.RequireText(root, "op_type"));
  auto add = [&](const JsonNode& row, ChangeKind kind) -> Status {
    FJORD_ASSIGN_OR_RAISE(JsonTableName name, SchemaTableName(ctx, root));
    return ctx.Add(root, name, kind, ctx.StringColumns(row), records);
  };
  if (op == "U") {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* before, ctx.RequireRow(root, "before", "op_type", op));
    FJORD_ASSIGN_OR_RAISE(const JsonNode* after, ctx.RequireRow(root, "after"));
    FJORD_RETURN_NOT_OK(add(*before, ChangeKind::kDelete));
    return add(*after, ChangeKind::kInsert);
  }
  if (op == "I") {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* after, ctx.RequireRow(root, "after"));
    return add(*after, ChangeKind::kInsert);
  }
  if (op == "D") {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* before, ctx.RequireRow(root, "before", "op_type", op));
    return add(*before, ChangeKind::kDelete);
  }
  return ctx.UnknownOperation(op);
}

}  // namespace

std::unique_ptr<CdcFormat> MakeOggJsonFormat(const TypeMapping& mapping) {
  return MakeJsonCdcFormat({"ogg-json", "primary_keys", mapping, DecodeOgg});
}

}  // namespace fjord::cdc
