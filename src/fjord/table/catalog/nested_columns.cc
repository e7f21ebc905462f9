#include "fjord/table/catalog/nested_columns.h"

#include <algorithm>
#include <functional>

#include "fjord/format/evolution_cast.h"

namespace fjord {

namespace {

using Kind = SchemaChange::Kind;

// The fields of the ROW at the bottom of `type` (through ARRAY elements and MAP values) into
// `row`, and how many path steps reaching it takes (Java's extractRowDataFields): 1 for the field
// itself plus one per ARRAY / MAP level. `*is_row` tells whether a ROW was found.
size_t RowFieldsOf(const DataType& type, std::vector<DataField>* row, bool* is_row) {
  switch (type.root()) {
    case TypeRoot::kRow:
      *row = type.fields();
      *is_row = true;
      return 1;
    case TypeRoot::kArray:
      return RowFieldsOf(*type.element(), row, is_row) + 1;
    case TypeRoot::kMap:
      return RowFieldsOf(*type.value(), row, is_row) + 1;
    default:
      *is_row = false;
      return 1;
  }
}

// `type` with the ROW at its bottom holding `row` (Java's wrapNewRowType).
DataTypePtr WithRowFields(const DataTypePtr& type, const std::vector<DataField>& row) {
  switch (type->root()) {
    case TypeRoot::kRow:
      return DataType::Row(row, type->nullable());
    case TypeRoot::kArray:
      return DataType::Array(WithRowFields(type->element(), row), type->nullable());
    case TypeRoot::kMap:
      return DataType::Map(type->key(), WithRowFields(type->value(), row), type->nullable());
    default:
      return type;
  }
}

// The type a path of `length` steps names inside `type`, the field at step `depth` (Java's
// getRootType): through ARRAY elements and MAP values.
const DataTypePtr& TypeAt(const DataTypePtr& type, size_t depth, size_t length) {
  if (depth + 1 == length) return type;
  switch (type->root()) {
    case TypeRoot::kArray:
      return TypeAt(type->element(), depth + 1, length);
    case TypeRoot::kMap:
      return TypeAt(type->value(), depth + 1, length);
    default:
      return type;
  }
}

// `type` with the part TypeAt names replaced by `target` (Java's
// getArrayMapTypeWithTargetTypeRoot).
DataTypePtr ReplaceAt(const DataTypePtr& type, const DataTypePtr& target, size_t depth,
                      size_t length) {
  if (depth + 1 == length) return target;
  switch (type->root()) {
    case TypeRoot::kArray:
      return DataType::Array(ReplaceAt(type->element(), target, depth + 1, length),
                             type->nullable());
    case TypeRoot::kMap:
      return DataType::Map(type->key(), ReplaceAt(type->value(), target, depth + 1, length),
                           type->nullable());
    default:
      return target;
  }
}

std::string Prefix(const std::vector<std::string>& path, size_t depth) {
  return JoinFieldPath(std::vector<std::string>(path.begin(), path.begin() + depth + 1));
}

// Java's NestedColumnModifier: walks `path` down from `fields` and calls `last` with the field
// list holding the field the path ends at and that field's step. A path that ends inside an
// ARRAY or MAP without a ROW below (e.g. {"v", "element"} of ARRAY<INT>) ends at the column
// holding them: `last` is called with that column's list and step.
using LastStep = std::function<Status(std::vector<DataField>* fields, size_t depth)>;

Status Walk(const std::vector<std::string>& path, std::vector<DataField>* fields,
            std::vector<DataField>* previous, size_t depth, size_t previous_depth,
            const LastStep& last) {
  if (depth + 1 == path.size()) return last(fields, depth);
  if (depth >= path.size()) return last(previous, previous_depth);
  for (size_t i = 0; i < fields->size(); ++i) {
    if ((*fields)[i].name != path[depth]) continue;
    std::vector<DataField> row;
    bool is_row = false;
    size_t next = depth + RowFieldsOf(*(*fields)[i].type, &row, &is_row);
    if (!is_row && next + 1 == path.size()) {
      // Java looks for the last name among the fields of a ROW that is not there.
      return Status::Invalid(
          "column '", JoinFieldPath(path), "' does not exist: ", Prefix(path, next - 1), " is ",
          TypeAt((*fields)[i].type, depth, next)->ToString(), ", which has no fields");
    }
    FJORD_RETURN_NOT_OK(Walk(path, &row, fields, next, depth, last));
    // The change may have been made to this list itself (a path ending inside an ARRAY or MAP);
    // a field it dropped is not re-wrapped.
    if (i < fields->size() && (*fields)[i].name == path[depth]) {
      DataField& f = (*fields)[i];
      f.type = WithRowFields(f.type, row);
    }
    return Status::OK();
  }
  return Status::Invalid("field ", Prefix(path, depth), " does not exist");
}

DataField* Find(std::vector<DataField>* fields, const std::string& name) {
  for (DataField& f : *fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Status AddField(const SchemaChange& c, const std::vector<std::string>& path,
                std::vector<DataField>* fields, int32_t* highest_field_id) {
  const std::string where = JoinFieldPath(path);
  if (!c.type) return Status::Invalid("new column '", where, "' has no type");
  if (!c.type->nullable()) {
    return Status::Invalid("new column '", where, "' must be nullable: old rows have no value");
  }
  // The field takes the next id, the fields inside its type the ids after it.
  int32_t highest = *highest_field_id;
  DataField field{++highest, "", nullptr, c.comment, std::nullopt};
  field.type = ReassignFieldIds(c.type, &highest);
  FJORD_RETURN_NOT_OK(Walk(path, fields, fields, 0, 0, [&](std::vector<DataField>* row, size_t d) {
    field.name = path[d];
    if (Find(row, field.name)) return Status::Invalid("column '", where, "' already exists");
    auto at = row->end();
    if (c.position == SchemaChange::Position::kFirst) {
      at = row->begin();
    } else if (c.position == SchemaChange::Position::kAfter) {
      at = std::find_if(row->begin(), row->end(),
                        [&](const DataField& f) { return f.name == c.after; });
      if (at == row->end()) {
        return Status::Invalid("cannot add column '", where, "' after '", c.after,
                               "': no such field beside it");
      }
      ++at;
    }
    row->insert(at, field);
    return Status::OK();
  }));
  *highest_field_id = highest;
  return Status::OK();
}

}  // namespace

std::string JoinFieldPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

bool AlterTypeAllowedAsJava(const DataType& from, const DataType& to, bool explicit_casts) {
  if (from.IsNested() && to.IsNested()) return false;
  return AlterTypeAllowed(from, to, explicit_casts);
}

Status ApplyFieldPathChange(const SchemaChange& c, const NestedChangeContext& context,
                            std::vector<DataField>* fields, int32_t* highest_field_id) {
  const std::vector<std::string> path = c.FieldPath();
  if (path.empty() ||
      std::any_of(path.begin(), path.end(), [](const std::string& p) { return p.empty(); })) {
    return Status::Invalid("a column path must not be empty or hold an empty name, got '",
                           JoinFieldPath(path), "'");
  }
  const std::string where = JoinFieldPath(path);
  switch (c.kind) {
    case Kind::kAddColumn:
      return AddField(c, path, fields, highest_field_id);
    case Kind::kDropColumn:
      return Walk(path, fields, fields, 0, 0, [&](std::vector<DataField>* row, size_t d) {
        if (!Find(row, path[d])) return Status::Invalid("column '", where, "' does not exist");
        row->erase(std::remove_if(row->begin(), row->end(),
                                  [&](const DataField& f) { return f.name == path[d]; }),
                   row->end());
        // Java refuses to leave a ROW (or the table) without fields.
        if (row->empty()) {
          return Status::Invalid("cannot drop column '", where, "': it is the only field ",
                                 path.size() == 1 ? "of the table" : "of its ROW");
        }
        return Status::OK();
      });
    case Kind::kRenameColumn:
      return Walk(path, fields, fields, 0, 0, [&](std::vector<DataField>* row, size_t d) {
        DataField* f = Find(row, path[d]);
        if (!f) return Status::Invalid("column '", where, "' does not exist");
        if (c.new_name.empty()) return Status::Invalid("column name must not be empty");
        if (Find(row, c.new_name)) {
          std::vector<std::string> renamed(path.begin(), path.begin() + d);
          renamed.push_back(c.new_name);
          return Status::Invalid("column '", JoinFieldPath(renamed), "' already exists");
        }
        f->name = c.new_name;  // the id stays: old files read under the new name
        return Status::OK();
      });
    case Kind::kUpdateColumnType:
      return Walk(path, fields, fields, 0, 0, [&](std::vector<DataField>* row, size_t d) {
        DataField* f = Find(row, path[d]);
        if (!f) return Status::Invalid("column '", where, "' does not exist");
        if (!c.type) return Status::Invalid("no new type for column '", where, "'");
        const DataTypePtr& from = TypeAt(f->type, d, path.size());
        if (from->nullable() && !c.type->nullable() && context.null_to_not_null_disabled) {
          return Status::Invalid("cannot change column '", where,
                                 "' from NULL to NOT NULL (the table would have to set "
                                 "alter-column-null-to-not-null.disabled = false)");
        }
        if (!AlterTypeAllowedAsJava(*from, *c.type, context.explicit_casts)) {
          bool by_option = !context.explicit_casts && AlterTypeAllowedAsJava(*from, *c.type, true);
          return Status::Invalid(
              "cannot change column '", where, "' from ", from->ToString(), " to ",
              c.type->ToString(),
              by_option ? ": an explicit cast, refused as the table sets "
                          "disable-explicit-type-casting = true"
              : from->IsNested() && c.type->IsNested()
                  ? ": Java Paimon's ALTER TABLE does not allow this type change (no ARRAY, MAP "
                    "or ROW type changes as a whole; change the fields, elements or values inside "
                    "it by their paths)"
                  : ": Java Paimon's ALTER TABLE does not allow this type change");
        }
        f->type = ReplaceAt(f->type, c.type, d, path.size());
        return Status::OK();
      });
    case Kind::kUpdateColumnComment:
      return Walk(path, fields, fields, 0, 0, [&](std::vector<DataField>* row, size_t d) {
        DataField* f = Find(row, path[d]);
        if (!f) return Status::Invalid("column '", where, "' does not exist");
        f->description = c.comment;
        return Status::OK();
      });
    default:
      return Status::Invalid("not a column change");
  }
}

}  // namespace fjord
