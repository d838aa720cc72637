// Times as Python callers give them: None, a datetime (a naive one is local
// time, as datetime.timestamp() reads it), seconds since the epoch, or text as
// the CLI takes it ("2026-12-01", "2026-12-01T10:00:00Z", UTC).
#ifndef VEXFS_PYTHON_TIME_ARG_H_
#define VEXFS_PYTHON_TIME_ARG_H_

#include <pybind11/pybind11.h>

#include <optional>

#include "vexfs/types.h"

namespace vexfs::python {

// nullopt for None; raises InvalidArgumentError naming `name` for anything else
// that is not a time. Needs the GIL.
std::optional<TimeNs> TimeOf(const pybind11::object& value, const char* name);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_TIME_ARG_H_
