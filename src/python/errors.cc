// The translator from StatusError to the exception classes of vexfs.errors.
#include "python/errors.h"

#include <array>

namespace vexfs::python {
namespace {

namespace py = pybind11;

// The class of vexfs.errors each status code raises; the codes a class groups
// stay visible in the exception's `code` attribute.
const char* ClassNameOf(StatusCode code) {
  switch (code) {
    case StatusCode::kNotFound: return "NotFoundError";
    case StatusCode::kCorruption: return "CorruptionError";
    case StatusCode::kIOError: return "StorageError";
    case StatusCode::kNoSpace: return "NoSpaceError";
    case StatusCode::kInvalidArgument:
    case StatusCode::kNameTooLong:
    case StatusCode::kFileTooLarge: return "InvalidArgumentError";
    case StatusCode::kAlreadyExists: return "AlreadyExistsError";
    case StatusCode::kNotEmpty:
    case StatusCode::kNotDirectory:
    case StatusCode::kIsDirectory: return "ConflictError";
    case StatusCode::kReadOnly: return "ReadOnlyError";
    case StatusCode::kBusy: return "BusyError";
    case StatusCode::kNotSupported: return "NotSupportedError";
    case StatusCode::kPermissionDenied: return "PermissionDeniedError";
    case StatusCode::kOk: break;
  }
  return "Error";
}

// The vexfs.errors module, kept for the life of the interpreter: the translator
// runs until the very end, so the reference is deliberately never released.
py::handle errors_module;

void Raise(const Status& status) {
  py::object cls = errors_module.attr(ClassNameOf(status.code()));
  py::object error = cls(status.message(), StatusCodeName(status.code()));
  PyErr_SetObject(cls.ptr(), error.ptr());
}

}  // namespace

void RegisterErrors() {
  errors_module = py::module_::import("vexfs.errors").release();
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const StatusError& e) {
      Raise(e.status());
    }
  });
}

}  // namespace vexfs::python
