// Java Paimon's CDC schema evolution (UpdatedDataFieldsProcessFunctionBase with NestedSchemaUtils),
// decided here without touching a table: the runtime applies the plan through the catalog.
#include "fjord/cdc/schema_change.h"

#include <functional>
#include <map>
#include <set>

#include "fjord/common/strings.h"

namespace fjord::cdc {

namespace {

// Java's DataType.equalsIgnoreNullable: only the outer nullability is ignored; nested nullability,
// field ids, descriptions and default values still count.
bool JavaEqualsIgnoreNullable(const DataType& a, const DataType& b) {
  return a.WithNullable(true)->Equals(*b.WithNullable(true));
}

// Java's DataType.equalsIgnoreFieldId: as equals, but ROW field ids are ignored at every depth
// reached through ROW, ARRAY and MAP. MULTISET (and VECTOR) do not override it in Java, so their
// element types compare with ids.
bool JavaEqualsIgnoreFieldId(const DataType& a, const DataType& b) {
  if (a.root() != b.root() || a.nullable() != b.nullable()) return false;
  switch (a.root()) {
    case TypeRoot::kRow: {
      if (a.fields().size() != b.fields().size()) return false;
      for (size_t i = 0; i < a.fields().size(); ++i) {
        const DataField& x = a.fields()[i];
        const DataField& y = b.fields()[i];
        if (x.name != y.name || x.description != y.description ||
            x.default_value != y.default_value || !JavaEqualsIgnoreFieldId(*x.type, *y.type)) {
          return false;
        }
      }
      return true;
    }
    case TypeRoot::kArray:
      return JavaEqualsIgnoreFieldId(*a.element(), *b.element());
    case TypeRoot::kMap:
      return JavaEqualsIgnoreFieldId(*a.key(), *b.key()) &&
             JavaEqualsIgnoreFieldId(*a.value(), *b.value());
    default:
      return a.Equals(b);
  }
}

// Index of `root` in one of Java's type families (STRING_TYPES, INTEGER_TYPES, ...), or -1.
int FamilyIndex(std::initializer_list<TypeRoot> family, TypeRoot root) {
  int i = 0;
  for (TypeRoot r : family) {
    if (r == root) return i;
    ++i;
  }
  return -1;
}

ConvertAction CanConvertRow(const DataType& old_type, const DataType& new_type,
                            const TypeMapping& mapping) {
  std::map<std::string, const DataField*> old_fields;
  for (const DataField& f : old_type.fields()) old_fields[f.name] = &f;
  std::set<std::string> new_names;
  for (const DataField& f : new_type.fields()) new_names.insert(f.name);
  // A NOT NULL field of the table must still be there.
  for (const DataField& f : old_type.fields()) {
    if (!f.type->nullable() && !new_names.count(f.name)) return ConvertAction::kException;
  }
  bool needs_conversion = false;
  for (const DataField& f : new_type.fields()) {
    auto it = old_fields.find(f.name);
    if (it != old_fields.end()) {
      ConvertAction action = CanConvert(*it->second->type, *f.type, mapping);
      if (action == ConvertAction::kException) return action;
      // Equal fields answer CONVERT too, so a ROW is IGNORE only when every common field
      // narrows and none is new: Java's rule, kept as it is.
      if (action == ConvertAction::kConvert) needs_conversion = true;
    } else {
      if (!f.type->nullable()) return ConvertAction::kException;  // a new field must be nullable
      needs_conversion = true;
    }
  }
  return needs_conversion ? ConvertAction::kConvert : ConvertAction::kIgnore;
}

}  // namespace

ConvertAction CanConvert(const DataType& old_type, const DataType& new_type,
                         const TypeMapping& mapping) {
  if (JavaEqualsIgnoreNullable(old_type, new_type)) {
    // A nullable column cannot become NOT NULL.
    return old_type.nullable() && !new_type.nullable() ? ConvertAction::kException
                                                       : ConvertAction::kConvert;
  }
  const TypeRoot o = old_type.root();
  const TypeRoot n = new_type.root();
  if (o == n && (o == TypeRoot::kArray || o == TypeRoot::kMultiset)) {
    if (old_type.nullable() && !new_type.nullable()) return ConvertAction::kException;
    return CanConvert(*old_type.element(), *new_type.element(), mapping);
  }
  if (o == TypeRoot::kMap && n == TypeRoot::kMap) {
    if (old_type.nullable() && !new_type.nullable()) return ConvertAction::kException;
    // A key type never changes (Java's equals: nullability and field ids included): the hash
    // of equal keys would differ.
    if (!old_type.key()->Equals(*new_type.key())) return ConvertAction::kException;
    return CanConvert(*old_type.value(), *new_type.value(), mapping);
  }
  if (o == TypeRoot::kRow && n == TypeRoot::kRow) return CanConvertRow(old_type, new_type, mapping);

  auto by_length = [](int32_t old_len, int32_t new_len) {
    return old_len <= new_len ? ConvertAction::kConvert : ConvertAction::kIgnore;
  };
  const auto strings = {TypeRoot::kChar, TypeRoot::kVarChar};
  int oi = FamilyIndex(strings, o);
  int ni = FamilyIndex(strings, n);
  if (oi >= 0 && ni >= 0) return by_length(old_type.length(), new_type.length());
  if (oi < 0 && ni >= 0 && mapping.Has(TypeMappingMode::kAllowNonStringToString)) {
    return ConvertAction::kConvert;
  }
  const auto binaries = {TypeRoot::kBinary, TypeRoot::kVarBinary};
  if (FamilyIndex(binaries, o) >= 0 && FamilyIndex(binaries, n) >= 0) {
    return by_length(old_type.length(), new_type.length());
  }
  const auto integers = {TypeRoot::kTinyInt, TypeRoot::kSmallInt, TypeRoot::kInt,
                         TypeRoot::kBigInt};
  oi = FamilyIndex(integers, o);
  ni = FamilyIndex(integers, n);
  if (oi >= 0 && ni >= 0) return oi <= ni ? ConvertAction::kConvert : ConvertAction::kIgnore;
  const auto floats = {TypeRoot::kFloat, TypeRoot::kDouble};
  oi = FamilyIndex(floats, o);
  ni = FamilyIndex(floats, n);
  if (oi >= 0 && ni >= 0) return oi <= ni ? ConvertAction::kConvert : ConvertAction::kIgnore;
  if (o == TypeRoot::kDecimal && n == TypeRoot::kDecimal) {
    // Java's condition: IGNORE only when neither precision nor scale grows; DECIMAL(10, 2) to
    // DECIMAL(9, 3) is a CONVERT (that the catalog may then refuse).
    return new_type.precision() <= old_type.precision() && new_type.scale() <= old_type.scale()
               ? ConvertAction::kIgnore
               : ConvertAction::kConvert;
  }
  if (o == TypeRoot::kTimestamp && n == TypeRoot::kTimestamp) {
    return by_length(old_type.precision(), new_type.precision());
  }
  return ConvertAction::kException;
}

namespace {

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

// One of the changes Java's NestedSchemaUtils.generateNestedColumnUpdates emits for a column.
struct Step {
  enum Kind { kUpdateType, kAddField, kDropField, kComment, kNullability } kind;
  std::vector<std::string> path;  // column first; "element" / "value" step into ARRAY and MAP
  DataTypePtr type;               // kUpdateType, kAddField
  std::optional<std::string> description;  // kAddField, kComment
  std::optional<std::string> after;        // kAddField: nullopt puts it first
  bool nullable = true;                    // kNullability
};

class NestedPlanner {
 public:
  explicit NestedPlanner(const std::string& table) : table_(table) {}

