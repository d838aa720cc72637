// Store bytes as Python text. Names and paths are bytes in the store (a mount
// may make names that are not UTF-8) and come to Python as os.fsdecode() gives
// them. Snippets are text the index checked, cut at a character boundary, and
// reprs are for people: in those a byte that is not UTF-8 (should one ever get
// there) shows as U+FFFD. Either way, reading a result never raises.
#ifndef VEXFS_PYTHON_TEXT_H_
#define VEXFS_PYTHON_TEXT_H_

#include <pybind11/pybind11.h>

#include <string>

namespace vexfs::python {

// UTF-8, with other bytes as lone surrogates (surrogateescape). Needs the GIL.
pybind11::str PathText(const std::string& bytes);
// UTF-8 only: other bytes raise UnicodeDecodeError saying where (a file read as
// text). Needs the GIL.
pybind11::str StrictText(const std::string& bytes);
// UTF-8, with other bytes as U+FFFD. Needs the GIL.
pybind11::str SnippetText(const std::string& bytes);

}  // namespace vexfs::python

#endif  // VEXFS_PYTHON_TEXT_H_
