// vexfs.kv's bindings: KV-cache capture, restore and verification through llama.cpp.
#ifndef VEXFS_PYTHON_KV_MODULE_H_
#define VEXFS_PYTHON_KV_MODULE_H_

#include <pybind11/pybind11.h>

namespace vexfs::python {

void BindKv(pybind11::module_& m);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_KV_MODULE_H_
