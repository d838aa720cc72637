// Python time arguments (time_arg.h).
#include "python/time_arg.h"

#include <cmath>
#include <string>

#include "python/errors.h"
#include "vexfs/json.h"

namespace vexfs::python {

namespace py = pybind11;

std::optional<TimeNs> TimeOf(const py::object& value, const char* name) {
  if (value.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(value)) {
    auto parsed = ParseTime(value.cast<std::string>());
    if (!parsed.ok()) throw StatusError(parsed.status().WithContext(name));
    return *parsed;
  }
  double seconds = 0;
  if (py::isinstance<py::bool_>(value)) {
    throw StatusError(Status::InvalidArgument(std::string(name) + " must be a time, not a bool"));
  }
  if (py::hasattr(value, "timestamp")) {
    seconds = value.attr("timestamp")().cast<double>();
  } else if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    seconds = value.cast<double>();
  } else {
    throw StatusError(Status::InvalidArgument(
        std::string(name) + " must be a datetime, seconds since the epoch or a date text"));
  }
  if (!std::isfinite(seconds) || std::fabs(seconds) > 9.2e9) {
    throw StatusError(Status::InvalidArgument(std::string(name) + " is out of range"));
  }
  return static_cast<TimeNs>(seconds * 1e9);
}

}  // namespace vexfs::python
