// Computed columns of CDC ingestion (docs/cdc.md), as Java Paimon's `--computed_column` of its
// CDC actions (ComputedColumnUtils, Expression): `name=function(args)` where the function is one
// of year, month, day, hour, minute, second, date_format, substring, truncate, cast, now (Java's
// set, each with its argument rules and result type), over one column of the source record (or,
// for cast and now, none). A computed column's value is derived from the record's value text and
// appended to the record as a column of the function's result type.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_record.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

class ComputedColumn {
 public:
  // Parses "name=function(args)". `fields`: the source's columns (the referenced column's type
  // decides the result type and how its values are read). Invalid naming the text and what is
  // wrong (unknown function, missing column, bad argument).
  static Result<ComputedColumn> Parse(const std::string& text,
                                      const std::vector<DataField>& fields);

  const std::string& name() const { return name_; }
  const DataTypePtr& type() const { return type_; }
  // The referenced source column; empty for functions without one.
  const std::string& reference() const { return reference_; }

  // The value for a record whose referenced column holds `value` (NULL gives NULL, as Java).
  Result<std::optional<std::string>> Eval(const std::optional<std::string>& value) const;

 private:
  std::string name_;
  DataTypePtr type_;
  std::string reference_;
  DataTypePtr reference_type_;
  std::string function_;
  std::vector<std::string> args_;  // the literal arguments after the column
};

// Appends every computed column to `record` (its value from the referenced column's).
Status ApplyComputedColumns(const std::vector<ComputedColumn>& columns, CdcRecord* record);

}  // namespace fjord::cdc
