// JSON values to Python objects and back, recursively.
#include "python/json_value.h"

#include "python/errors.h"

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

nlohmann::json FromPython(const py::handle& value, const std::string& what) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    nlohmann::json out = nlohmann::json::object();
    for (auto [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) {
        throw StatusError(Status::InvalidArgument(what + ": a key is not a str"));
      }
      std::string name = key.cast<std::string>();
      out[name] = FromPython(item, what + "." + name);
    }
    return out;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json out = nlohmann::json::array();
    size_t i = 0;
    for (py::handle item : value) out.push_back(FromPython(item, what + "[" + std::to_string(i++) + "]"));
    return out;
  }
  throw StatusError(Status::InvalidArgument(what + " is a " + std::string(py::str(value.get_type().attr("__name__"))) +
                                            ", not a JSON value"));
}

}  // namespace vexfs::python
