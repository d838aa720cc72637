// Decoding store bytes for Python, never failing on bytes that are not UTF-8.
#include "python/text.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;

py::str Decode(const std::string& bytes, const char* errors) {
  PyObject* text =
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<py::ssize_t>(bytes.size()), errors);
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

}  // namespace

py::str PathText(const std::string& bytes) { return Decode(bytes, "surrogateescape"); }

py::str StrictText(const std::string& bytes) { return Decode(bytes, "strict"); }

py::str SnippetText(const std::string& bytes) { return Decode(bytes, "replace"); }

}  // namespace vexfs::python
