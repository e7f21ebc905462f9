// `ogg-json` (docs/cdc.md), as Java Paimon's OggRecordParser: `op_type` I (insert `after`), U
// (delete `before`, insert `after`; OGG's before image is complete, nothing is merged) or D
// (delete `before`); any other op, truncate T included, is invalid as in Java. Primary keys:
// `primary_keys`; `table` is SCHEMA.TABLE, split at its first dot into database and table
// (Identifier.fromString). All columns STRING.
#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/json_record.h"
#include "fjord/common/strings.h"

namespace fjord::cdc {

namespace {

constexpr const char* kFormat = "ogg-json";

class OggJsonFormat : public CdcFormat {
 public:
  const char* name() const override { return kFormat; }

  Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) override {
    JsonRecordContext ctx(kFormat, message);
    FJORD_ASSIGN_OR_RAISE(std::optional<JsonNode> root, ctx.Parse());
    if (!root) return Status::OK();
    FJORD_ASSIGN_OR_RAISE(const JsonNode* op_node, ctx.Require(*root, "op_type"));
    const std::string op = JsonAsText(*op_node);
    std::vector<CdcRecord> records;
    if (op == "U") {
      FJORD_ASSIGN_OR_RAISE(const JsonNode* before, Before(ctx, *root, op));
      FJORD_ASSIGN_OR_RAISE(const JsonNode* after, After(ctx, *root));
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *before, ChangeKind::kDelete, &records));
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *after, ChangeKind::kInsert, &records));
    } else if (op == "I") {
      FJORD_ASSIGN_OR_RAISE(const JsonNode* after, After(ctx, *root));
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *after, ChangeKind::kInsert, &records));
    } else if (op == "D") {
      FJORD_ASSIGN_OR_RAISE(const JsonNode* before, Before(ctx, *root, op));
      FJORD_RETURN_NOT_OK(Add(ctx, *root, *before, ChangeKind::kDelete, &records));
    } else {
      return ctx.Error("unknown record operation '" + op + "'.");
    }
    for (CdcRecord& r : records) out->push_back(std::move(r));
    return Status::OK();
  }

 private:
  static Result<const JsonNode*> After(const JsonRecordContext& ctx, const JsonNode& root) {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* after, ctx.Require(root, "after"));
    return ctx.RequireObject(after, "after");
  }
  static Result<const JsonNode*> Before(const JsonRecordContext& ctx, const JsonNode& root,
                                        const std::string& op) {
    FJORD_ASSIGN_OR_RAISE(const JsonNode* before, ctx.Require(root, "before", "op_type", op));
    return ctx.RequireObject(before, "before");
  }

  static Status Add(const JsonRecordContext& ctx, const JsonNode& root, const JsonNode& row,
                    ChangeKind kind, std::vector<CdcRecord>* records) {
    CdcRecord record;
    if (std::optional<std::string> full = TextOrNull(root.Get("table"))) {
      size_t dot = full->find('.');
      if (Trim(*full).empty() || dot == std::string::npos) {
        return ctx.Error("'table' is '" + *full + "', not SCHEMA.TABLE.");
      }
      record.database = full->substr(0, dot);
      record.table = full->substr(dot + 1);
    }
    record.kind = kind;
    record.columns = ctx.StringColumns(row);
    FJORD_ASSIGN_OR_RAISE(record.primary_keys, ctx.PrimaryKeys(root, "primary_keys"));
    records->push_back(std::move(record));
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<CdcFormat> MakeOggJsonFormat(const TypeMapping&) {
  return std::make_unique<OggJsonFormat>();
}

}  // namespace fjord::cdc
