// A Python progress callback for a long library call (gc, fsck, indexing):
// progress(done, total) is called with the GIL taken back for the moment of the
// call. The library cannot be stopped part way, so an exception the callback
// raises is kept, later reports are skipped, and Rethrow() raises it once the
// call has returned.
#ifndef VEXFS_PYTHON_PROGRESS_H_
#define VEXFS_PYTHON_PROGRESS_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

#include "vexfs/store.h"

namespace vexfs::python {

class PythonProgress {
 public:
  // `callback`: None, or a callable taking (done, total).
  explicit PythonProgress(pybind11::object callback);
  PythonProgress(const PythonProgress&) = delete;
  PythonProgress& operator=(const PythonProgress&) = delete;

  // The function to give the library (empty for None). Valid while this lives.
  ProgressFn Fn();
  // Raises what the callback raised, if anything. Needs the GIL.
  void Rethrow();

 private:
  pybind11::object callback_;
  std::optional<pybind11::error_already_set> raised_;  // guarded by the GIL
};

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_PROGRESS_H_
