#include "fjord/runtime/cdc_rows.h"

#include <arrow/api.h>

#include "fjord/common/local_time.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/json_values.h"
#include "fjord/format/text_values.h"

namespace fjord::runtime {

namespace {

// Java's castFromCdcValueString: VARBINARY takes the text's UTF-8 bytes as they are (BINARY is
// base64, as in Fjord's text rules). An ARRAY is a JSON list whose string elements are cast from
// their text like a column's value (PostgreSQL's arrays arrive as ["1",null,"3"]), other elements
// read as JSON.
Result<Value> CdcValue(const std::string& text, const DataType& type) {
  if (type.root() == TypeRoot::kVarBinary) {
    FJORD_RETURN_NOT_OK(CheckLength(text, type));
    return Value(text);
  }
  if (type.root() == TypeRoot::kArray) {
    FJORD_ASSIGN_OR_RAISE(Json json, ParseExactJson(text, ""));
    if (!json.is_array()) return ValueFromJson(json, type);  // its error
    ValueList items;
    for (size_t i = 0; i < json.size(); ++i) {
      const Json& e = json[i];
      Result<Value> v = e.is_null()     ? Result<Value>(Value::Null())
                        : e.is_string() ? CdcValue(e.get<std::string>(), *type.element())
                                        : ValueFromJson(e, *type.element());
      if (!v.ok()) return v.status().WithContext("element ", i);
      items.push_back(std::move(*v));
    }
    return Value::List(std::move(items));
  }
  if (type.root() == TypeRoot::kTimestampLtz && (text.empty() || text.back() != 'Z')) {
    // Java reads it as the wall clock of the JVM's zone (toTimestamp(str, precision,
    // TimeZone.getDefault())), the text the PostgreSQL source writes for timestamptz: the
    // process's zone here.
    auto local = ParseTimestampText(text, type.precision(), /*ltz=*/false);
    if (!local.ok()) return local.status();
    Timestamp ts = *local;
    ts.millis = LocalMillisToEpochMillis(ts.millis);
    return Value(ts);
  }
  return ValueFromText(text, type);
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> RecordsToBatch(
    const TableSchema& schema, const std::vector<const cdc::CdcRecord*>& records) {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Schema> arrow_schema, ToArrowSchema(schema.fields));
  const size_t n = schema.fields.size();
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders(n);
  for (size_t i = 0; i < n; ++i) {
    auto made = arrow::MakeBuilder(arrow_schema->field(static_cast<int>(i))->type());
    if (!made.ok()) return Status::Internal("cdc rows: ", made.status().message());
    builders[i] = std::move(*made);
  }
  arrow::Int8Builder kinds;
  // The record's column for each table column, looked up once per distinct column layout.
  std::vector<int> slots(n);
  const cdc::CdcRecord* layout = nullptr;
  for (size_t r = 0; r < records.size(); ++r) {
    const cdc::CdcRecord& record = *records[r];
    bool same = layout && layout->columns.size() == record.columns.size();
    for (size_t c = 0; same && c < record.columns.size(); ++c) {
      same = layout->columns[c].name == record.columns[c].name;
    }
    if (!same) {
      for (size_t i = 0; i < n; ++i) {
        slots[i] = -1;
        for (size_t c = 0; c < record.columns.size(); ++c) {
          if (record.columns[c].name == schema.fields[i].name) slots[i] = static_cast<int>(c);
        }
      }
      layout = &record;
    }
    for (size_t i = 0; i < n; ++i) {
      const DataField& field = schema.fields[i];
      Value value;
      if (slots[i] >= 0 && record.columns[static_cast<size_t>(slots[i])].value) {
        const std::string& text = *record.columns[static_cast<size_t>(slots[i])].value;
        auto parsed = CdcValue(text, *field.type);
        if (!parsed.ok()) {
          return Status::Invalid(record.origin, ": column '", field.name, "' (",
                                 field.type->ToString(), "): ", parsed.status().message());
        }
        value = std::move(*parsed);
      } else if (!field.type->nullable()) {
        return Status::Invalid(record.origin, ": column '", field.name, "' is NOT NULL but the ",
                               cdc::ChangeKindName(record.kind), " record has no value for it");
      }
      FJORD_RETURN_NOT_OK(AppendValueToBuilder(builders[i].get(), value, *field.type));
    }
    if (!kinds.Append(static_cast<int8_t>(record.kind)).ok()) {
      return Status::Internal("cdc rows: cannot append a row kind");
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> arrays(n + 1);
  for (size_t i = 0; i < n; ++i) {
    if (!builders[i]->Finish(&arrays[i]).ok()) return Status::Internal("cdc rows: finish");
  }
  if (!kinds.Finish(&arrays[n]).ok()) return Status::Internal("cdc rows: finish");
  auto with_kind =
      arrow_schema->AddField(static_cast<int>(n), arrow::field("_row_kind", arrow::int8()));
  if (!with_kind.ok()) return Status::Internal("cdc rows: ", with_kind.status().message());
  return arrow::RecordBatch::Make(*with_kind, static_cast<int64_t>(records.size()), arrays);
}

}  // namespace fjord::runtime
