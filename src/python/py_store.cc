// vexfs.Store: create/open/close and the context-manager protocol; the calls
// themselves are bound by theme in py_store_*.cc.
#include "python/py_store.h"

#include <pybind11/stl.h>

#include <chrono>
#include <thread>

#include "python/errors.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;
using py::arg;

std::unique_ptr<PyStore> OpenPyStore(const std::string& path, const OpenOptions& options) {
  auto open = WithoutGil([&] { return OpenStore::Open(path, options); });
  return std::make_unique<PyStore>(Take(std::move(open)));
}

std::unique_ptr<PyStore> CreateStore(const std::string& path, uint64_t map_size, bool sync,
                                     bool background_indexing) {
  OpenOptions options;
  options.create = true;
  options.map_size = map_size;
  options.sync = sync;
  options.background_indexing = background_indexing;
  return OpenPyStore(path, options);
}

std::unique_ptr<PyStore> OpenExisting(const std::string& path, bool read_only, bool sync,
                                      uint64_t map_size, const std::optional<std::string>& branch,
                                      bool background_indexing) {
  OpenOptions options;
  options.read_only = read_only;
  options.sync = sync;
  options.map_size = map_size;
  options.background_indexing = background_indexing;
  options.branch = branch.value_or("");
  return OpenPyStore(path, options);
}

}  // namespace

std::shared_ptr<OpenStore> PyStore::Live() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_) throw StatusError(Status::InvalidArgument("the store at '" + path_ + "' is closed"));
  return open_;
}

void PyStore::Close() {
  std::weak_ptr<OpenStore> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running = open_;
    open_.reset();
  }
  // Calls of other threads still hold the store: wait for them (without the GIL,
  // which they need to return), so that once close() returns this handle has let
  // go of the store and the process may open it again.
  WithoutGil([&] {
    while (!running.expired()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
}

bool PyStore::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_ == nullptr;
}

void BindStore(py::module_& m) {
  py::class_<PyStore> cls(m, "Store", R"(A VexFS store: durable, versioned, searchable files in one directory.

Every call is one atomic transaction, durable when it returns (unless opened
with sync=False). Calls release the GIL, and a Store may be used from many
threads at once; other processes (the CLI, a mount, `vexfs mcp`) may use the
same store at the same time. Failures raise vexfs.Error subclasses.)");
  cls.def_static("create", &CreateStore, arg("path"), py::kw_only(), arg("map_size") = 0,
                 arg("sync") = true, arg("background_indexing") = true,
                 "Creates a new store in `path` (a new or empty directory) and opens it.\n"
                 "map_size: the most it may hold, in bytes (0: 256 GiB of address space).\n"
                 "sync=False: calls are durable only after sync().\n"
                 "background_indexing: a thread indexes whatever any process writes while the\n"
                 "store is open (False: search(wait=True) or wait_indexed() index it).\n"
                 "Raises AlreadyExistsError if a store is there.")
      .def_static("open", &OpenExisting, arg("path"), py::kw_only(), arg("read_only") = false,
                  arg("sync") = true, arg("map_size") = 0, arg("branch") = py::none(),
                  arg("background_indexing") = true,
                  "Opens an existing store. branch: the branch every call works on (default: the\n"
                  "checked-out one, followed as it changes). read_only: writes raise ReadOnlyError.\n"
                  "background_indexing: as for create().\n"
                  "Raises NotFoundError if `path` holds no store, BusyError if this process has\n"
                  "it open already (LMDB allows one open per process: share the Store between\n"
                  "threads, and use on_branch() for another branch).")
      .def("close", &PyStore::Close,
           "Closes the store, after the calls still running in other threads finish; later\n"
           "calls raise InvalidArgumentError. Handles from on_branch() stay open (the store\n"
           "closes with the last of them). Closing twice is allowed.")
      .def_property_readonly("closed", &PyStore::closed)
      .def_property_readonly("path", &PyStore::path, "The store's directory.")
      .def_property_readonly(
          "read_only", [](const PyStore& s) { return s.Live()->read_only(); })
      .def_property_readonly(
          "branch",
          [](const PyStore& s) -> std::optional<std::string> {
            const std::string& branch = s.Live()->branch();
            if (branch.empty()) return std::nullopt;
            return branch;
          },
          "The branch calls work on, or None: the checked-out one, followed as it changes.")
      .def(
          "on_branch",
          [](const PyStore& s, const std::string& branch) {
            auto open = s.Live();
            auto other = WithoutGil([&] { return open->OnBranch(branch); });
            return std::make_unique<PyStore>(Take(std::move(other)));
          },
          arg("branch"),
          "The same store with its calls on `branch` (a store is opened once per process;\n"
          "this is how to work on two branches at once). Closing one leaves the other open.\n"
          "Raises NotFoundError for an unknown branch.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyStore& s, py::args) { s.Close(); })
      .def("__repr__", [](const PyStore& s) {
        return "vexfs.Store('" + s.path() + "'" + (s.closed() ? ", closed" : "") + ")";
      });
  BindStoreFiles(cls);
  BindStoreSearch(cls);
  BindStoreVersions(cls);
  BindStoreGraph(cls);
}

}  // namespace vexfs::python
