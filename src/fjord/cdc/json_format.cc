// `json` (docs/cdc.md), as Java Paimon's JsonRecordParser: each message is one row, inserted
// (+I), its members the columns, all STRING. No primary keys; like every Java JSON parser it
// takes the database and table from the message's own `database` and `table` members when it has
// them (which stay columns too).
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

class JsonFormat : public JsonCdcFormat {
 public:
  JsonFormat() : JsonCdcFormat("json", /*keys_field=*/nullptr) {}

 protected:
  Status DecodeRoot(const JsonRecordContext& ctx, const JsonNode& root,
                    std::vector<CdcRecord>* records) const override {
    if (!root.is_object()) return ctx.Error("the message is not a JSON object.");
    return Add(ctx, root, MemberTableName(root), ChangeKind::kInsert, ctx.StringColumns(root),
               records);
  }
};

}  // namespace

std::unique_ptr<CdcFormat> MakeJsonFormat(const TypeMapping&) {
  return std::make_unique<JsonFormat>();
}

}  // namespace fjord::cdc
