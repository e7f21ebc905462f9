// Field aggregators: the per-column functions of the aggregation merge engine and of aggregated
// columns in partial-update sequence groups (spec/behaviour.md §3.4; Java:
// mergetree/compact/aggregate/Field*Agg.java). Private to the lsm layer.
//
// An aggregator folds the values of one column, record by record, into an accumulator. A NULL
// Value is SQL NULL; most functions treat a NULL on either side as "keep the other side".
// Aggregators may keep per-key state (first_value), cleared by Reset(). Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "fjord/data_type.h"
#include "fjord/lsm/merge_options.h"
#include "fjord/result.h"
#include "fjord/value.h"

namespace fjord {

class FieldAggregator {
 public:
  FieldAggregator(std::string function, std::string column, DataTypePtr type)
      : function_(std::move(function)), column_(std::move(column)), type_(std::move(type)) {}
  virtual ~FieldAggregator() = default;

  // *acc = agg(*acc, in): `in` is newer than the accumulator.
  virtual Status Agg(Value* acc, const Value& in) = 0;
  // *acc = agg(in, *acc): `in` is older than the accumulator (partial-update sequence groups
  // aggregate records whose group sequence lost).
  virtual Status AggReversed(Value* acc, const Value& in);
  // *acc = retract(*acc, in) for a -U/-D record. Functions without retraction fail with an
  // Invalid error that names fields.<column>.ignore-retract.
  virtual Status Retract(Value* acc, const Value& in);
  // Clears per-key state; called before each key.
  virtual void Reset() {}

  // The function's name ("sum"), the column's name and type.
  const std::string& function() const { return function_; }
  const std::string& column() const { return column_; }
  const DataType& type() const { return *type_; }
  const DataTypePtr& type_ptr() const { return type_; }

  // An Invalid error "aggregate function 'f' of column 'c': <what>".
  template <typename... Args>
  Status Error(Args&&... args) const {
    return Status::Invalid("aggregate function '", function_, "' of column '", column_,
                           "': ", std::forward<Args>(args)...);
  }

 private:
  std::string function_;
  std::string column_;
  DataTypePtr type_;
};

// Names Java reserves for key and sequence columns.
inline constexpr std::string_view kPrimaryKeyAggregate = "primary-key";
inline constexpr std::string_view kLastValueAggregate = "last_value";
inline constexpr std::string_view kLastNonNullValueAggregate = "last_non_null_value";

// The aggregator named `function` for `field`, with its per-column options
// (fields.<col>.distinct, list-agg-delimiter, nested-key, count-limit, ts-field, ignore-retract).
// Unknown names and unsuitable column types are Invalid; functions Fjord does not implement
// (hll_sketch, theta_sketch, rbm32, rbm64) are NotImplemented.
Result<std::unique_ptr<FieldAggregator>> CreateFieldAggregator(const DataField& field,
                                                               std::string_view function,
                                                               const MergeOptions& options);

}  // namespace fjord
