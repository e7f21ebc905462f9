// fjord._fjord.Catalog: the filesystem catalog (include/fjord/catalog.h).
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common.h"
#include "fjord/data_type.h"
#include "handles.h"

namespace fjord::python {

namespace {

// (name, Paimon type text, comment) as fjord/_types.py spells an Arrow schema.
using ColumnSpec = std::tuple<std::string, std::string, std::optional<std::string>>;

TableIdentifier ParseId(const std::string& name) { return Unwrap(TableIdentifier::Parse(name)); }

std::vector<DataField> Fields(const std::vector<ColumnSpec>& columns) {
  std::vector<DataField> fields;
  for (const auto& [name, type_text, comment] : columns) {
    auto type = ParseDataType(type_text);
    if (!type.ok()) throw StatusError(type.status().WithContext("column '", name, "'"));
    DataField field;
    field.id = static_cast<int32_t>(fields.size());
    field.name = name;
    field.type = *type;
    field.description = comment;
    fields.push_back(std::move(field));
  }
  return fields;
}

}  // namespace

void BindCatalog(nb::module_& m) {
  nb::class_<PyCatalog>(m, "Catalog")
      .def_static(
          "open",
          [](const std::string& warehouse, std::map<std::string, std::string> options) {
            return PyCatalog{std::shared_ptr<Catalog>(Unwrap(Catalog::Open(warehouse, options)))};
          },
          nb::arg("warehouse"), nb::arg("options"))
      .def_prop_ro("warehouse", [](const PyCatalog& c) { return c.catalog->warehouse(); })
      .def_prop_ro("options", [](const PyCatalog& c) { return c.catalog->options(); })
      .def("create_database",
           [](PyCatalog& c, const std::string& name, bool ignore_if_exists) {
             Check(c.catalog->CreateDatabase(name, ignore_if_exists));
           })
      .def("list_databases", [](const PyCatalog& c) { return Unwrap(c.catalog->ListDatabases()); })
      .def("drop_database",
           [](PyCatalog& c, const std::string& name, bool ignore_if_not_exists, bool cascade) {
             Check(c.catalog->DropDatabase(name, ignore_if_not_exists, cascade));
           })
      .def("create_table",
           [](PyCatalog& c, const std::string& name, const std::vector<ColumnSpec>& columns,
              std::vector<std::string> partition_keys, std::vector<std::string> primary_keys,
              std::vector<std::pair<std::string, std::string>> options,
              std::optional<std::string> comment, bool ignore_if_exists) {
             TableSpec spec;
             spec.fields = Fields(columns);
             spec.partition_keys = std::move(partition_keys);
             spec.primary_keys = std::move(primary_keys);
             spec.options = std::move(options);
             spec.comment = std::move(comment);
             Check(c.catalog->CreateTable(ParseId(name), spec, ignore_if_exists));
           })
      .def("list_tables",
           [](const PyCatalog& c, const std::string& database) {
             return Unwrap(c.catalog->ListTables(database));
           })
      .def("drop_table",
           [](PyCatalog& c, const std::string& name, bool ignore_if_not_exists) {
             Check(c.catalog->DropTable(ParseId(name), ignore_if_not_exists));
           })
      .def("table_path",
           [](const PyCatalog& c, const std::string& name) {
             return c.catalog->TablePath(ParseId(name));
           })
      .def("set_options",
           [](PyCatalog& c, const std::string& name, std::map<std::string, std::string> set,
              std::vector<std::string> remove) {
             std::vector<SchemaChange> changes;
             for (auto& [k, v] : set) changes.push_back(SchemaChange::SetOption(k, v));
             for (auto& k : remove) changes.push_back(SchemaChange::RemoveOption(k));
             Check(c.catalog->AlterTable(ParseId(name), changes));
           })
      .def("get_table", [](const PyCatalog& c, const std::string& name) {
        return PyTable{std::shared_ptr<Table>(Unwrap(c.catalog->GetTable(ParseId(name))))};
      });
}

}  // namespace fjord::python
