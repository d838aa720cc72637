// How a failed VexFS call reaches Python: the bindings throw StatusError (with
// or without the GIL held), and the translator that RegisterErrors installs
// raises the class of vexfs.errors that matches the status code, with the
// status message. The classes are Python code (python/vexfs/errors.py), so
// users subclass and catch them like any other exception.
#ifndef VEXFS_PYTHON_ERRORS_H_
#define VEXFS_PYTHON_ERRORS_H_

#include <pybind11/pybind11.h>

#include <exception>
#include <utility>

#include "vexfs/status.h"

namespace vexfs::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return status_.message().c_str(); }

 private:
  Status status_;
};

// Throws StatusError for a failed status; does nothing for ok.
inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

// The value of `result`, or StatusError with its failure.
template <typename T>
T Take(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Imports vexfs.errors and installs the translator. Called once at module import.
void RegisterErrors();

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_ERRORS_H_
