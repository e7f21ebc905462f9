#include "fjord/lsm/merge_partial_update.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fjord/lsm/aggregators.h"
#include "fjord/lsm/merge_options.h"

namespace fjord {
namespace {

constexpr std::string_view kSequenceGroupSuffix = ".sequence-group";

// The sequence fields of one `fields.<s1>[,<s2>...].sequence-group` option, compared in order,
// ascending, NULL smallest.
struct SequenceGroup {
  std::vector<int> sequence_fields;
};

class PartialUpdateMergeFunction final : public MergeFunction {
 public:
  struct Config {
    std::vector<DataField> fields;
    bool ignore_delete = false;
    bool remove_record_on_delete = false;
    std::vector<SequenceGroup> groups;
    std::vector<int> group_of;  // per column: index into groups, or -1
    std::vector<std::unique_ptr<FieldAggregator>> aggregators;  // per column, may be null
    std::set<int> delete_row_on_sequence_fields;                // remove-record-on-sequence-group
  };

  explicit PartialUpdateMergeFunction(Config config) : c_(std::move(config)) {
    sequence_enabled_ = !c_.groups.empty();
    Reset();
  }

  void Reset() override {
    has_record_ = false;
    meet_insert_ = false;
    not_null_filled_ = false;
    current_delete_row_ = false;
    latest_sequence_ = 0;
    row_.assign(c_.fields.size(), Value());
    for (auto& agg : c_.aggregators) {
      if (agg) agg->Reset();
    }
  }

  Status Add(const MergeRecord& record) override {
    if (record.row.size() != c_.fields.size()) {
      return Status::Invalid("partial-update: record has ", record.row.size(),
                             " values, the table has ", c_.fields.size(), " columns");
    }
    has_record_ = true;
    current_delete_row_ = false;
    if (IsRetract(record.kind)) {
      // Like Java, a leading retract seeds the row even when it is then ignored.
      if (!not_null_filled_) {
        FJORD_RETURN_NOT_OK(InitRow(record.row));
        not_null_filled_ = true;
      }
      if (c_.ignore_delete) return Status::OK();
      latest_sequence_ = record.sequence_number;
      if (sequence_enabled_) return RetractWithSequenceGroup(record);
      if (c_.remove_record_on_delete) {
        if (record.kind == RowKind::kDelete) {
          current_delete_row_ = true;
          FJORD_RETURN_NOT_OK(InitRow(record.row));
        }
        return Status::OK();
      }
      return Status::Invalid(
          "the partial-update merge engine cannot accept ", RowKindShortString(record.kind),
          " (DELETE/UPDATE_BEFORE) records by default; choose one of: "
          "1. set 'ignore-delete' = 'true' to ignore delete records; "
          "2. set 'partial-update.remove-record-on-delete' = 'true' to remove the whole row on "
          "a delete record; "
          "3. configure 'fields.<seq>.sequence-group' to retract the columns of a group, and "
          "optionally 'partial-update.remove-record-on-sequence-group' to remove the whole row "
          "on a delete record of that group");
    }
    latest_sequence_ = record.sequence_number;
    if (!sequence_enabled_) {
      FJORD_RETURN_NOT_OK(UpdateNonNullFields(record.row));
    } else {
      FJORD_RETURN_NOT_OK(UpdateWithSequenceGroup(record.row));
    }
    meet_insert_ = true;
    not_null_filled_ = true;
    return Status::OK();
  }

  Result<std::optional<MergeRecord>> GetResult() override {
    if (!has_record_) return std::optional<MergeRecord>();
    MergeRecord out;
    out.kind = (current_delete_row_ || !meet_insert_) ? RowKind::kDelete : RowKind::kInsert;
    out.sequence_number = latest_sequence_;
    out.row = row_;
    return std::optional<MergeRecord>(std::move(out));
  }

 private:
  Status NotNullError(size_t i) const {
    return Status::Invalid("partial-update: column '", c_.fields[i].name,
                           "' is NOT NULL but a record holds NULL for it");
  }

