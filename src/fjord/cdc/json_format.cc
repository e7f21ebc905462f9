// `json` (docs/cdc.md), as Java Paimon's JsonRecordParser: each message is one row, inserted
// (+I), its members the columns, all STRING. No primary keys; like every Java JSON parser it
// takes the database and table from the message's own `database` and `table` members when it has
// them (which stay columns too).
#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/json_record.h"

namespace fjord::cdc {

namespace {

constexpr const char* kFormat = "json";

class JsonFormat : public CdcFormat {
 public:
  const char* name() const override { return kFormat; }

  Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) override {
    JsonRecordContext ctx(kFormat, message);
    FJORD_ASSIGN_OR_RAISE(std::optional<JsonNode> root, ctx.Parse());
    if (!root) return Status::OK();
    if (!root->is_object()) return ctx.Error("the message is not a JSON object.");
    CdcRecord record;
    record.database = TextOrNull(root->Get("database"));
    record.table = TextOrNull(root->Get("table"));
    record.kind = ChangeKind::kInsert;
    record.columns = ctx.StringColumns(*root);
    out->push_back(std::move(record));
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<CdcFormat> MakeJsonFormat(const TypeMapping&) {
  return std::make_unique<JsonFormat>();
}

}  // namespace fjord::cdc
