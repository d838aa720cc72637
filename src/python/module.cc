// vexfs._vexfs: the compiled half of the Python package `vexfs` (python/vexfs/
// holds the rest: the exception classes, the kv module, the type stubs).
#include <pybind11/pybind11.h>

#include "python/errors.h"
#include "python/graph_types.h"
#include "python/kv_module.h"
#include "python/py_store.h"
#include "python/value_types.h"
#include "vexfs/version.h"

PYBIND11_MODULE(_vexfs, m) {
  m.doc() = "VexFS: durable, versioned, searchable memory for AI agents (the compiled part).";
  vexfs::python::RegisterErrors();
  vexfs::python::BindValueTypes(m);
  vexfs::python::BindGraphTypes(m);
  vexfs::python::BindStore(m);
  vexfs::python::BindKv(m);
  m.attr("__version__") = vexfs::Version();
}