  Status InitRow(const std::vector<Value>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].is_null() && !c_.fields[i].type->nullable()) return NotNullError(i);
    }
    row_ = values;
    return Status::OK();
  }

  Status UpdateNonNullFields(const std::vector<Value>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_null()) {
        row_[i] = values[i];
      } else if (!c_.fields[i].type->nullable()) {
        return NotNullError(i);
      }
    }
    return Status::OK();
  }

  // >0 when the record's group sequence is newer than the row's, 0 when equal.
  int CompareSequence(const SequenceGroup& group, const std::vector<Value>& values) const {
    for (int f : group.sequence_fields) {
      int c = CompareValues(values[f], row_[f], *c_.fields[f].type);
      if (c != 0) return c;
    }
    return 0;
  }

  // True when the record has NULL in every sequence field of the group; remembered per sequence
  // field for the rest of the record.
  bool IsEmptySequenceGroup(const SequenceGroup& group, const std::vector<Value>& values,
                            std::vector<bool>* empty) const {
    if ((*empty)[group.sequence_fields[0]]) return true;
    for (int f : group.sequence_fields) {
      if (!values[f].is_null()) return false;
    }
    for (int f : group.sequence_fields) (*empty)[f] = true;
    return true;
  }

  static bool IsSequenceFieldOf(const SequenceGroup& group, int field) {
    for (int f : group.sequence_fields) {
      if (f == field) return true;
    }
    return false;
  }

  Status UpdateWithSequenceGroup(const std::vector<Value>& values) {
    std::vector<bool> empty(values.size(), false);
    for (size_t i = 0; i < values.size(); ++i) {
      FieldAggregator* agg = c_.aggregators[i].get();
      int g = c_.group_of[i];
      if (g < 0) {
        if (agg != nullptr) {
          FJORD_RETURN_NOT_OK(agg->Agg(&row_[i], values[i]));
        } else if (!values[i].is_null()) {
          row_[i] = values[i];
        }
        continue;
      }
      const SequenceGroup& group = c_.groups[g];
      if (IsEmptySequenceGroup(group, values, &empty)) continue;
      if (CompareSequence(group, values) >= 0) {
        if (IsSequenceFieldOf(group, static_cast<int>(i))) {
          // All sequence fields of the group move together.
          for (int f : group.sequence_fields) row_[f] = values[f];
          continue;
        }
        if (agg == nullptr) {
          row_[i] = values[i];
        } else {
          FJORD_RETURN_NOT_OK(agg->Agg(&row_[i], values[i]));
        }
      } else if (agg != nullptr) {
        FJORD_RETURN_NOT_OK(agg->AggReversed(&row_[i], values[i]));
      }
    }
    return Status::OK();
  }

  Status RetractWithSequenceGroup(const MergeRecord& record) {
    const std::vector<Value>& values = record.row;
    std::set<int> updated_sequence_fields;
    std::vector<bool> empty(values.size(), false);
    for (size_t i = 0; i < values.size(); ++i) {
      int g = c_.group_of[i];
      if (g < 0) continue;
      FieldAggregator* agg = c_.aggregators[i].get();
      const SequenceGroup& group = c_.groups[g];
      if (IsEmptySequenceGroup(group, values, &empty)) continue;
      if (CompareSequence(group, values) >= 0) {
        if (IsSequenceFieldOf(group, static_cast<int>(i))) {
          for (int f : group.sequence_fields) {
            if (updated_sequence_fields.count(f) > 0) continue;
            if (record.kind == RowKind::kDelete && c_.delete_row_on_sequence_fields.count(f) > 0) {
              current_delete_row_ = true;
              return InitRow(values);
            }
            row_[f] = values[f];
            updated_sequence_fields.insert(f);
          }
        } else if (agg == nullptr) {
          row_[i] = Value::Null();
        } else {
          FJORD_RETURN_NOT_OK(agg->Retract(&row_[i], values[i]));
        }
      } else if (agg != nullptr) {
        // An older retract still retracts from an aggregate.
        FJORD_RETURN_NOT_OK(agg->Retract(&row_[i], values[i]));
      }
    }
    return Status::OK();
  }

  Config c_;
  bool sequence_enabled_ = false;

  bool has_record_ = false;
  bool meet_insert_ = false;
  bool not_null_filled_ = false;
  bool current_delete_row_ = false;
  int64_t latest_sequence_ = 0;
  std::vector<Value> row_;
};

