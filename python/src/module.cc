// The native module `fjord._fjord`: thin bindings of Fjord's public C++ API (include/fjord/). The
// Python API of docs/python.md is built over it in python/fjord/*.py.
#include <Python.h>

#include <cstring>
#include <string>

#include "common.h"
#include "fjord/version.h"

namespace fjord::python {

namespace {

// The name of the fjord.errors class raised for `code`.
const char* ErrorClassName(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalid:
      return "InvalidError";
    case StatusCode::kNotFound:
      return "NotFoundError";
    case StatusCode::kAlreadyExists:
      return "AlreadyExistsError";
    case StatusCode::kIOError:
      return "FjordIOError";
    case StatusCode::kCorruption:
      return "CorruptionError";
    case StatusCode::kNotImplemented:
      return "NotSupportedError";
    case StatusCode::kConflict:
      return "ConflictError";
    case StatusCode::kCancelled:
      return "CancelledError";
    default:
      return "InternalError";
  }
}

void RaiseStatus(const Status& status) {
  // The classes live in Python (fjord/errors.py) so that they can derive from the built-in
  // exceptions they resemble (ValueError, LookupError, OSError, NotImplementedError).
  nb::object errors = nb::module_::import_("fjord.errors");
  nb::object cls = errors.attr(ErrorClassName(status.code()));
  nb::object exc = cls(nb::str(status.message().c_str()),
                       nb::str(std::string(StatusCodeName(status.code())).c_str()));
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

void ReleaseCapsule(PyObject* capsule) {
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

}  // namespace

ArrowArrayStream TakeStream(nb::handle capsule) {
  if (!PyCapsule_IsValid(capsule.ptr(), "arrow_array_stream")) {
    throw nb::type_error(
        "expected a PyCapsule named 'arrow_array_stream' (from __arrow_c_stream__)");
  }
  auto* source =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (source->release == nullptr) throw nb::value_error("the Arrow stream was already consumed");
  ArrowArrayStream stream = *source;
  source->release = nullptr;  // moved: the capsule no longer owns it
  return stream;
}

nb::object StreamCapsule(ArrowArrayStream stream) {
  auto* owned = new ArrowArrayStream(stream);
  PyObject* capsule = PyCapsule_New(owned, "arrow_array_stream", ReleaseCapsule);
  if (capsule == nullptr) {
    if (owned->release != nullptr) owned->release(owned);
    delete owned;
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

}  // namespace fjord::python

NB_MODULE(_fjord, m) {
  using namespace fjord::python;
  m.doc() = "Native bindings of Fjord's C++ API; use the `fjord` package instead.";
  m.attr("__fjord_version__") = fjord::FjordVersion();
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      RaiseStatus(e.status());
    }
  });
  BindCatalog(m);
  BindTable(m);
  BindWrite(m);
  BindRead(m);
}
