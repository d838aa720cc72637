// vexfs.Store's file calls: write, read, list, stat, metadata, mkdir, remove,
// move. Paths are '/'-separated and relative to the tree's root ("" and "/" name
// the root); reads take `at`, a snapshot name or id, to read that snapshot
// instead of the working tree.
#include <pybind11/stl.h>

#include "python/errors.h"
#include "python/py_store.h"
#include "python/text.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;
using py::arg;

using Meta = std::map<std::string, std::string>;

py::bytes Read(const PyStore& s, const std::string& path, uint64_t offset,
               std::optional<uint64_t> length, const std::optional<std::string>& at) {
  auto open = s.Live();
  std::string bytes =
      Take(WithoutGil([&] { return open->Read(path, offset, length, at.value_or("")); }));
  return py::bytes(bytes);
}

py::str ReadText(const PyStore& s, const std::string& path, const std::optional<std::string>& at) {
  auto open = s.Live();
  std::string bytes =
      Take(WithoutGil([&] { return open->Read(path, 0, std::nullopt, at.value_or("")); }));
  return StrictText(bytes);
}

}  // namespace

void BindStoreFiles(py::class_<PyStore>& cls) {
  cls.def("write",
          Unlocked(+[](OpenStore& o, std::string path, std::string data, std::optional<Meta> meta) {
            return o.Write(path, data, meta.value_or(Meta{}));
          }),
          arg("path"), arg("data"), py::kw_only(), arg("meta") = py::none(),
          "Creates or replaces the file at `path` with `data` (bytes, or str stored as UTF-8),\n"
          "making missing parent directories. meta: metadata keys and values for search's\n"
          "`where`, set in the same transaction (other keys of a replaced file stay).\n"
          "The file is queued for search in the same transaction.")
      .def("read", &Read, arg("path"), py::kw_only(), arg("offset") = 0, arg("length") = py::none(),
           arg("at") = py::none(),
           "The file's bytes: `length` bytes from `offset` (default: to the end), fewer only at\n"
           "its end. at: read this snapshot instead of the working tree.\n"
           "Raises NotFoundError, ConflictError (a directory), InvalidArgumentError.")
      .def("read_text", &ReadText, arg("path"), py::kw_only(), arg("at") = py::none(),
           "The whole file decoded as UTF-8 (UnicodeDecodeError if it is not).")
      .def("list",
           Unlocked(+[](OpenStore& o, std::string path, std::optional<std::string> at) {
             return o.List(path, at.value_or(""));
           }),
           arg("path") = "", py::kw_only(), arg("at") = py::none(),
           "The entries of a directory, sorted by name.")
      .def("stat",
           Unlocked(+[](OpenStore& o, std::string path, std::optional<std::string> at) {
             return o.Stat(path, at.value_or(""));
           }),
           arg("path"), py::kw_only(), arg("at") = py::none(),
           "What the file, directory or link at `path` is. Raises NotFoundError.")
      .def("exists",
           Unlocked(+[](OpenStore& o, std::string path, std::optional<std::string> at) {
             return o.Exists(path, at.value_or(""));
           }),
           arg("path"), py::kw_only(), arg("at") = py::none(),
           "Whether anything is at `path`.")
      .def("meta",
           Unlocked(+[](OpenStore& o, std::string path, std::optional<std::string> at) {
             return o.Meta(path, at.value_or(""));
           }),
           arg("path"), py::kw_only(), arg("at") = py::none(),
           "The file's metadata keys and values (what search's `where` matches).")
      .def("mkdir",
           Unlocked(+[](OpenStore& o, std::string path, bool parents) {
             return o.MakeDirectory(path, parents);
           }),
           arg("path"), py::kw_only(), arg("parents") = false,
           "Makes a directory; with parents=True also the missing ones above it, and an\n"
           "existing directory is no error. Raises AlreadyExistsError, NotFoundError.")
      .def("remove",
           Unlocked(+[](OpenStore& o, std::string path, bool recursive) {
             return o.Remove(path, recursive);
           }),
           arg("path"), py::kw_only(), arg("recursive") = false,
           "Removes a file or link; a directory (and all in it) only with recursive=True,\n"
           "else ConflictError.")
      .def("move",
           Unlocked(+[](OpenStore& o, std::string from, std::string to, bool replace) {
             return o.Move(from, to, replace);
           }),
           arg("source"), arg("destination"), py::kw_only(), arg("replace") = false,
           "Renames, or moves into `destination` when that is a directory. An existing file\n"
           "there is replaced only with replace=True (else AlreadyExistsError).");
}

}  // namespace vexfs::python
