// Python classes over the library's result structs. Times are integer
// nanoseconds since the epoch (`*_ns`, as os.stat_result), object ids lowercase
// hex, file types and change kinds the names the CLI prints ("file", "dir",
// "added", ...).
#include "python/value_types.h"

#include <pybind11/stl.h>

#include <string>

#include "python/json_value.h"
#include "python/text.h"
#include "vexfs/index.h"
#include "vexfs/json.h"
#include "vexfs/store.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;

std::optional<std::string> HexOrNone(const std::optional<ObjectId>& id) {
  if (!id) return std::nullopt;
  return id->ToHex();
}

std::vector<std::string> HexList(const std::vector<ObjectId>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const ObjectId& id : ids) out.push_back(id.ToHex());
  return out;
}

void BindFileStat(py::module_& m) {
  py::class_<Attributes> cls(m, "FileStat", "What stat() tells about a file, directory or link.");
  cls.def_property_readonly("type", [](const Attributes& a) { return FileTypeName(a.type); },
                            "'file', 'dir', 'symlink', 'fifo', 'socket', 'chardev' or 'blockdev'.")
      .def_readonly("ino", &Attributes::ino, "Inode number in its working tree (0 in a snapshot).")
      .def_readonly("mode", &Attributes::mode, "Permission bits (07777).")
      .def_readonly("uid", &Attributes::uid)
      .def_readonly("gid", &Attributes::gid)
      .def_readonly("size", &Attributes::size, "Bytes (a symlink: its target's length).")
      .def_readonly("nlink", &Attributes::nlink)
      .def_readonly("rdev", &Attributes::rdev, "Device number of a device node, else 0.")
      .def_readonly("atime_ns", &Attributes::atime)
      .def_readonly("mtime_ns", &Attributes::mtime)
      .def_readonly("ctime_ns", &Attributes::ctime)
      .def("__repr__", [](const Attributes& a) {
        return "FileStat(type='" + std::string(FileTypeName(a.type)) + "', size=" +
               std::to_string(a.size) + ")";
      });
  AddToDict(cls, AttributesJson);
}

void BindEntry(py::module_& m) {
  py::class_<DirEntry>(m, "Entry", "One entry of a directory listing.")
      .def_property_readonly("name", [](const DirEntry& e) { return PathText(e.name); })
      .def_readonly("stat", &DirEntry::attr)
      .def_property_readonly("type", [](const DirEntry& e) { return FileTypeName(e.attr.type); },
                             "The entry's file type, as FileStat.type.")
      .def("__repr__", [](const DirEntry& e) {
        return SnippetText("Entry(name='" + e.name + "', type='" + FileTypeName(e.attr.type) + "')");
      });
}

void BindCommit(py::module_& m) {
  py::class_<CommitInfo> cls(m, "Commit", "A snapshot: one commit of a branch's files.");
  cls.def_property_readonly("id", [](const CommitInfo& c) { return c.id.ToHex(); })
      .def_property_readonly("tree", [](const CommitInfo& c) { return c.tree.ToHex(); })
      .def_property_readonly("parents", [](const CommitInfo& c) { return HexList(c.parents); })
      .def_readonly("time_ns", &CommitInfo::time)
      .def_readonly("branch", &CommitInfo::branch, "The branch it was taken on.")
      .def_readonly("message", &CommitInfo::message)
      .def_readonly("meta", &CommitInfo::meta)
      .def_readonly("names", &CommitInfo::names, "The snapshot names that point at it.")
      .def("__repr__", [](const CommitInfo& c) {
        std::string name = c.names.empty() ? "" : c.names.front();
        return "Commit(id='" + c.id.ToHex().substr(0, 12) + "', name='" + name + "')";
      });
  AddToDict(cls, CommitJson);
}

void BindBranch(py::module_& m) {
  py::class_<BranchInfo> cls(m, "Branch", "A branch: a working tree and its line of snapshots.");
  cls.def_readonly("name", &BranchInfo::name)
      .def_property_readonly("head", [](const BranchInfo& b) { return HexOrNone(b.head); },
                             "The last snapshot taken on it, or None.")
      .def_readonly("current", &BranchInfo::current, "Whether it is checked out.")
      .def("__repr__", [](const BranchInfo& b) { return "Branch(name='" + b.name + "')"; });
  AddToDict(cls, BranchJson);
}

void BindChange(py::module_& m) {
  py::class_<DiffEntry> cls(m, "Change", "One difference between two trees.");
  cls.def_property_readonly("kind", [](const DiffEntry& e) { return DiffKindName(e.kind); },
                            "'added', 'removed', 'modified', 'renamed' or 'type-changed'.")
      .def_property_readonly("path", [](const DiffEntry& e) { return PathText(e.path); },
                             "The new path (the old one for 'removed').")
      .def_property_readonly(
          "old_path",
          [](const DiffEntry& e) -> py::object {
            if (e.kind != DiffEntry::Kind::kRenamed) return py::none();
            return PathText(e.old_path);
          },
          "The path before a rename, else None.")
      .def_property_readonly("type", [](const DiffEntry& e) { return FileTypeName(e.type); })
      .def_readonly("root", &DiffEntry::root,
                    "Empty for a file change; else the extension data root that changed.")
      .def("__repr__", [](const DiffEntry& e) {
        return SnippetText("Change(kind='" + std::string(DiffKindName(e.kind)) + "', path='" + e.path + "')");
      });
  AddToDict(cls, DiffEntryJson);
}

