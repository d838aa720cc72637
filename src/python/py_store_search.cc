// vexfs.Store.search and the index calls. Arguments are checked and turned
// into a SearchRequest with the GIL held; the search itself runs without it.
#include <pybind11/stl.h>

#include "python/errors.h"
#include "python/progress.h"
#include "python/py_store.h"
#include "python/time_arg.h"
#include "vexfs/json.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;
using py::arg;

struct SearchArgs {
  std::string query;
  size_t k = 10;
  std::optional<std::string> mode;
  std::optional<std::string> under;
  std::optional<std::map<std::string, std::string>> where;
  py::object modified_after;
  py::object modified_before;
  std::optional<std::string> at;
  bool passages = false;
  bool snippets = true;
  bool feedback = false;
};

SearchRequest RequestOf(const SearchArgs& a) {
  SearchRequest r;
  r.query = a.query;
  r.k = a.k;
  if (a.mode) r.mode = Take(ParseSearchMode(*a.mode));
  r.under = a.under.value_or("");
  if (a.where) r.where = *a.where;
  r.modified_after = TimeOf(a.modified_after, "modified_after");
  r.modified_before = TimeOf(a.modified_before, "modified_before");
  r.snapshot = a.at.value_or("");
  r.passages = a.passages;
  r.snippets = a.snippets;
  r.feedback = a.feedback;
  return r;
}

SearchResult Search(const PyStore& s, std::string query, size_t k,
                    std::optional<std::string> mode, std::optional<std::string> under,
                    std::optional<std::map<std::string, std::string>> where,
                    py::object modified_after, py::object modified_before,
                    std::optional<std::string> at, bool passages, bool snippets, bool feedback,
                    bool wait) {
  SearchRequest request = RequestOf({std::move(query), k, std::move(mode), std::move(under),
                                     std::move(where), std::move(modified_after),
                                     std::move(modified_before), std::move(at), passages,
                                     snippets, feedback});
  auto open = s.Live();
  return Take(WithoutGil([&] { return open->Search(std::move(request), wait); }));
}

}  // namespace

void BindStoreSearch(py::class_<PyStore>& cls) {
  cls.def("search", &Search, arg("query"), py::kw_only(), arg("k") = 10, arg("mode") = py::none(),
          arg("under") = py::none(), arg("where") = py::none(), arg("modified_after") = py::none(),
          arg("modified_before") = py::none(), arg("at") = py::none(), arg("passages") = false,
          arg("snippets") = true, arg("feedback") = false, arg("wait") = true,
          R"(Finds passages by words and meaning (docs/search.md).

k: hits wanted (1-10000). mode: 'lexical' (BM25, the default), 'dense' (the
embedding model) or 'hybrid' (both fused). under: only paths at or below this
one. where: metadata that must match (write(..., meta=)). modified_after,
modified_before: a datetime, seconds since the epoch or 'YYYY-MM-DD'. at: search
this snapshot instead of the working tree. passages: every matching passage, not
only each file's best. snippets: read each hit's text. feedback: expand the query
with its best passages' terms. wait: index pending changes first, so what was
just written is found (a read-only store searches what is indexed).
Raises InvalidArgumentError for a bad argument, NotFoundError for an unknown
snapshot.)")
      .def("index_status", Unlocked(+[](OpenStore& o) { return o.GetIndexStatus(); }),
           "The search index's queue, embedder and models.")
      .def(
          "wait_indexed",
          [](const PyStore& s, py::object progress) {
            PythonProgress reporter(std::move(progress));
            auto open = s.Live();
            ProgressFn fn = reporter.Fn();
            Status indexed = WithoutGil([&] { return open->WaitIndexed(fn); });
            reporter.Rethrow();
            Check(indexed);
          },
          py::kw_only(), arg("progress") = py::none(),
          "Indexes every queued change now, then builds the graph and Xapian files\n"
          "searches use, so the next search is as fast as any later one\n"
          "(search(wait=True) only indexes). progress: called with (done, total) as the\n"
          "queue drains; an exception it raises is raised once indexing has finished.");
}

}  // namespace vexfs::python