  Status Generate(const std::vector<std::string>& path, const DataType& old_type,
                  const DataType& new_type, std::vector<Step>* steps) const {
    const std::string where = JoinPath(path);
    auto mismatch = [&](const char* what) {
      return Status::Invalid("Cannot update field ", where, " of Paimon table ", table_, " from ",
                             old_type.ToString(), " to ", new_type.ToString(), ": a ", what,
                             " column changes only into a ", what);
    };
    switch (old_type.root()) {
      case TypeRoot::kRow: {
        if (new_type.root() != TypeRoot::kRow) return mismatch("ROW");
        std::map<std::string, size_t> old_index;
        for (size_t i = 0; i < old_type.fields().size(); ++i) {
          old_index[old_type.fields()[i].name] = i;
        }
        // Fields both rows have keep their order.
        int last = -1;
        std::string last_name;
        for (const DataField& f : new_type.fields()) {
          auto it = old_index.find(f.name);
          if (it == old_index.end()) continue;
          if (static_cast<int>(it->second) <= last) {
            return Status::Invalid("Cannot update field ", where, " of Paimon table ", table_,
                                   ": its fields ", last_name, " and ", f.name,
                                   " changed their order");
          }
          last = static_cast<int>(it->second);
          last_name = f.name;
        }
        std::set<std::string> new_names;
        for (const DataField& f : new_type.fields()) new_names.insert(f.name);
        for (const DataField& f : old_type.fields()) {
          if (!new_names.count(f.name)) {
            Step s{Step::kDropField, path, nullptr, std::nullopt, std::nullopt};
            s.path.push_back(f.name);
            steps->push_back(std::move(s));
          }
        }
        for (size_t i = 0; i < new_type.fields().size(); ++i) {
          const DataField& f = new_type.fields()[i];
          std::vector<std::string> sub = path;
          sub.push_back(f.name);
          auto it = old_index.find(f.name);
          if (it == old_index.end()) {
            std::optional<std::string> after;
            if (i > 0) after = new_type.fields()[i - 1].name;
            steps->push_back(Step{Step::kAddField, sub, f.type, f.description, after});
            continue;
          }
          const DataField& old_field = old_type.fields()[it->second];
          if (old_field.description != f.description) {
            steps->push_back(Step{Step::kComment, sub, nullptr, f.description, std::nullopt});
          }
          FJORD_RETURN_NOT_OK(Generate(sub, *old_field.type, *f.type, steps));
        }
        break;
      }
      case TypeRoot::kArray:
      case TypeRoot::kMultiset: {
        if (new_type.root() != old_type.root()) {
          return mismatch(old_type.root() == TypeRoot::kArray ? "ARRAY" : "MULTISET");
        }
        std::vector<std::string> sub = path;
        sub.push_back("element");
        FJORD_RETURN_NOT_OK(Generate(sub, *old_type.element(), *new_type.element(), steps));
        break;
      }
      case TypeRoot::kMap: {
        if (new_type.root() != TypeRoot::kMap) return mismatch("MAP");
        if (!old_type.key()->Equals(*new_type.key())) {
          return Status::Invalid("Cannot update the key type of field ", where, " of Paimon table ",
                                 table_, " from ", old_type.key()->ToString(), " to ",
                                 new_type.key()->ToString());
        }
        std::vector<std::string> sub = path;
        sub.push_back("value");
        FJORD_RETURN_NOT_OK(Generate(sub, *old_type.value(), *new_type.value(), steps));
        break;
      }
      default:
        if (!JavaEqualsIgnoreNullable(old_type, new_type)) {
          steps->push_back(
              Step{Step::kUpdateType, path, new_type.WithNullable(new_type.nullable())});
        }
        break;
    }
    if (old_type.nullable() != new_type.nullable()) {
      Step s{Step::kNullability, path, nullptr, std::nullopt, std::nullopt};
      s.nullable = new_type.nullable();
      steps->push_back(std::move(s));
    }
    return Status::OK();
  }

