// What every binding unit of the `fjord._fjord` module shares: Fjord's Status and Result turned
// into Python exceptions, and the Arrow C Stream interface's PyCapsules
// (https://arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html), through which
// batches cross between Fjord and pyarrow (or polars, DuckDB, ...) without a copy and without this
// module linking any Arrow library of its own.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "fjord/arrow_c.h"
#include "fjord/result.h"
#include "fjord/status.h"

namespace fjord::python {

namespace nb = nanobind;

// A failed Status on its way to Python; the translator registered in module.cc raises the
// fjord.errors class of its code with Fjord's message.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status status)
      : std::runtime_error(status.message()), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Takes the stream out of a capsule named "arrow_array_stream" (the capsule is left with a
// released stream, so its destructor does nothing). TypeError for anything else.
ArrowArrayStream TakeStream(nb::handle capsule);
// A new "arrow_array_stream" capsule owning `stream` (released with the capsule unless a consumer
// moved it out).
nb::object StreamCapsule(ArrowArrayStream stream);

void BindCatalog(nb::module_& m);
void BindTable(nb::module_& m);
void BindWrite(nb::module_& m);
void BindRead(nb::module_& m);

}  // namespace fjord::python
