// fjord._fjord.scan / plan / StreamReader: batch reads and streaming reads
// (include/fjord/table_read.h, table_stream.h). Rows leave as "arrow_array_stream" capsules.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common.h"
#include "handles.h"

namespace fjord::python {

namespace {

ReadBuilder MakeBuilder(const PyTable& t, const std::optional<std::vector<std::string>>& columns,
                        const std::optional<std::string>& filter,
                        std::optional<int64_t> snapshot_id, const std::optional<std::string>& tag,
                        std::optional<int64_t> timestamp_ms,
                        const std::map<std::string, std::string>& options,
                        const PartitionSpec& partition, std::optional<int64_t> batch_rows) {
  ReadBuilder builder = t.table->NewRead();
  if (columns) builder.Select(*columns);
  if (filter && !filter->empty()) builder.Where(*filter);
  if (!partition.empty()) builder.Partition(partition);
  if (!options.empty()) builder.WithOptions(options);
  if (batch_rows) builder.WithBatchRows(*batch_rows);
  // ReadBuilder takes one of these; fjord/_table.py refuses more than one before calling.
  if (snapshot_id) builder.AtSnapshot(*snapshot_id);
  if (tag) builder.AtTag(*tag);
  if (timestamp_ms) builder.AtTimestamp(*timestamp_ms);
  return builder;
}

// The rows of the current step of a StreamReader as a C stream, ending with the step.
struct StepStream {
  std::shared_ptr<StreamReader> reader;
  std::string error;

  static int GetSchema(ArrowArrayStream* s, ArrowSchema* out) {
    auto* self = static_cast<StepStream*>(s->private_data);
    return self->Report(self->reader->ExportSchema(out));
  }
  static int GetNext(ArrowArrayStream* s, ArrowArray* out) {
    auto* self = static_cast<StepStream*>(s->private_data);
    return self->Report(self->reader->Next(out));
  }
  static const char* GetLastError(ArrowArrayStream* s) {
    auto* self = static_cast<StepStream*>(s->private_data);
    return self->error.empty() ? nullptr : self->error.c_str();
  }
  static void Release(ArrowArrayStream* s) {
    delete static_cast<StepStream*>(s->private_data);
    s->release = nullptr;
  }
  int Report(const Status& st) {
    if (st.ok()) return 0;
    error = st.ToString();
    return EIO;
  }
};

struct PyStream {
  std::shared_ptr<StreamReader> reader;
};

}  // namespace

void BindRead(nb::module_& m) {
  m.def("scan", [](const PyTable& t, std::optional<std::vector<std::string>> columns,
                   std::optional<std::string> filter, std::optional<int64_t> snapshot_id,
                   std::optional<std::string> tag, std::optional<int64_t> timestamp_ms,
                   std::map<std::string, std::string> options, PartitionSpec partition,
                   std::optional<int64_t> batch_rows) {
    ReadBuilder builder = MakeBuilder(t, columns, filter, snapshot_id, tag, timestamp_ms, options,
                                      partition, batch_rows);
    ArrowArrayStream stream;
    {
      nb::gil_scoped_release release;
      Check(builder.OpenStream(&stream));
    }
    return StreamCapsule(stream);
  });
  m.def("plan", [](const PyTable& t, std::optional<std::vector<std::string>> columns,
                   std::optional<std::string> filter, std::optional<int64_t> snapshot_id,
                   std::optional<std::string> tag, std::optional<int64_t> timestamp_ms,
                   std::map<std::string, std::string> options, PartitionSpec partition) {
    ReadBuilder builder = MakeBuilder(t, columns, filter, snapshot_id, tag, timestamp_ms, options,
                                      partition, std::nullopt);
    ReadPlan plan;
    {
      nb::gil_scoped_release release;
      plan = Unwrap(builder.Plan());
    }
    nb::list files;
    for (const auto& f : plan.files) {
      nb::dict d;
      d["partition"] = f.partition;
      d["bucket"] = f.bucket;
      d["file_name"] = f.file_name;
      d["level"] = f.level;
      d["row_count"] = f.row_count;
      d["file_size"] = f.file_size;
      d["has_deletion_vector"] = f.has_deletion_vector;
      files.append(d);
    }
    nb::dict d;
    d["snapshot_id"] = plan.snapshot_id ? nb::cast(*plan.snapshot_id) : nb::none();
    d["splits"] = plan.splits;
    d["files"] = files;
    return d;
  });

  nb::class_<PyStream>(m, "StreamReader")
      .def_static(
          "open",
          [](const PyTable& t, std::optional<std::vector<std::string>> columns,
             std::optional<std::string> filter, std::map<std::string, std::string> options) {
            ReadBuilder builder = MakeBuilder(t, columns, filter, std::nullopt, std::nullopt,
                                              std::nullopt, options, {}, std::nullopt);
            return PyStream{Unwrap(builder.OpenStreaming())};
          })
      // ("changes" | "wait" | "end", snapshot id, whether the step is the starting full read).
      .def("next_step",
           [](PyStream& s) {
             StreamStep step;
             {
               nb::gil_scoped_release release;
               step = Unwrap(s.reader->NextStep());
             }
             const char* kind = step.kind == StreamStep::Kind::kChanges ? "changes"
                                : step.kind == StreamStep::Kind::kWait  ? "wait"
                                                                        : "end";
             return std::make_tuple(std::string(kind), step.snapshot_id, step.full);
           })
      .def("step_stream",
           [](PyStream& s) {
             ArrowArrayStream stream;
             stream.get_schema = &StepStream::GetSchema;
             stream.get_next = &StepStream::GetNext;
             stream.get_last_error = &StepStream::GetLastError;
             stream.release = &StepStream::Release;
             stream.private_data = new StepStream{s.reader, {}};
             return StreamCapsule(stream);
           })
      .def("checkpoint", [](const PyStream& s) { return s.reader->Checkpoint(); })
      .def("restore", [](PyStream& s, std::optional<int64_t> next) { s.reader->Restore(next); })
      .def("commit_progress", [](PyStream& s) { Check(s.reader->CommitProgress()); })
      .def_prop_ro("discovery_interval_ms", [](const PyStream& s) {
        return static_cast<int64_t>(s.reader->discovery_interval().count());
      });
}

}  // namespace fjord::python
