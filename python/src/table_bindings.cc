// fjord._fjord.Table: a table's schema, snapshots, tags and compaction (include/fjord/table.h).
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
#include <vector>

#include "common.h"
#include "fjord/tags.h"
#include "handles.h"

namespace fjord::python {

namespace {

template <typename T>
nb::object Optional(const std::optional<T>& value) {
  return value ? nb::cast(*value) : nb::none();
}

nb::dict SnapshotDict(const SnapshotInfo& s) {
  nb::dict d;
  d["id"] = s.id;
  d["schema_id"] = s.schema_id;
  d["commit_kind"] = s.commit_kind;
  d["commit_user"] = s.commit_user;
  d["commit_identifier"] = s.commit_identifier;
  d["time_millis"] = s.time_millis;
  d["total_record_count"] = Optional(s.total_record_count);
  d["delta_record_count"] = Optional(s.delta_record_count);
  d["changelog_record_count"] = Optional(s.changelog_record_count);
  d["watermark"] = Optional(s.watermark);
  return d;
}

}  // namespace

void BindTable(nb::module_& m) {
  nb::class_<PyTable>(m, "Table")
      .def_static(
          "open",
          [](const std::string& path, const std::map<std::string, std::string>& options) {
            return PyTable{std::shared_ptr<Table>(Unwrap(Table::Open(path, options)))};
          },
          nb::arg("path"), nb::arg("options"))
      .def_prop_ro("path", [](const PyTable& t) { return t.table->path(); })
      .def_prop_ro("schema_id", [](const PyTable& t) { return t.table->schema().id; })
      // (id, name, Paimon type text, comment) per column, in order.
      .def_prop_ro(
          "fields",
          [](const PyTable& t) {
            std::vector<std::tuple<int32_t, std::string, std::string, std::optional<std::string>>>
                out;
            for (const auto& f : t.table->schema().fields) {
              out.emplace_back(f.id, f.name, f.type->ToString(), f.description);
            }
            return out;
          })
      .def_prop_ro("partition_keys",
                   [](const PyTable& t) { return t.table->schema().partition_keys; })
      .def_prop_ro("primary_keys", [](const PyTable& t) { return t.table->schema().primary_keys; })
      .def_prop_ro("options", [](const PyTable& t) { return t.table->schema().options; })
      .def_prop_ro("comment", [](const PyTable& t) { return t.table->schema().comment; })
      .def("option",
           [](const PyTable& t, const std::string& key) { return t.table->options().Get(key); })
      .def("snapshots",
           [](const PyTable& t) {
             nb::list out;
             for (const auto& s : Unwrap(t.table->Snapshots())) out.append(SnapshotDict(s));
             return out;
           })
      .def("latest_snapshot",
           [](const PyTable& t) -> nb::object {
             auto s = Unwrap(t.table->LatestSnapshot());
             return s ? nb::object(SnapshotDict(*s)) : nb::none();
           })
      .def("tags",
           [](const PyTable& t) {
             nb::list out;
             for (const auto& tag : Unwrap(t.table->Tags())) {
               nb::dict d;
               d["name"] = tag.name;
               d["snapshot"] = SnapshotDict(tag.snapshot);
               out.append(d);
             }
             return out;
           })
      .def("create_tag",
           [](const PyTable& t, const std::string& name, std::optional<int64_t> snapshot_id,
              std::optional<std::string> time_retained) {
             CreateTagOptions o;
             o.snapshot_id = snapshot_id;
             o.time_retained = std::move(time_retained);
             Check(CreateTableTag(*t.table, name, o));
           })
      .def("delete_tag",
           [](const PyTable& t, const std::string& name) {
             return Unwrap(DeleteTableTag(*t.table, name));
           })
      .def("compact", [](const PyTable& t, bool full, PartitionSpec partition,
                         std::map<std::string, std::string> options) {
        CompactionOptions o;
        o.full = full;
        o.partition = std::move(partition);
        o.dynamic_options = std::move(options);
        CompactionResult r;
        {
          nb::gil_scoped_release release;
          auto job = Unwrap(t.table->NewCompaction(o));
          r = Unwrap(job->Run());
        }
        nb::dict d;
        d["snapshot_id"] = Optional(r.snapshot_id);
        d["units_scanned"] = r.units_scanned;
        d["units_compacted"] = r.units_compacted;
        d["compactions"] = r.compactions;
        d["files_in"] = r.files_in;
        d["files_out"] = r.files_out;
        d["bytes_in"] = r.bytes_in;
        d["bytes_out"] = r.bytes_out;
        return d;
      });
}

}  // namespace fjord::python
