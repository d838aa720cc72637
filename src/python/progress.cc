// PythonProgress: library progress reports into a Python callable.
#include "python/progress.h"

namespace vexfs::python {

namespace py = pybind11;

PythonProgress::PythonProgress(py::object callback) : callback_(std::move(callback)) {
  if (!callback_.is_none() && !PyCallable_Check(callback_.ptr())) {
    throw py::type_error("progress must be a callable taking (done, total), or None");
  }
}

ProgressFn PythonProgress::Fn() {
  if (callback_.is_none()) return nullptr;
  return [this](uint64_t done, uint64_t total) {
    py::gil_scoped_acquire gil;
    if (raised_) return;
    try {
      callback_(done, total);
    } catch (py::error_already_set& e) {
      raised_.emplace(std::move(e));
    }
  };
}

void PythonProgress::Rethrow() {
  if (raised_) {
    py::error_already_set e = std::move(*raised_);
    raised_.reset();
    throw e;
  }
}

}  // namespace vexfs::python
