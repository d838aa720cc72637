// JSON values to Python objects, recursively.
#include "python/json_value.h"

namespace vexfs::python {

namespace py = pybind11;

py::object ToPython(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = ToPython(item);
      return out;
    }
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& item : value) out.append(ToPython(item));
      return out;
    }
    case nlohmann::json::value_t::string: return py::str(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(value.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(value.get<uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(value.get<double>());
    default: return py::none();
  }
}

}  // namespace vexfs::python
