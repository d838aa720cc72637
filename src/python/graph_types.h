// The memory graph's result types as Python classes (GraphNode, GraphEdge,
// Neighborhood, GraphChange, GraphWrite): read-only views of the library's
// structs, each with to_dict() giving the library's one JSON encoding. Ids are
// 32 hex digits; times are integer nanoseconds, None where they have not ended.
#ifndef VEXFS_PYTHON_GRAPH_TYPES_H_
#define VEXFS_PYTHON_GRAPH_TYPES_H_

#include <pybind11/pybind11.h>

namespace vexfs::python {

void BindGraphTypes(pybind11::module_& m);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_GRAPH_TYPES_H_
