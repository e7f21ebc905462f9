// `maxwell-json` (docs/cdc.md), as Java Paimon's MaxwellRecordParser: `type` insert, update or
// delete; `data` the row (for delete the deleted row); an update's `old` holds the changed
// columns' previous values, merged over `data` for the delete of the before image. Primary keys:
// `primary_key_columns`; database and table: `database` and `table`. All columns STRING.
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

Status DecodeMaxwell(const JsonRecordContext& ctx, const JsonNode& root,
                     std::vector<CdcRecord>* records) {
  FJORD_ASSIGN_OR_RAISE(const std::string type, ctx.RequireText(root, "type"));
  FJORD_ASSIGN_OR_RAISE(const JsonNode* data, ctx.Require(root, "data"));
  FJORD_RETURN_NOT_OK(ctx.RequireObject(data, "data").status());
  auto add = [&](const JsonNode& row, ChangeKind kind) {
    return ctx.Add(root, MemberTableName(root), kind, ctx.StringColumns(row), records);
  };
  if (type == "insert") return add(*data, ChangeKind::kInsert);
  if (type == "delete") return add(*data, ChangeKind::kDelete);
  if (type != "update") return ctx.UnknownOperation(type);
  FJORD_ASSIGN_OR_RAISE(const JsonNode* old, ctx.Require(root, "old", "type", type));
  return AddMergedUpdate(*data, *old, add);
}

}  // namespace

std::unique_ptr<CdcFormat> MakeMaxwellJsonFormat(const TypeMapping& mapping) {
  return MakeJsonCdcFormat({"maxwell-json", "primary_key_columns", mapping, DecodeMaxwell});
}

}  // namespace fjord::cdc
