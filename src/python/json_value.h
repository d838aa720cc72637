// The library's one JSON encoding of results (vexfs/json.h) as Python values:
// what every result type's to_dict() returns, so a Python program reads the same
// fields, with the same names, as `vexfs --json` and the MCP server print.
#ifndef VEXFS_PYTHON_JSON_VALUE_H_
#define VEXFS_PYTHON_JSON_VALUE_H_

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include <string>

namespace vexfs::python {

// dict, list, str, int, float, bool or None. Needs the GIL.
pybind11::object ToPython(const nlohmann::json& value);
// The reverse, for arguments: dicts with str keys, lists and tuples, str, int,
// float, bool and None. Raises InvalidArgumentError naming `what` for any other
// type. Needs the GIL.
nlohmann::json FromPython(const pybind11::handle& value, const std::string& what);

// Gives a result class `to_dict()`: `encode`'s JSON (one of vexfs/json.h's
// encoders) as Python values, the fields `vexfs --json` prints.
template <typename T, typename Encode>
void AddToDict(pybind11::class_<T>& cls, Encode encode) {
  cls.def("to_dict", [encode](const T& value) { return ToPython(encode(value)); },
          "The value as the CLI's --json prints it (field names in docs/cli.md).");
}

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_JSON_VALUE_H_
