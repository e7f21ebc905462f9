// `json` (docs/cdc.md), as Java Paimon's JsonRecordParser: each message is one row, inserted
// (+I), its members the columns, all STRING. No primary keys; like every Java JSON parser it
// takes the database and table from the message's own `database` and `table` members when it has
// them (which stay columns too).
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

Status DecodeJson(const JsonRecordContext& ctx, const JsonNode& root,
                  std::vector<CdcRecord>* records) {
  if (!root.is_object()) return ctx.Error("the message is not a JSON object.");
  return ctx.Add(root, MemberTableName(root), ChangeKind::kInsert, ctx.StringColumns(root),
                 records);
}

}  // namespace

std::unique_ptr<CdcFormat> MakeJsonFormat(const TypeMapping& mapping) {
  return MakeJsonCdcFormat({"json", /*keys_field=*/nullptr, mapping, DecodeJson});
}

}  // namespace fjord::cdc
