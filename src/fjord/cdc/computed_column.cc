// Java Paimon's `--computed_column` (ComputedColumnUtils, Expression, DfsSort at release-1.4.2):
// the same text cut the same way, the same functions, argument checks, result types and values.
#include "fjord/cdc/computed_column.h"

#include <algorithm>
#include <map>

#include "fjord/cdc/computed_text.h"
#include "fjord/common/local_time.h"
#include "fjord/common/strings.h"

namespace fjord::cdc {

namespace {

const char* const kFunctions[] = {"year",   "month",       "day",       "hour",     "minute",
                                  "second", "date_format", "substring", "truncate", "cast",
                                  "now",    "upper",       "lower",     "trim"};

bool IsTemporalToInt(const std::string& f) {
  return f == "year" || f == "month" || f == "day" || f == "hour" || f == "minute" || f == "second";
}

// Java's DataTypeRoot names, as its errors print them.
const char* JavaRootName(TypeRoot root) {
  switch (root) {
    case TypeRoot::kBoolean:
      return "BOOLEAN";
    case TypeRoot::kTinyInt:
      return "TINYINT";
    case TypeRoot::kSmallInt:
      return "SMALLINT";
    case TypeRoot::kInt:
      return "INTEGER";
    case TypeRoot::kBigInt:
      return "BIGINT";
    case TypeRoot::kFloat:
      return "FLOAT";
    case TypeRoot::kDouble:
      return "DOUBLE";
    case TypeRoot::kDecimal:
      return "DECIMAL";
    case TypeRoot::kChar:
      return "CHAR";
    case TypeRoot::kVarChar:
      return "VARCHAR";
    case TypeRoot::kBinary:
      return "BINARY";
    case TypeRoot::kVarBinary:
      return "VARBINARY";
    case TypeRoot::kDate:
      return "DATE";
    case TypeRoot::kTime:
      return "TIME_WITHOUT_TIME_ZONE";
    case TypeRoot::kTimestamp:
      return "TIMESTAMP_WITHOUT_TIME_ZONE";
    case TypeRoot::kTimestampLtz:
      return "TIMESTAMP_WITH_LOCAL_TIME_ZONE";
    case TypeRoot::kArray:
      return "ARRAY";
    case TypeRoot::kMultiset:
      return "MULTISET";
    case TypeRoot::kMap:
      return "MAP";
    case TypeRoot::kRow:
      return "ROW";
    case TypeRoot::kVariant:
      return "VARIANT";
    case TypeRoot::kBlob:
      return "BLOB";
    case TypeRoot::kVector:
      return "VECTOR";
  }
  return "?";
}

}  // namespace

Result<ComputedColumn::Split> ComputedColumn::SplitText(const std::string& text) {
  std::vector<std::string> kv = JavaSplit(text, '=');
  if (kv.size() != 2) {
    return Status::Invalid("computed column '", text,
                           "': use the form 'column-name=expr-name(args, ...)' (one '=')");
  }
  std::string expression = JavaTrim(kv[1]);
  size_t left = expression.find('(');
  size_t right = expression.find(')');
  if (left == std::string::npos || left == 0 || right == std::string::npos || right < left) {
    return Status::Invalid("computed column '", text, "': invalid expression '", expression,
                           "', use the form 'expr-name(args, ...)'");
  }
  Split out;
  out.name = JavaTrim(kv[0]);
  out.function = JavaTrim(expression.substr(0, left));
  // Java cuts at the first ')' and ignores what follows it.
  out.args = JavaSplit(expression.substr(left + 1, right - left - 1), ',');
  if (out.args.empty()) {
    return Status::Invalid("computed column '", text, "': the expression has no argument");
  }
  return out;
}

Result<ComputedColumn> ComputedColumn::Parse(const std::string& text,
                                             const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(Split split, SplitText(text));
  return Make(text, split, fields);
}

Result<ComputedColumn> ComputedColumn::Make(const std::string& text, const Split& split,
                                            const std::vector<DataField>& fields) {
  auto bad = [&](auto&&... what) {
    return Status::Invalid("computed column '", text, "': ", what...);
  };
  ComputedColumn c;
  c.text_ = text;
  c.name_ = split.name;
  c.function_ = Lower(split.function);
  if (std::find(std::begin(kFunctions), std::end(kFunctions), c.function_) ==
      std::end(kFunctions)) {
    std::string all;
    for (const char* f : kFunctions) all += std::string(all.empty() ? "" : ",") + f;
    return bad("unsupported expression '", split.function, "'; supported: ", all);
  }
  if (c.function_ == "cast") {
    // Java takes cast's arguments as cut, untrimmed: the value keeps its spaces.
    if (split.args.size() > 2) {
      return bad("'cast' takes one or two arguments, found ", split.args.size());
    }
    c.constant_ = split.args[0];
    c.type_ = DataType::String();
    if (split.args.size() == 2) {
      auto type = ParseDataType(JavaTrim(split.args[1]));
      if (!type.ok()) return bad("cast type: ", type.status().message());
      c.type_ = *type;
    }
    return c;
  }
  if (c.function_ == "now") {  // Java ignores now's arguments
    c.type_ = DataType::Timestamp(3);
    return c;
  }
  // The other functions read a column: the first argument names it.
  c.reference_ = JavaTrim(split.args[0]);
  for (const DataField& f : fields) {
    if (f.name == c.reference_) c.reference_type_ = f.type;  // the last of a name, as Java's map
  }
  if (!c.reference_type_) {
    std::string names;
    for (const DataField& f : fields) names += (names.empty() ? "" : ", ") + f.name;
    return bad("referenced field '", c.reference_, "' is not in the given fields [", names, "]");
  }
  for (size_t i = 1; i < split.args.size(); ++i) c.args_.push_back(JavaTrim(split.args[i]));
  const std::vector<std::string>& lit = c.args_;
  const TypeRoot ref_root = c.reference_type_->root();

  if (IsTemporalToInt(c.function_) || c.function_ == "date_format") {
    bool is_format = c.function_ == "date_format";
    size_t max = is_format ? 2 : 1;
    if (lit.size() > max || (is_format && lit.empty())) {
      return bad("'", c.function_, "' takes ", is_format ? "1 or 2" : "0 or 1",
                 " arguments after the column, found ", lit.size());
    }
    if (lit.size() == max) {
      std::optional<int32_t> p = ParseJavaInt(lit.back());
      if (!p) return bad("precision '", lit.back(), "' is not an integer");
      c.precision_ = *p;
    }
    // A number column without a precision holds epoch seconds.
    if (c.reference_type_->IsInteger() && !c.precision_) c.precision_ = 0;
    if (c.precision_ && *c.precision_ != 0 && *c.precision_ != 3 && *c.precision_ != 6 &&
        *c.precision_ != 9) {
      return bad("unsupported precision ", *c.precision_,
                 " of a temporal function: 0 (epoch seconds), 3 (milliseconds), 6 "
                 "(microseconds) or 9 (nanoseconds)");
    }
    if (is_format) {
      auto pattern = DateTimePattern::Compile(lit[0]);
      if (!pattern.ok()) return bad(pattern.status().message());
      c.pattern_ = std::move(*pattern);
      c.type_ = DataType::String();
    } else {
      c.type_ = DataType::Int();
    }
    return c;
  }
  if (c.function_ == "substring") {
    if (lit.empty() || lit.size() > 2) {
      return bad("'substring' takes one or two arguments after the column, found ", lit.size());
    }
    std::optional<int32_t> begin = ParseJavaInt(lit[0]);
    std::optional<int32_t> end;
    if (lit.size() == 2) end = ParseJavaInt(lit[1]);
    if (!begin || (lit.size() == 2 && !end)) {
      return bad("the substring indexes [", Join(lit), "] are not all integers");
    }
    if (*begin < 0) return bad("the begin index (", *begin, ") of 'substring' must be >= 0");
    if (end && *end <= *begin) {
      return bad("the end index (", *end, ") must be larger than the begin index (", *begin, ")");
    }
    c.begin_ = *begin;
    c.end_ = end;
    c.type_ = DataType::String();
    return c;
  }
  if (c.function_ == "truncate") {
    if (lit.size() != 1) {
      return bad("'truncate' takes one argument after the column, found ", lit.size());
    }
    std::optional<int32_t> width = ParseJavaInt(lit[0]);
    if (!width) return bad("invalid width '", lit[0], "' for truncate, expected an integer");
    c.width_ = *width;
    c.type_ = c.reference_type_;  // Java: the column's own type, its nullability included
    return c;
  }
  // upper, lower, trim: a VARCHAR column (not CHAR) and nothing else.
  if (ref_root != TypeRoot::kVarChar) {
    return bad("'", c.function_, "' only takes a VARCHAR column, '", c.reference_, "' is ",
               JavaRootName(ref_root));
  }
  if (!lit.empty()) {
    return bad("'", c.function_, "' takes no argument after the column, found ", lit.size());
  }
  c.type_ = DataType::String();
  return c;
}

Result<std::optional<std::string>> ComputedColumn::Eval(
    const std::optional<std::string>& value) const {
  if (function_ == "cast") return std::optional<std::string>(constant_);
  if (function_ == "now") {
    // Java's LocalDateTime.now() (the process's zone) as "yyyy-MM-dd HH:mm:ss.SSS".
    int64_t local = NowLocalMillis();
    LocalDateTime t = LocalDateTimeFromEpochMillis(local, 0);
    auto p = DateTimePattern::Compile("yyyy-MM-dd HH:mm:ss.SSS");
    FJORD_ASSIGN_OR_RAISE(std::string s, p->Format(t));
    return std::optional<std::string>(s);
  }
  if (!value) return std::optional<std::string>();
  const std::string& v = *value;
  auto bad = [&](auto&&... what) {
    return Status::Invalid("computed column '", name_, "' (", text_, ") on value '", v,
                           "': ", what...);
  };
  if (IsTemporalToInt(function_) || function_ == "date_format") {
    LocalDateTime t;
    if (precision_) {
      std::optional<int64_t> n = ParseJavaLong(v);
      if (!n) return bad("not an epoch number (precision ", *precision_, ")");
      FJORD_ASSIGN_OR_RAISE(t, EpochToLocalDateTime(*n, *precision_));
    } else {
      auto parsed = ParseJavaDateTimeText(v);
      if (!parsed.ok()) return bad(parsed.status().message());
      t = *parsed;
    }
    if (function_ == "date_format") {
      auto s = pattern_->Format(t);
      if (!s.ok()) return bad(s.status().message());
      return std::optional<std::string>(*s);
    }
    int64_t r = function_ == "year"     ? t.year
                : function_ == "month"  ? t.month
                : function_ == "day"    ? t.day
                : function_ == "hour"   ? t.hour
                : function_ == "minute" ? t.minute
                                        : t.second;
    return std::optional<std::string>(std::to_string(r));
  }
  if (function_ == "substring") {
    auto s = Utf16Substring(v, begin_, end_);
    if (!s) {
      return bad("cannot get the substring: the indexes are out of range (begin ", begin_, ", end ",
                 end_ ? std::to_string(*end_) : std::string("none"), ")");
    }
    return std::optional<std::string>(*s);
  }
  if (function_ == "truncate") {
    auto r = TruncateText(v, *reference_type_, width_);
    if (!r.ok()) {
      if (r.status().message() == "unsupported type") {
        return bad("unsupported field type for truncate: ", JavaRootName(reference_type_->root()));
      }
      return bad(r.status().message());
    }
    return std::optional<std::string>(*r);
  }
  if (function_ == "upper") return std::optional<std::string>(JavaCase(v, true));
  if (function_ == "lower") return std::optional<std::string>(JavaCase(v, false));
  return std::optional<std::string>(JavaTrim(v));  // trim
}

Result<std::vector<ComputedColumn>> ParseComputedColumns(const std::vector<std::string>& texts,
                                                         const std::vector<DataField>& fields) {
  // Cut every text first (Java's sortComputedColumnArgs); a name given twice keeps its first
  // place and its last text.
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::string, ComputedColumn::Split>> by_name;
  for (const std::string& text : texts) {
    FJORD_ASSIGN_OR_RAISE(ComputedColumn::Split split, ComputedColumn::SplitText(text));
    if (!by_name.count(split.name)) order.push_back(split.name);
    by_name[split.name] = {text, split};
  }
  std::vector<std::pair<std::string, std::string>> refs;
  for (const std::string& name : order) {
    refs.emplace_back(name, JavaTrim(by_name[name].second.args[0]));
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> sorted, JavaDfsSort(refs));
  std::vector<DataField> known = fields;
  std::vector<ComputedColumn> out;
  for (const std::string& name : sorted) {
    const auto& [text, split] = by_name[name];
    FJORD_ASSIGN_OR_RAISE(ComputedColumn c, ComputedColumn::Make(text, split, known));
    known.push_back(DataField{-1, c.name(), c.type(), std::nullopt, std::nullopt});
    out.push_back(std::move(c));
  }
  return out;
}

Status ApplyComputedColumns(const std::vector<ComputedColumn>& columns, CdcRecord* record) {
  for (const ComputedColumn& c : columns) {
    std::optional<std::string> input;
    if (!c.reference().empty()) {
      if (const CdcColumn* ref = record->Find(c.reference())) input = ref->value;
    }
    FJORD_ASSIGN_OR_RAISE(std::optional<std::string> value, c.Eval(input));
    bool replaced = false;
    for (CdcColumn& existing : record->columns) {
      if (existing.name == c.name()) {
        existing.type = c.type();
        existing.value = value;
        replaced = true;
      }
    }
    if (!replaced) record->columns.push_back(CdcColumn{c.name(), c.type(), value, std::nullopt});
  }
  return Status::OK();
}

}  // namespace fjord::cdc