void BindSearchTypes(py::module_& m) {
  py::class_<HitRank>(m, "HitRank", "Where one side of a search (dense or lexical) ranked a hit.")
      .def_readonly("rank", &HitRank::rank, "1 is that side's best.")
      .def_readonly("score", &HitRank::score, "That side's own score.");
  py::class_<SearchHit> hit(m, "SearchHit", "One hit: a passage of a file.");
  hit.def_property_readonly("path", [](const SearchHit& h) { return PathText(h.path); })
      .def_readonly("node", &SearchHit::document,
                    "A memory-graph node's id (graph_search); empty for a file's hit.")
      .def_readonly("offset", &SearchHit::offset, "Start of the passage, in bytes.")
      .def_readonly("length", &SearchHit::length, "Length of the passage, in bytes.")
      .def_readonly("score", &SearchHit::score, "Higher is better.")
      .def_property_readonly("snippet", [](const SearchHit& h) { return SnippetText(h.snippet); })
      .def_readonly("dense", &SearchHit::dense, "The dense side's rank, or None.")
      .def_readonly("lexical", &SearchHit::lexical, "The lexical side's rank, or None.")
      .def("__repr__", [](const SearchHit& h) {
        std::string what = h.document.empty() ? "path='" + h.path : "node='" + h.document;
        return SnippetText("SearchHit(" + what + "', score=" + std::to_string(h.score) + ")");
      });
  AddToDict(hit, SearchHitJson);
  py::class_<SearchResult> result(m, "SearchResult", "The hits of a search, best first, and what answered.");
  result.def_readonly("hits", &SearchResult::hits)
      .def_readonly("mode", &SearchResult::mode, "'hybrid', 'lexical' or 'dense'.")
      .def_readonly("fusion", &SearchResult::fusion)
      .def_readonly("model", &SearchResult::model)
      .def_readonly("lexical_model", &SearchResult::lexical_model)
      .def_readonly("method", &SearchResult::method, "Dense side: 'exact' or 'hnsw'.")
      .def_readonly("visible_vectors", &SearchResult::visible_vectors)
      .def_readonly("visible_passages", &SearchResult::visible_passages)
      .def_readonly("unindexed_files", &SearchResult::unindexed_files,
                    "Files of the view not indexed yet (not searchable).")
      .def_readonly("unindexed_nodes", &SearchResult::unindexed_documents,
                    "Nodes whose text is not indexed yet (graph_search).")
      .def_readonly("note", &SearchResult::note)
      .def("__len__", [](const SearchResult& r) { return r.hits.size(); })
      .def(
          "__iter__",
          [](const SearchResult& r) { return py::make_iterator(r.hits.begin(), r.hits.end()); },
          py::keep_alive<0, 1>())
      .def("__getitem__", [](const SearchResult& r, py::ssize_t i) {
        const auto n = static_cast<py::ssize_t>(r.hits.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) throw py::index_error("hit index out of range");
        return r.hits[static_cast<size_t>(i)];
      });
  AddToDict(result, SearchResultJson);
}

void BindIndexStatus(py::module_& m) {
  py::class_<ModelStatus>(m, "ModelStatus", "A model the index holds vectors of.")
      .def_readonly("name", &ModelStatus::name)
      .def_readonly("dim", &ModelStatus::dim)
      .def_readonly("metric", &ModelStatus::metric, "'ip' or 'l2'.")
      .def_readonly("kind", &ModelStatus::kind, "'embedded', 'supplied' or 'lexical'.")
      .def_readonly("fingerprint", &ModelStatus::fingerprint)
      .def_readonly("vectors", &ModelStatus::vectors);
  py::class_<IndexStatus>(m, "IndexStatus", "The search index: its queue, embedder and models.")
      .def_readonly("queued", &IndexStatus::queued, "Changes waiting to be indexed.")
      .def_readonly("embedder", &IndexStatus::embedder)
      .def_readonly("models", &IndexStatus::models);
}

void BindReports(py::module_& m) {
  py::class_<GcReport> gc(m, "GcReport", "What gc() freed.");
  gc.def_readonly("objects_kept", &GcReport::objects_kept)
      .def_readonly("objects_freed", &GcReport::objects_freed)
      .def_readonly("bytes_freed", &GcReport::bytes_freed);
  AddToDict(gc, GcReportJson);
  py::class_<FsckReport> fsck(m, "FsckReport", "What fsck() checked and found.");
  fsck.def_readonly("objects_checked", &FsckReport::objects_checked)
      .def_readonly("refs_checked", &FsckReport::refs_checked)
      .def_readonly("inodes_checked", &FsckReport::inodes_checked)
      .def_readonly("problems", &FsckReport::problems)
      .def_property_readonly("ok", &FsckReport::ok, "True when no problem was found.");
  AddToDict(fsck, FsckReportJson);
  py::class_<StoreStats> stats(m, "StoreStats", "The store's size.");
  stats.def_readonly("objects", &StoreStats::objects)
      .def_readonly("object_bytes", &StoreStats::object_bytes)
      .def_readonly("map_size", &StoreStats::map_size)
      .def_readonly("map_used", &StoreStats::map_used);
  AddToDict(stats, StoreStatsJson);
}

}  // namespace

void BindValueTypes(py::module_& m) {
  BindFileStat(m);
  BindEntry(m);
  BindCommit(m);
  BindBranch(m);
  BindChange(m);
  BindSearchTypes(m);
  BindIndexStatus(m);
  BindReports(m);
}

}  // namespace vexfs::python
