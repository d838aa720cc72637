// The library's one JSON encoding of results (vexfs/json.h) as Python values:
// what every result type's to_dict() returns, so a Python program reads the same
// fields, with the same names, as `vexfs --json` and the MCP server print.
#ifndef VEXFS_PYTHON_JSON_VALUE_H_
#define VEXFS_PYTHON_JSON_VALUE_H_

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

namespace vexfs::python {

// dict, list, str, int, float, bool or None. Needs the GIL.
pybind11::object ToPython(const nlohmann::json& value);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_JSON_VALUE_H_
