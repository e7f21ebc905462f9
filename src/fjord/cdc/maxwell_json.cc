// `maxwell-json` (docs/cdc.md), as Java Paimon's MaxwellRecordParser: `type` insert, update or
// delete; `data` the row (for delete the deleted row); an update's `old` holds the changed
// columns' previous values, merged over `data` for the delete of the before image. Primary keys:
// `primary_key_columns`; database and table: `database` and `table`. All columns STRING.
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

class MaxwellJsonFormat : public JsonCdcFormat {
 public:
  MaxwellJsonFormat() : JsonCdcFormat("maxwell-json", "primary_key_columns") {}

 protected:
  Status DecodeRoot(const JsonRecordContext& ctx, const JsonNode& root,
                    std::vector<CdcRecord>* records) const override {
    FJORD_ASSIGN_OR_RAISE(const std::string type, ctx.RequireText(root, "type"));
    FJORD_ASSIGN_OR_RAISE(const JsonNode* data, ctx.Require(root, "data"));
    FJORD_RETURN_NOT_OK(ctx.RequireObject(data, "data").status());
    auto add = [&](const JsonNode& row, ChangeKind kind) {
      return Add(ctx, root, MemberTableName(root), kind, ctx.StringColumns(row), records);
    };
    if (type == "insert") return add(*data, ChangeKind::kInsert);
    if (type == "delete") return add(*data, ChangeKind::kDelete);
    if (type != "update") return ctx.UnknownOperation(type);
    FJORD_ASSIGN_OR_RAISE(const JsonNode* old, ctx.Require(root, "old", "type", type));
    FJORD_RETURN_NOT_OK(add(MergeOldRecord(*data, *old), ChangeKind::kDelete));
    return add(*data, ChangeKind::kInsert);
  }
};

}  // namespace

std::unique_ptr<CdcFormat> MakeMaxwellJsonFormat(const TypeMapping&) {
  return std::make_unique<MaxwellJsonFormat>();
}

}  // namespace fjord::cdc
