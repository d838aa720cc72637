// The object behind a Python vexfs.Store: an OpenStore that close() lets go of.
// A call takes its own reference to the OpenStore (Live) and then runs without
// the GIL, so close() from one thread never pulls the store from under a call
// running in another: close() waits for those calls to return.
//
// Thread-safety: every method may be called from many threads at once.
#ifndef VEXFS_PYTHON_PY_STORE_H_
#define VEXFS_PYTHON_PY_STORE_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "python/errors.h"
#include "python/open_store.h"

namespace vexfs::python {

class PyStore {
 public:
  explicit PyStore(std::shared_ptr<OpenStore> open)
      : path_(open->store().path()), open_(std::move(open)) {}

  // The open store; StatusError (kInvalidArgument) once closed.
  std::shared_ptr<OpenStore> Live() const;
  void Close();
  bool closed() const;
  const std::string& path() const { return path_; }

 private:
  const std::string path_;
  mutable std::mutex mu_;
  std::shared_ptr<OpenStore> open_;  // guarded by mu_; null once closed
};

// Runs `call` with the GIL released: library calls block on disk, locks and
// other threads, and Python threads must go on meanwhile.
template <typename Call>
auto WithoutGil(Call&& call) {
  pybind11::gil_scoped_release release;
  return call();
}

// A method that runs `call` on the open store without the GIL and returns its
// value (or raises its failure). The argument types are spelled out, so
// pybind11 sees the method's signature.
template <typename T, typename... Args>
auto Unlocked(Result<T> (*call)(OpenStore&, Args...)) {
  return [call](const PyStore& s, Args... args) -> T {
    auto open = s.Live();
    return Take(WithoutGil([&] { return call(*open, args...); }));
  };
}

// The same for calls that return only a Status.
template <typename... Args>
auto Unlocked(Status (*call)(OpenStore&, Args...)) {
  return [call](const PyStore& s, Args... args) {
    auto open = s.Live();
    Check(WithoutGil([&] { return call(*open, args...); }));
  };
}

// The methods of vexfs.Store, by theme (py_store_files.cc, py_store_search.cc,
// py_store_versions.cc, py_store_graph.cc).
void BindStoreFiles(pybind11::class_<PyStore>& cls);
void BindStoreSearch(pybind11::class_<PyStore>& cls);
void BindStoreVersions(pybind11::class_<PyStore>& cls);
void BindStoreGraph(pybind11::class_<PyStore>& cls);  // py_store_graph.cc
// The class itself: opening, closing, and the methods above.
void BindStore(pybind11::module_& m);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_PY_STORE_H_
