// OpenStore: the calls behind vexfs.Store, each one transaction of the library.
#include "python/open_store.h"

#include "vexfs/tree_ops.h"

namespace vexfs::python {
namespace {

constexpr std::string_view kMetaPrefix = "user.vexfs.meta.";

}  // namespace

Result<std::shared_ptr<OpenStore>> OpenStore::Open(const std::string& path,
                                                   const OpenOptions& options) {
  DbOptions db_options = DefaultDbOptions();
  db_options.read_only = options.read_only;
  db_options.sync_on_commit = options.sync;
  db_options.map_size = options.map_size;
  db_options.background_indexing = options.background_indexing;
  auto db = options.create ? Db::Create(path, db_options) : Db::Open(path, db_options);
  if (!db.ok()) return db.status();
  auto core = std::make_shared<StoreCore>(std::move(*db));
  OpenStore checked_out(std::move(core), "");
  return checked_out.OnBranch(options.branch);
}

Result<std::shared_ptr<OpenStore>> OpenStore::OnBranch(const std::string& branch) const {
  if (!branch.empty()) {
    // An unknown branch is named now, not at the first call that uses it.
    VEXFS_RETURN_IF_ERROR(core_->store().Tree(branch).status());
  }
  return std::make_shared<OpenStore>(core_, branch);
}

Result<std::unique_ptr<TreeView>> OpenStore::View(const std::string& at) {
  return store().OpenView(at, branch_);
}

Status OpenStore::Write(const std::string& path, const std::string& data,
                        const std::map<std::string, std::string>& meta) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, store().Tree(branch_));
  return tree->Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(Attributes attr, ed.PutFile(path, data, CallerOwnedNode(0644)));
    for (const auto& [key, value] : meta) {
      if (key.empty()) return Status::InvalidArgument("a metadata key must not be empty");
      VEXFS_RETURN_IF_ERROR(ed.SetXattr(attr.ino, MetaXattrName(key), value));
    }
    return Status::Ok();
  });
}

Result<std::string> OpenStore::Read(const std::string& path, uint64_t offset,
                                    std::optional<uint64_t> length, const std::string& at) {
  VEXFS_ASSIGN_OR_RETURN(auto view, View(at));
  if (!length) return view->Read(path, offset, kMaxFileSize);
  return view->Read(path, offset, *length);
}

Result<std::vector<DirEntry>> OpenStore::List(const std::string& path, const std::string& at) {
  VEXFS_ASSIGN_OR_RETURN(auto view, View(at));
  return view->List(path);
}

Result<Attributes> OpenStore::Stat(const std::string& path, const std::string& at) {
  VEXFS_ASSIGN_OR_RETURN(auto view, View(at));
  return view->Stat(path);
}

Result<bool> OpenStore::Exists(const std::string& path, const std::string& at) {
  VEXFS_ASSIGN_OR_RETURN(auto view, View(at));
  auto stat = view->Stat(path);
  if (stat.ok()) return true;
  if (stat.status().IsNotFound()) return false;
  return stat.status();
}

Result<std::map<std::string, std::string>> OpenStore::Meta(const std::string& path,
                                                           const std::string& at) {
  VEXFS_ASSIGN_OR_RETURN(auto view, View(at));
  VEXFS_ASSIGN_OR_RETURN(XattrMap xattrs, view->Xattrs(path));
  std::map<std::string, std::string> meta;
  for (const auto& [name, value] : xattrs) {
    if (name.starts_with(kMetaPrefix)) meta[name.substr(kMetaPrefix.size())] = value;
  }
  return meta;
}

Status OpenStore::MakeDirectory(const std::string& path, bool parents) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, store().Tree(branch_));
  return tree->Edit([&](TreeEditor& ed) {
    return vexfs::MakeDirectory(ed, path, parents, CallerOwnedNode(0755));
  });
}

Status OpenStore::Remove(const std::string& path, bool recursive) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, store().Tree(branch_));
  return tree->Edit([&](TreeEditor& ed) { return RemovePath(ed, path, recursive); });
}

Status OpenStore::Move(const std::string& from, const std::string& to, bool replace) {
  VEXFS_ASSIGN_OR_RETURN(auto tree, store().Tree(branch_));
  return tree->Edit([&](TreeEditor& ed) { return MovePath(ed, from, to, replace); });
}

Result<std::vector<DiffEntry>> OpenStore::Diff(const std::string& a, const std::string& b) {
  if (!branch_.empty() && (a == kWorkingName || b == kWorkingName)) {
    VEXFS_ASSIGN_OR_RETURN(std::string current, store().CurrentBranch());
    if (current != branch_) {
      return Status::NotSupported("WORKING is the checked-out branch '" + current +
                                  "', not '" + branch_ + "': snapshot '" + branch_ +
                                  "' and diff the snapshots");
    }
  }
  return store().Diff(a, b);
}

Result<SearchResult> OpenStore::Search(SearchRequest request, bool wait) {
  if (request.snapshot.empty() && request.branch.empty()) request.branch = branch_;
  return core_->db().Search(request, wait);
}

Result<IndexStatus> OpenStore::GetIndexStatus() {
  VEXFS_ASSIGN_OR_RETURN(Index * index, core_->index());
  return index->GetStatus();
}

Status OpenStore::WaitIndexed(const ProgressFn& progress) {
  return core_->db().WaitIndexed(progress);
}

}  // namespace vexfs::python
