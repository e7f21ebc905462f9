#include "fjord/lsm/merge_aggregate.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fjord/lsm/aggregators.h"
#include "fjord/lsm/merge_options.h"

namespace fjord {
namespace {

class AggregateMergeFunction final : public MergeFunction {
 public:
  AggregateMergeFunction(std::vector<DataField> fields,
                         std::vector<std::unique_ptr<FieldAggregator>> aggregators,
                         bool remove_record_on_delete)
      : fields_(std::move(fields)),
        aggregators_(std::move(aggregators)),
        remove_record_on_delete_(remove_record_on_delete) {
    Reset();
  }

  void Reset() override {
    has_record_ = false;
    current_delete_row_ = false;
    latest_sequence_ = 0;
    row_.assign(fields_.size(), Value());
    for (auto& agg : aggregators_) agg->Reset();
  }

  Status Add(const MergeRecord& record) override {
    if (record.row.size() != fields_.size()) {
      return Status::Invalid("aggregation: record has ", record.row.size(),
                             " values, the table has ", fields_.size(), " columns");
    }
    has_record_ = true;
    latest_sequence_ = record.sequence_number;
    current_delete_row_ = remove_record_on_delete_ && record.kind == RowKind::kDelete;
    if (current_delete_row_) {
      // The row becomes the delete record itself; a later insert of the same merge aggregates
      // onto these values, as in Java.
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (record.row[i].is_null() && !fields_[i].type->nullable()) {
          return Status::Invalid("aggregation: column '", fields_[i].name,
                                 "' is NOT NULL but a delete record holds NULL for it");
        }
      }
      row_ = record.row;
      return Status::OK();
    }
    bool retract = IsRetract(record.kind);
    for (size_t i = 0; i < fields_.size(); ++i) {
      Status st = retract ? aggregators_[i]->Retract(&row_[i], record.row[i])
                          : aggregators_[i]->Agg(&row_[i], record.row[i]);
      FJORD_RETURN_NOT_OK(st);
    }
    return Status::OK();
  }

  Result<std::optional<MergeRecord>> GetResult() override {
    if (!has_record_) return std::optional<MergeRecord>();
    MergeRecord out;
    out.kind = current_delete_row_ ? RowKind::kDelete : RowKind::kInsert;
    out.sequence_number = latest_sequence_;
    out.row = row_;
    return std::optional<MergeRecord>(std::move(out));
  }

 private:
  std::vector<DataField> fields_;
  std::vector<std::unique_ptr<FieldAggregator>> aggregators_;
  bool remove_record_on_delete_;

  bool has_record_ = false;
  bool current_delete_row_ = false;
  int64_t latest_sequence_ = 0;
  std::vector<Value> row_;
};

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<MergeFunction>> CreateAggregateMergeFunction(const MergeContext& context) {
  MergeOptions options(context.options);
  FJORD_ASSIGN_OR_RAISE(bool remove_on_delete, options.GetBool(kAggregationRemoveRecordOnDelete));
  std::vector<std::string> sequence_fields = options.SequenceFields();
  std::optional<std::string> default_function = options.Get(kDefaultAggregateFunction);
  std::vector<std::unique_ptr<FieldAggregator>> aggregators;
  for (const DataField& field : context.fields) {
    // sequence.field columns keep the newest value; key columns keep the key.
    std::string function;
    if (Contains(sequence_fields, field.name)) {
      function = kLastValueAggregate;
    } else if (Contains(context.primary_keys, field.name)) {
      function = kPrimaryKeyAggregate;
    } else {
      function = options.FieldOption(field.name, "aggregate-function")
                     .value_or(default_function.value_or(std::string(kLastNonNullValueAggregate)));
    }
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<FieldAggregator> agg,
                          CreateFieldAggregator(field, function, options));
    aggregators.push_back(std::move(agg));
  }
  return std::unique_ptr<MergeFunction>(
      new AggregateMergeFunction(context.fields, std::move(aggregators), remove_on_delete));
}

}  // namespace fjord
