// fjord._fjord.TableWrite, TableCommit and CommitMessages: the two phases of a write
// (include/fjord/table_write.h, table_commit.h).
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common.h"
#include "handles.h"

namespace fjord::python {

namespace {

nb::dict ResultDict(const CommitResult& r) {
  nb::dict d;
  d["snapshot_id"] = r.snapshot_id ? nb::cast(*r.snapshot_id) : nb::none();
  d["snapshots"] = r.snapshots;
  d["already_committed"] = r.already_committed;
  d["attempts"] = r.attempts;
  return d;
}

}  // namespace

void BindWrite(nb::module_& m) {
  m.attr("BATCH_COMMIT_IDENTIFIER") = kBatchCommitIdentifier;
  m.def("new_commit_user", &NewCommitUser);

  nb::class_<CommitMessages>(m, "CommitMessages")
      .def(nb::init<>())
      .def("serialize",
           [](const CommitMessages& c) {
             std::string bytes = Unwrap(c.Serialize());
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def_static("deserialize",
                  [](nb::bytes bytes, const std::string& source) {
                    return Unwrap(CommitMessages::Deserialize(
                        std::string_view(bytes.c_str(), bytes.size()), source));
                  })
      .def("append", &CommitMessages::Append)
      .def("__len__", &CommitMessages::size)
      .def_prop_ro("new_row_count", &CommitMessages::new_row_count)
      .def_prop_ro("new_file_count", &CommitMessages::new_file_count);

  nb::class_<PyWrite>(m, "TableWrite")
      .def_static(
          "create",
          [](const PyTable& t, std::map<std::string, std::string> options, bool for_overwrite) {
            WriteOptions o;
            o.dynamic_options = std::move(options);
            o.for_overwrite = for_overwrite;
            return PyWrite{t.table, Unwrap(t.table->NewWrite(o))};
          })
      // Writes every batch of an "arrow_array_stream" capsule.
      .def("write",
           [](PyWrite& w, nb::handle capsule) {
             ArrowArrayStream stream = TakeStream(capsule);
             nb::gil_scoped_release release;
             Check(w.write->Write(&stream));
           })
      .def("prepare_commit",
           [](PyWrite& w, int64_t identifier) {
             nb::gil_scoped_release release;
             return Unwrap(w.write->PrepareCommit(identifier, true));
           })
      .def_prop_ro("records_written",
                   [](const PyWrite& w) { return w.write->metrics().records_written; })
      .def_prop_ro("files_written",
                   [](const PyWrite& w) { return w.write->metrics().files_written; });

  nb::class_<PyCommit>(m, "TableCommit")
      .def_static("create",
                  [](const PyTable& t, std::string user, std::map<std::string, std::string> options,
                     bool check_committed) {
                    CommitOptions o;
                    o.dynamic_options = std::move(options);
                    o.check_committed = check_committed;
                    return PyCommit{Unwrap(t.table->NewCommit(std::move(user), o))};
                  })
      .def_prop_ro("commit_user", [](const PyCommit& c) { return c.commit->commit_user(); })
      .def("commit",
           [](PyCommit& c, const CommitMessages& messages, int64_t identifier) {
             CommitResult r;
             {
               nb::gil_scoped_release release;
               r = Unwrap(c.commit->Commit(messages, identifier));
             }
             return ResultDict(r);
           })
      .def("overwrite",
           [](PyCommit& c, const CommitMessages& messages, int64_t identifier,
              std::optional<PartitionSpec> partition) {
             CommitResult r;
             {
               nb::gil_scoped_release release;
               r = Unwrap(c.commit->Overwrite(messages, identifier, partition));
             }
             return ResultDict(r);
           })
      .def("truncate",
           [](PyCommit& c, int64_t identifier) {
             CommitResult r;
             {
               nb::gil_scoped_release release;
               r = Unwrap(c.commit->Truncate(identifier));
             }
             return ResultDict(r);
           })
      .def("close", [](PyCommit& c) {
        nb::gil_scoped_release release;
        Check(c.commit->Close());
      });
}

}  // namespace fjord::python
