// Building the searchable file list of a working tree or a snapshot.
#include "index/view_catalog.h"

#include <algorithm>

#include "index/model_registry.h"
#include "index/vector_log.h"
#include "index/search_tables.h"
#include "vexfs/paths.h"

namespace vexfs::index {
namespace {

// Adds `file` if its version has passages; counts it as unindexed otherwise.
Status AddIfIndexed(const internal::Txn& txn, const IndexTables& ix,
                    const ModelRecord& model, CatalogFile file, ViewCatalog* catalog) {
  VEXFS_ASSIGN_OR_RETURN(auto passages, LoadPassages(txn, ix, model.id, file.manifest));
  if (!passages) {
    ++catalog->unindexed_files;
    return Status::Ok();
  }
  file.passages = std::move(*passages);
  catalog->files.push_back(std::move(file));
  return Status::Ok();
}

// The manifest id of a working-tree file's current version.
Result<ObjectId> CurrentVersion(internal::TxnScope* scope, const IndexTables& ix, uint64_t ino,
                                const internal::InodeRecord& rec) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, scope->txn().Get(ix.files, internal::InodeKey(scope->branch_id(), ino)));
  IndexedFile indexed;
  if (raw && DecodeIndexedFile(*raw, &indexed).ok() && indexed.ctime == rec.ctime) {
    return indexed.manifest;
  }
  VEXFS_ASSIGN_OR_RETURN(internal::Manifest m, scope->BuildManifest(ino, rec));
  return internal::ComputeObjectId(internal::ObjectType::kManifest, internal::EncodeManifest(m));
}

Status WalkWorkingDir(internal::TxnScope* scope, const IndexTables& ix, const ModelRecord& model, uint64_t dir,
                      const std::string& path, ViewCatalog* catalog) {
  VEXFS_ASSIGN_OR_RETURN(auto entries, scope->ListEntries(dir));
  for (const auto& [name, entry] : entries) {
    std::string child = JoinPath(path, name);
    if (entry.type == FileType::kDirectory) {
      VEXFS_RETURN_IF_ERROR(WalkWorkingDir(scope, ix, model, entry.ino, child, catalog));
      continue;
    }
    if (entry.type != FileType::kRegular) continue;
    VEXFS_ASSIGN_OR_RETURN(internal::InodeRecord rec, scope->LoadInode(entry.ino));
    CatalogFile file{child, entry.ino, rec.mtime, ObjectId{}, {}};
    VEXFS_ASSIGN_OR_RETURN(file.manifest, CurrentVersion(scope, ix, entry.ino, rec));
    VEXFS_RETURN_IF_ERROR(AddIfIndexed(scope->txn(), ix, model, std::move(file), catalog));
  }
  return Status::Ok();
}

Status WalkSnapshotDir(const internal::Txn& txn, const IndexTables& ix,
                       const internal::ObjectTable& objects, const ModelRecord& model,
                       const ObjectId& tree_id, const std::string& path, ViewCatalog* catalog) {
  VEXFS_ASSIGN_OR_RETURN(internal::Tree tree, objects.GetTree(tree_id));
  for (const internal::TreeEntry& e : tree.entries) {
    std::string child = JoinPath(path, e.name);
    if (e.type == FileType::kDirectory) {
      VEXFS_RETURN_IF_ERROR(WalkSnapshotDir(txn, ix, objects, model, e.id, child, catalog));
    } else if (e.type == FileType::kRegular) {
      VEXFS_RETURN_IF_ERROR(AddIfIndexed(txn, ix, model, {child, 0, e.mtime, e.id, {}}, catalog));
    }
  }
  return Status::Ok();
}

Result<ModelRecord> ReloadModel(const internal::Txn& txn, const IndexTables& ix,
                                const ModelRecord& model) {
  if (model.id == 0) return model;  // not registered yet: nothing is indexed
  VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix, model.info.name));
  if (!found) return Status::NotFound("model '" + model.info.name + "' is not registered");
  return *found;
}

// Fills `uses` and the all-visible bitmap once the file list is complete.
void IndexVectorUses(const ModelRecord& model, ViewCatalog* catalog) {
  catalog->bitmap_ids = model.next_vector;
  catalog->all_visible.assign((model.next_vector + 7) / 8, 0);
  for (uint32_t f = 0; f < catalog->files.size(); ++f) {
    const CatalogFile& file = catalog->files[f];
    for (uint32_t p = 0; p < file.passages.size(); ++p) {
      catalog->uses.push_back({file.passages[p].vector, f, p});
    }
    catalog->visible_vectors += MarkVisible(file, &catalog->all_visible);
    if (!file.passages.empty()) ++catalog->searchable_files;
  }
  std::sort(catalog->uses.begin(), catalog->uses.end(),
            [](const VectorUse& a, const VectorUse& b) {
              return a.vector != b.vector ? a.vector < b.vector : a.file < b.file;
            });
}

}  // namespace

uint64_t MarkVisible(const CatalogFile& file, std::vector<uint8_t>* bitmap) {
  uint64_t added = 0;
  for (const StoredPassage& p : file.passages) {
    if (p.vector / 8 >= bitmap->size()) continue;  // newer than the bitmap: not visible
    uint8_t bit = static_cast<uint8_t>(1u << (p.vector % 8));
    uint8_t& byte = (*bitmap)[p.vector / 8];
    if (!(byte & bit)) ++added;
    byte |= bit;
  }
  return added;
}

Result<ViewCatalog> BuildWorkingCatalog(internal::StoreImpl* impl, std::string_view branch,
                                        const ModelRecord& model) {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(impl));
  internal::TxnScope scope(impl);
  VEXFS_RETURN_IF_ERROR(scope.Begin(/*write=*/false, branch));
  // The model as of this transaction, so the bitmap covers every id it sees.
  VEXFS_ASSIGN_OR_RETURN(ModelRecord now, ReloadModel(scope.txn(), ix, model));
  ViewCatalog catalog;
  catalog.branch = scope.branch_name();
  catalog.branch_id = scope.branch_id();
  VEXFS_RETURN_IF_ERROR(WalkWorkingDir(&scope, ix, now, kRootIno, "", &catalog));
  IndexVectorUses(now, &catalog);
  return catalog;
}

Result<ViewCatalog> BuildSnapshotCatalog(internal::StoreImpl* impl, const ObjectId& commit,
                                         const ModelRecord& model) {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(impl));
  internal::Txn txn;
  VEXFS_RETURN_IF_ERROR(impl->BeginTxn(&txn, false));
  internal::ObjectTable objects(&txn, impl->dbs().objects);
  VEXFS_ASSIGN_OR_RETURN(internal::Commit c, objects.GetCommit(commit));
  VEXFS_ASSIGN_OR_RETURN(ModelRecord now, ReloadModel(txn, ix, model));
  ViewCatalog catalog;
  catalog.is_snapshot = true;
  catalog.commit = commit;
  VEXFS_RETURN_IF_ERROR(WalkSnapshotDir(txn, ix, objects, now, c.tree, "", &catalog));
  IndexVectorUses(now, &catalog);
  return catalog;
}

}  // namespace vexfs::index
