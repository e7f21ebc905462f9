// Computed columns of CDC ingestion (docs/cdc.md), as Java Paimon's `--computed_column` of its
// CDC actions (ComputedColumnUtils, Expression): `name=function(args)` where the function is one
// of year, month, day, hour, minute, second, date_format, substring, truncate, cast, now, upper,
// lower, trim (Java's set, each with its argument rules and result type), over one column of the
// source record or an earlier computed column (or, for cast and now, none). A computed column's
// value is derived from the record's value text and appended to the record as a column of the
// function's result type. Names are case-sensitive (Fjord's catalog is; Java upper-cases the
// whole argument for a case-insensitive catalog, which Fjord does not copy).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_record.h"
#include "fjord/cdc/java_time_text.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

class ComputedColumn {
 public:
  // Parses "name=function(args)". `fields`: the source's columns (the referenced column's type
  // decides the result type and how its values are read). Invalid naming the text and what is
  // wrong (unknown function, missing column, bad argument, a date_format pattern Fjord cannot
  // print).
  static Result<ComputedColumn> Parse(const std::string& text,
                                      const std::vector<DataField>& fields);

  const std::string& name() const { return name_; }
  const DataTypePtr& type() const { return type_; }
  // The referenced source column; empty for functions without one.
  const std::string& reference() const { return reference_; }

  // The value for a record whose referenced column holds `value` (NULL gives NULL, as Java; cast
  // and now ignore it). A value the function cannot read is Invalid naming column and value.
  Result<std::optional<std::string>> Eval(const std::optional<std::string>& value) const;

 private:
  struct Split {  // "name=function(args)" cut as Java cuts it
    std::string name;
    std::string function;
    std::vector<std::string> args;  // untrimmed
  };
  static Result<Split> SplitText(const std::string& text);
  static Result<ComputedColumn> Make(const std::string& text, const Split& split,
                                     const std::vector<DataField>& fields);
  friend Result<std::vector<ComputedColumn>> ParseComputedColumns(const std::vector<std::string>&,
                                                                  const std::vector<DataField>&);

  std::string text_;  // as given, for errors
  std::string name_;
  DataTypePtr type_;
  std::string reference_;
  DataTypePtr reference_type_;
  std::string function_;                    // lower-case
  std::vector<std::string> args_;           // the literal arguments after the column, trimmed
  std::optional<int> precision_;            // temporal functions: epoch unit of a number
  std::optional<DateTimePattern> pattern_;  // date_format
  int begin_ = 0;                           // substring
  std::optional<int> end_;                  // substring
  int width_ = 0;                           // truncate
  std::string constant_;                    // cast: the value, untrimmed as Java keeps it
};

// All of a job's computed columns, in Java's order: each after the computed column it
// references (Java's DfsSort of the references; a cycle is Invalid), each referencing `fields`
// or an earlier computed column. A name given twice keeps its first place and its last text.
Result<std::vector<ComputedColumn>> ParseComputedColumns(const std::vector<std::string>& texts,
                                                         const std::vector<DataField>& fields);

// Appends every computed column to `record` in order (its value from the referenced column's,
// an earlier computed column's included; a column the record lacks reads as NULL). A column of
// the record with a computed column's name takes the computed value and type.
Status ApplyComputedColumns(const std::vector<ComputedColumn>& columns, CdcRecord* record);

}  // namespace fjord::cdc
