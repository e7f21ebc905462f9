// `maxwell-json` (docs/cdc.md), as Java Paimon's MaxwellRecordParser: `type` insert, update or
// delete; `data` the row (for delete the deleted row); an update's `old` holds the changed
// columns' previous values, merged over `data` for the delete of the before image. Primary keys:
// `primary_key_columns`; database and table: `database` and `table`. All columns STRING.
#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

constexpr const char* kFormat = "maxwell-json";

class MaxwellJsonFormat : public CdcFormat {
 public:
  const char* name() const override { return kFormat; }

  Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) override {
    JsonRecordContext ctx(kFormat, message);
    FJORD_ASSIGN_OR_RAISE(std::optional<JsonNode> root, ctx.Parse());
    if (!root) return Status::OK();
    FJORD_ASSIGN_OR_RAISE(const JsonNode* type_node, ctx.Require(*root, "type"));
    const std::string type = JsonAsText(*type_node);
    FJORD_ASSIGN_OR_RAISE(const JsonNode* data, ctx.Require(*root, "data"));
    FJORD_RETURN_NOT_OK(ctx.RequireObject(data, "data").status());
    std::vector<CdcRecord> records;
    if (type == "insert") {
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *data, ChangeKind::kInsert, &records));
    } else if (type == "update") {
      FJORD_ASSIGN_OR_RAISE(const JsonNode* old, ctx.Require(*root, "old", "type", type));
      FJORD_RETURN_NOT_OK(
          Add(ctx, *root, MergeOldRecord(*data, *old), ChangeKind::kDelete, &records));
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *data, ChangeKind::kInsert, &records));
    } else if (type == "delete") {
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *data, ChangeKind::kDelete, &records));
    } else {
      return ctx.Error("unknown record operation '" + type + "'.");
    }
    for (CdcRecord& r : records) out->push_back(std::move(r));
    return Status::OK();
  }

 private:
  static Status Add(const JsonRecordContext& ctx, const JsonNode& root, const JsonNode& row,
                    ChangeKind kind, std::vector<CdcRecord>* records) {
    CdcRecord record;
    record.database = TextOrNull(root.Get("database"));
    record.table = TextOrNull(root.Get("table"));
    record.kind = kind;
    record.columns = ctx.StringColumns(row);
    FJORD_ASSIGN_OR_RAISE(record.primary_keys, ctx.PrimaryKeys(root, "primary_key_columns"));
    records->push_back(std::move(record));
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<CdcFormat> MakeMaxwellJsonFormat(const TypeMapping&) {
  return std::make_unique<MaxwellJsonFormat>();
}

}  // namespace fjord::cdc