  // `type` with the part at `rel` (a path inside the column: field names, "element", "value")
  // replaced by what `fn` makes of it.
  Result<DataTypePtr> Replace(
      const DataTypePtr& type, const std::vector<std::string>& rel, size_t i,
      const std::function<Result<DataTypePtr>(const DataTypePtr&)>& fn) const {
    if (i == rel.size()) return fn(type);
    switch (type->root()) {
      case TypeRoot::kRow: {
        std::vector<DataField> fields = type->fields();
        for (DataField& f : fields) {
          if (f.name != rel[i]) continue;
          FJORD_ASSIGN_OR_RAISE(f.type, Replace(f.type, rel, i + 1, fn));
          return DataType::Row(std::move(fields), type->nullable());
        }
        break;
      }
      case TypeRoot::kArray:
        if (rel[i] != "element") break;
        {
          FJORD_ASSIGN_OR_RAISE(DataTypePtr e, Replace(type->element(), rel, i + 1, fn));
          return DataType::Array(e, type->nullable());
        }
      case TypeRoot::kMultiset:
        // Java's schema manager finds no column below a MULTISET ("Column m.element does not
        // exist"), so a change inside one fails the Java job.
        return Status::Invalid("Cannot change the element of ", type->ToString(),
                               " in Paimon table ", table_,
                               ": Java Paimon's schema manager does not reach inside a MULTISET");
      case TypeRoot::kMap:
        if (rel[i] != "value") break;
        {
          FJORD_ASSIGN_OR_RAISE(DataTypePtr v, Replace(type->value(), rel, i + 1, fn));
          return DataType::Map(type->key(), v, type->nullable());
        }
      default:
        break;
    }
    return Status::Invalid("field ", rel[i], " not found in ", type->ToString(), " of table ",
                           table_);
  }

