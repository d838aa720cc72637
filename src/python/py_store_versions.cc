// vexfs.Store's versions and upkeep: snapshots, log, diff, restore, branches,
// gc, fsck, stats, sync. Snapshot and restore act on the store's branch (the
// one chosen at open, else the checked-out one).
#include <pybind11/stl.h>

#include "python/errors.h"
#include "python/progress.h"
#include "python/py_store.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;
using py::arg;

using Meta = std::map<std::string, std::string>;

void BindSnapshots(py::class_<PyStore>& cls) {
  cls.def("snapshot",
          Unlocked(+[](OpenStore& o, std::string name, std::string message, std::optional<Meta> meta) {
            return o.store().CreateSnapshot(name, message, meta.value_or(Meta{}), o.branch());
          }),
          arg("name"), arg("message") = "", py::kw_only(), arg("meta") = py::none(),
          "Snapshots the branch's working tree as `name` (unique in the store) and returns\n"
          "the commit. Only what changed since the last snapshot is written.\n"
          "Raises AlreadyExistsError for a name in use, InvalidArgumentError for a bad one.")
      .def("snapshots", Unlocked(+[](OpenStore& o) { return o.store().ListSnapshots(); }),
           "Every named snapshot, oldest first.")
      .def("resolve",
           Unlocked(+[](OpenStore& o, std::string name) { return o.store().ResolveSnapshot(name); }),
           arg("snapshot"), "The commit a snapshot name or 64-digit id names.")
      .def("tag",
           Unlocked(+[](OpenStore& o, std::string name, std::string existing) {
             return o.store().TagSnapshot(name, existing);
           }),
           arg("name"), arg("snapshot"), "Gives an existing snapshot another name.")
      .def("log",
           Unlocked(+[](OpenStore& o, std::optional<std::string> ref, size_t limit) {
             return o.store().Log(ref.value_or(o.branch()), limit);
           }),
           arg("ref") = py::none(), py::kw_only(), arg("limit") = 0,
           "History from a branch's head or a snapshot (default: the store's branch),\n"
           "newest first; limit=0 means all.")
      .def("diff",
           Unlocked(+[](OpenStore& o, std::string a, std::string b) { return o.Diff(a, b); }),
           arg("a"), arg("b") = "WORKING",
           "What changed from `a` to `b`: snapshot names or ids, or 'WORKING' (the working\n"
           "tree). A removed and an added file with equal content are one rename.")
      .def("restore",
           Unlocked(+[](OpenStore& o, std::string snapshot) {
             return o.store().Restore(snapshot, o.branch());
           }),
           arg("snapshot"),
           "Makes the working tree equal to the snapshot. Destructive: what was written since\n"
           "is replaced (snapshot first to keep it). The branch head does not move.");
}

void BindBranches(py::class_<PyStore>& cls) {
  cls.def("branches", Unlocked(+[](OpenStore& o) { return o.store().ListBranches(); }),
          "Every branch.")
      .def("current_branch", Unlocked(+[](OpenStore& o) { return o.store().CurrentBranch(); }),
           "The checked-out branch.")
      .def("create_branch",
           Unlocked(+[](OpenStore& o, std::string name, std::optional<std::string> from) {
             return o.store().CreateBranch(name, from, o.branch());
           }),
           arg("name"), py::kw_only(), arg("from_snapshot") = py::none(),
           "A new branch from a snapshot, or (none given) from this handle's branch's working\n"
           "tree as it is now (the checked-out branch's, for a handle not made by on_branch).")
      .def("checkout",
           Unlocked(+[](OpenStore& o, std::string name) { return o.store().Checkout(name); }),
           arg("branch"), "Makes `branch` the checked-out one.")
      .def("delete_branch",
           Unlocked(+[](OpenStore& o, std::string name) { return o.store().DeleteBranch(name); }),
           arg("branch"), "Deletes a branch other than the checked-out one.");
}

// gc() and fsck(): long over a large store, so they report progress to an
// optional callable.
template <typename Report>
Report WithProgress(const PyStore& s, py::object progress,
                    Result<Report> (Store::*call)(const ProgressFn&)) {
  PythonProgress reporter(std::move(progress));
  auto open = s.Live();
  ProgressFn fn = reporter.Fn();
  Result<Report> report = WithoutGil([&] { return ((open->store()).*call)(fn); });
  reporter.Rethrow();
  return Take(std::move(report));
}

void BindUpkeep(py::class_<PyStore>& cls) {
  cls.def(
         "gc",
         [](const PyStore& s, py::object progress) { return WithProgress(s, progress, &Store::Gc); },
         py::kw_only(), arg("progress") = py::none(),
         "Deletes every object no branch, snapshot or working tree reaches.\n"
         "progress: called with (done, total) as it goes; an exception it raises is\n"
         "raised once gc has finished.")
      .def(
          "fsck",
          [](const PyStore& s, py::object progress) {
            return WithProgress(s, progress, &Store::Fsck);
          },
          py::kw_only(), arg("progress") = py::none(),
          "Checks every object and reference; problems are reported, never raised.\n"
          "progress: as for gc().")
      .def("stats", Unlocked(+[](OpenStore& o) { return o.store().Stats(); }), "The store's size.")
      .def("sync", Unlocked(+[](OpenStore& o) { return o.store().Sync(); }),
           "Makes every committed call durable (needed only with sync=False).");
}

}  // namespace

void BindStoreVersions(py::class_<PyStore>& cls) {
  BindSnapshots(cls);
  BindBranches(cls);
  BindUpkeep(cls);
}

}  // namespace vexfs::python
