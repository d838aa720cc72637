// The result types of vexfs.Store as Python classes (FileStat, Entry, Commit,
// Branch, Change, SearchHit, SearchResult, the maintenance reports): read-only
// views of the library's own structs, each with to_dict() giving the library's
// one JSON encoding.
#ifndef VEXFS_PYTHON_VALUE_TYPES_H_
#define VEXFS_PYTHON_VALUE_TYPES_H_

#include <pybind11/pybind11.h>

namespace vexfs::python {

void BindValueTypes(pybind11::module_& m);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_VALUE_TYPES_H_