Result<int> RequireField(const std::vector<DataField>& fields, std::string_view name,
                         std::string_view option) {
  int index = FindField(fields, name);
  if (index < 0) {
    return Status::Invalid("option '", option, "': field '", name,
                           "' can not be found in table schema");
  }
  return index;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<MergeFunction>> CreatePartialUpdateMergeFunction(
    const MergeContext& context) {
  MergeOptions options(context.options);
  PartialUpdateMergeFunction::Config config;
  config.fields = context.fields;
  const std::vector<DataField>& fields = context.fields;
  FJORD_ASSIGN_OR_RAISE(config.ignore_delete, options.IgnoreDelete());
  FJORD_ASSIGN_OR_RAISE(config.remove_record_on_delete,
                        options.GetBool(kPartialUpdateRemoveRecordOnDelete));
  std::optional<std::string> remove_on_group =
      options.Get(kPartialUpdateRemoveRecordOnSequenceGroup);

  // Sequence groups. Java walks the options in hash order; Fjord in key order.
  config.group_of.assign(fields.size(), -1);
  std::map<std::string, int> sequence_field_index;  // sequence field name -> column
  std::vector<std::string> all_sequence_fields;
  std::vector<std::string> protected_fields;
  for (const auto& [key, value] : options.all()) {
    if (!key.starts_with("fields.") || !key.ends_with(kSequenceGroupSuffix)) continue;
    if (key.size() <= 7 + kSequenceGroupSuffix.size()) {
      return Status::Invalid("option '", key, "': no sequence field named");
    }
    std::string_view names(key);
    names = names.substr(7, names.size() - 7 - kSequenceGroupSuffix.size());
    SequenceGroup group;
    for (const std::string& name : SplitLikeJava(names, ',')) {
      FJORD_ASSIGN_OR_RAISE(int index, RequireField(fields, name, key));
      group.sequence_fields.push_back(index);
    }
    if (group.sequence_fields.empty()) {
      return Status::Invalid("option '", key, "': no sequence field named");
    }
    int g = static_cast<int>(config.groups.size());
    config.groups.push_back(group);
    for (const std::string& name : SplitLikeJava(value, ',')) {
      FJORD_ASSIGN_OR_RAISE(int index, RequireField(fields, name, key));
      if (config.group_of[index] >= 0) {
        return Status::Invalid("option '", key, "': field '", name,
                               "' is defined repeatedly by multiple sequence groups");
      }
      config.group_of[index] = g;
      protected_fields.push_back(name);
    }
    for (int index : group.sequence_fields) {
      all_sequence_fields.push_back(fields[index].name);
      config.group_of[index] = g;
      sequence_field_index[fields[index].name] = index;
    }
  }

  // Aggregators: key columns keep the key; sequence fields have none; other columns take
  // fields.<col>.aggregate-function or fields.default-aggregate-function, which needs a sequence
  // group unless it is last_non_null_value.
  std::optional<std::string> default_function = options.Get(kDefaultAggregateFunction);
  config.aggregators.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& name = fields[i].name;
    if (Contains(all_sequence_fields, name)) continue;
    std::optional<std::string> function;
    if (Contains(context.primary_keys, name)) {
      function = std::string(kPrimaryKeyAggregate);
    } else {
      function = options.FieldOption(name, "aggregate-function");
      if (!function) function = default_function;
      if (function && *function != kLastNonNullValueAggregate &&
          !Contains(protected_fields, name)) {
        return Status::Invalid("partial-update: aggregate function '", *function, "' of column '",
                               name,
                               "' needs a sequence group: add the column to a "
                               "'fields.<seq>.sequence-group' option");
      }
    }
    if (!function) continue;
    FJORD_ASSIGN_OR_RAISE(config.aggregators[i],
                          CreateFieldAggregator(fields[i], *function, options));
  }

  if (config.remove_record_on_delete && config.ignore_delete) {
    return Status::Invalid("'ignore-delete' and '", kPartialUpdateRemoveRecordOnDelete,
                           "' conflict; enable only one of them");
  }
  if (remove_on_group && config.ignore_delete) {
    return Status::Invalid("'ignore-delete' and '", kPartialUpdateRemoveRecordOnSequenceGroup,
                           "' conflict; enable only one of them");
  }
  if (config.remove_record_on_delete && !config.groups.empty()) {
    return Status::Invalid("sequence groups and '", kPartialUpdateRemoveRecordOnDelete,
                           "' conflict; use '", kPartialUpdateRemoveRecordOnSequenceGroup,
                           "' with sequence groups");
  }
  if (remove_on_group) {
    for (const std::string& name : SplitLikeJava(*remove_on_group, ',')) {
      auto it = sequence_field_index.find(name);
      if (it == sequence_field_index.end()) {
        return Status::Invalid("option '", kPartialUpdateRemoveRecordOnSequenceGroup, "': field '",
                               name, "' is not a sequence field of a sequence group");
      }
      config.delete_row_on_sequence_fields.insert(it->second);
    }
  }
  return std::unique_ptr<MergeFunction>(new PartialUpdateMergeFunction(std::move(config)));
}

}  // namespace fjord