  // The ROW holding the step's last field, changed by `fn`.
  Result<DataTypePtr> ChangeParentRow(
      const DataTypePtr& column_type, const std::vector<std::string>& path,
      const std::function<Status(std::vector<DataField>*)>& fn) const {
    std::vector<std::string> rel(path.begin() + 1, path.end() - 1);
    return Replace(column_type, rel, 0, [&](const DataTypePtr& row) -> Result<DataTypePtr> {
      if (row->root() != TypeRoot::kRow) {
        return Status::Invalid("field ", JoinPath(path), " of table ", table_,
                               " is not inside a ROW");
      }
      std::vector<DataField> fields = row->fields();
      FJORD_RETURN_NOT_OK(fn(&fields));
      return DataType::Row(std::move(fields), row->nullable());
    });
  }

 private:
  const std::string& table_;
};

}  // namespace

Result<SchemaChangePlan> PlanSchemaChange(const std::vector<DataField>& fields,
                                          const std::optional<std::string>& comment,
                                          const CdcRecord& record, const TypeMapping& mapping,
                                          bool case_sensitive, const std::string& table) {
  SchemaChangePlan plan;
  NestedPlanner nested(table);
  std::map<std::string, const DataField*> by_name;
  for (const DataField& f : fields) by_name[f.name] = &f;
  std::set<std::string> named;  // the record's names as matched
  const bool allow_decimal_change = !mapping.Has(TypeMappingMode::kDecimalNoChange);

  for (const CdcColumn& column : record.columns) {
    // Java lower-cases the record's names when the catalog is not case-sensitive; the table's
    // names are already lower-case then.
    if (!column.type) {
      return Status::Invalid("record column ", column.name, " for Paimon table ", table,
                             " has no type");
    }
    const std::string name = case_sensitive ? column.name : Lower(column.name);
    if (!named.insert(name).second) continue;  // a second column of the same name adds nothing
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      // Java's SchemaManager refuses a NOT NULL column: old rows have no value for it.
      if (!column.type->nullable()) {
        return Status::Invalid("Column ", name, " cannot specify NOT NULL in the ", table,
                               " table: the record has it as ", column.type->ToString());
      }
      plan.add_columns.push_back(DataField{-1, name, column.type, column.description, {}});
      continue;
    }
    const DataField& old_field = *it->second;
    // Nullability of the column itself is not compared (a primary key is NOT NULL in the table
    // and may be nullable in the source), nor are field ids (the record's are new).
    if (JavaEqualsIgnoreFieldId(*old_field.type->WithNullable(true),
                                *column.type->WithNullable(true))) {
      if (column.description && column.description != old_field.description) {
        plan.column_comments.emplace_back(name, *column.description);
      }
      continue;
    }
    if (old_field.type->root() == TypeRoot::kDecimal && !allow_decimal_change) continue;

    std::vector<Step> steps;
    FJORD_RETURN_NOT_OK(nested.Generate({name}, *old_field.type, *column.type, &steps));
    DataTypePtr current = old_field.type;
    std::vector<ColumnStep> applied;
    bool ignored = false;
    for (const Step& step : steps) {
      const std::string where = JoinPath(step.path);
      switch (step.kind) {
        case Step::kUpdateType: {
          // Java decides every step by canConvert of the whole column as the table has it now.
          switch (CanConvert(*current, *column.type, mapping)) {
            case ConvertAction::kConvert: {
              std::vector<std::string> rel(step.path.begin() + 1, step.path.end());
              DataTypePtr target = step.type;
              FJORD_ASSIGN_OR_RAISE(
                  current,
                  nested.Replace(current, rel, 0, [&](const DataTypePtr&) -> Result<DataTypePtr> {
                    return target;
                  }));
              applied.push_back(ColumnStep{ColumnStep::kUpdateType, step.path, target});
              break;
            }
            case ConvertAction::kIgnore:
              ignored = true;
              break;
            case ConvertAction::kException:
              return Status::Invalid("Cannot convert field ", name, " from type ",
                                     current->ToString(), " to ", column.type->ToString(),
                                     " of Paimon table ", table, ".");
          }
          break;
        }
        case Step::kAddField: {
          if (!step.type->nullable()) {
            return Status::Invalid("Column ", where, " cannot specify NOT NULL in the ", table,
                                   " table.");
          }
          FJORD_ASSIGN_OR_RAISE(
              current, nested.ChangeParentRow(current, step.path, [&](std::vector<DataField>* row) {
                size_t pos = 0;
                if (step.after) {
                  pos = row->size() + 1;
                  for (size_t i = 0; i < row->size(); ++i) {
                    if ((*row)[i].name == *step.after) pos = i + 1;
                  }
                  if (pos > row->size()) {
                    return Status::Invalid("field ", *step.after, " not found beside ", where,
                                           " of table ", table);
                  }
                }
                row->insert(row->begin() + static_cast<std::ptrdiff_t>(pos),
                            DataField{-1, step.path.back(), step.type, step.description, {}});
                return Status::OK();
              }));
          applied.push_back(ColumnStep{ColumnStep::kAddField, step.path, step.type,
                                       step.description, step.after});
          break;
        }
        case Step::kComment: {
          FJORD_ASSIGN_OR_RAISE(
              current, nested.ChangeParentRow(current, step.path, [&](std::vector<DataField>* row) {
                for (DataField& f : *row) {
                  if (f.name == step.path.back()) f.description = step.description;
                }
                return Status::OK();
              }));
          applied.push_back(ColumnStep{ColumnStep::kComment, step.path, nullptr, step.description});
          break;
        }
        case Step::kDropField:
          return Status::Invalid("Cannot drop nested field ", where, " of Paimon table ", table,
                                 ": the record's ", name, " is ", column.type->ToString(),
                                 " (Java Paimon's CDC sink does not apply the drop and fails)");
        case Step::kNullability:
          return Status::Invalid(
              "Cannot change field ", where, " of Paimon table ", table, " from ",
              step.nullable ? "NOT NULL to nullable" : "nullable to NOT NULL", ": the table has ",
              old_field.type->ToString(), ", the record ", column.type->ToString(),
              " (Java Paimon's CDC sink does not apply a nullability change "
              "and fails)");
      }
    }
    if (!current->Equals(*old_field.type)) {
      plan.alter_types.push_back(
          ColumnTypeChange{name, old_field.type, current, std::move(applied)});
    }
    if (ignored) plan.ignored.push_back(ColumnTypeChange{name, old_field.type, column.type});
    if (column.description && column.description != old_field.description) {
      plan.column_comments.emplace_back(name, *column.description);
    }
  }

  if (record.comment && record.comment != comment) plan.table_comment = record.comment;
  for (const DataField& f : fields) {
    if (!named.count(f.name)) plan.missing_columns.push_back(f.name);
  }
  return plan;
}

}  // namespace fjord::cdc
