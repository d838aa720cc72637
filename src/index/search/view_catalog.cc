// Building the searchable file list of a working tree or a snapshot.
#include "index/search/view_catalog.h"

#include <algorithm>

#include "index/dense/vector_log.h"
#include "index/model_registry.h"
#include "index/search_tables.h"
#include "vexfs/paths.h"

namespace vexfs::index {
namespace {

// Adds `file` if its version has passages; counts it as unindexed otherwise.
Status AddIfIndexed(const StoreTxn& txn, const IndexTables& ix,
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
Result<ObjectId> CurrentVersion(StoreTxn* txn, const IndexTables& ix, const Attributes& attr) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn->Get(ix.files, InodeKeyPrefix(txn->branch_id(), attr.ino)));
  IndexedFile indexed;
  if (raw && DecodeIndexedFile(*raw, &indexed).ok() && indexed.ctime == attr.ctime) {
    return indexed.manifest;
  }
  return txn->FileVersion(attr.ino);
}

Status WalkWorkingDir(StoreTxn* txn, const IndexTables& ix, const ModelRecord& model, uint64_t dir,
                      const std::string& path, ViewCatalog* catalog) {
  VEXFS_ASSIGN_OR_RETURN(auto entries, txn->ListDir(dir));
  for (const TreeEditor::NameEntry& entry : entries) {
    std::string child = JoinPath(path, entry.name);
    if (entry.type == FileType::kDirectory) {
      VEXFS_RETURN_IF_ERROR(WalkWorkingDir(txn, ix, model, entry.ino, child, catalog));
      continue;
    }
    if (entry.type != FileType::kRegular) continue;
    VEXFS_ASSIGN_OR_RETURN(Attributes attr, txn->Stat(entry.ino));
    CatalogFile file{child, entry.ino, attr.mtime, ObjectId{}, {}};
    VEXFS_ASSIGN_OR_RETURN(file.manifest, CurrentVersion(txn, ix, attr));
    VEXFS_RETURN_IF_ERROR(AddIfIndexed(*txn, ix, model, std::move(file), catalog));
  }
  return Status::Ok();
}

Status WalkSnapshotDir(const StoreTxn& txn, const IndexTables& ix, const ModelRecord& model,
                       const ObjectId& tree_id, const std::string& path, ViewCatalog* catalog) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<StoredEntry> entries, txn.ReadTree(tree_id));
  for (const StoredEntry& e : entries) {
    std::string child = JoinPath(path, e.name);
    if (e.attr.type == FileType::kDirectory) {
      VEXFS_RETURN_IF_ERROR(WalkSnapshotDir(txn, ix, model, e.id, child, catalog));
    } else if (e.attr.type == FileType::kRegular) {
      VEXFS_RETURN_IF_ERROR(AddIfIndexed(txn, ix, model, {child, 0, e.attr.mtime, e.id, {}}, catalog));
    }
  }
  return Status::Ok();
}

Result<ModelRecord> ReloadModel(const StoreTxn& txn, const IndexTables& ix,
                                const ModelRecord& model) {
  if (model.id == 0) return model;  // not registered yet: nothing is indexed
  VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix, model.info.name));
  if (!found) return Status::NotFound("model '" + model.info.name + "' is not registered");
  return *found;
}

// Fills `uses` and the all-visible bitmap once the file list is complete.
void IndexVectorUses(const ModelRecord& model, ViewCatalog* catalog) {
  catalog->uses.clear();
  catalog->visible_vectors = 0;
  catalog->searchable_files = 0;
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

Result<ViewCatalog> BuildWorkingCatalog(StoreTxn* txn, const IndexTables& ix,
                                        const ModelRecord& model) {
  // The model as of this transaction, so the bitmap covers every id it sees.
  VEXFS_ASSIGN_OR_RETURN(ModelRecord now, ReloadModel(*txn, ix, model));
  ViewCatalog catalog;
  catalog.branch = txn->branch_name();
  catalog.branch_id = txn->branch_id();
  VEXFS_RETURN_IF_ERROR(WalkWorkingDir(txn, ix, now, kRootIno, "", &catalog));
  IndexVectorUses(now, &catalog);
  return catalog;
}

Result<ViewCatalog> BuildSnapshotCatalog(const StoreTxn& txn, const IndexTables& ix,
                                         const ObjectId& commit, const ModelRecord& model) {
  VEXFS_ASSIGN_OR_RETURN(ObjectId tree, txn.CommitTree(commit));
  VEXFS_ASSIGN_OR_RETURN(ModelRecord now, ReloadModel(txn, ix, model));
  ViewCatalog catalog;
  catalog.is_snapshot = true;
  catalog.commit = commit;
  VEXFS_RETURN_IF_ERROR(WalkSnapshotDir(txn, ix, now, tree, "", &catalog));
  IndexVectorUses(now, &catalog);
  return catalog;
}

Result<ViewCatalog> BuildDocumentCatalog(const StoreTxn& txn, const IndexTables& ix,
                                         const ModelRecord& model, const ViewCatalog* files,
                                         const std::vector<SearchDocument>& documents) {
  VEXFS_ASSIGN_OR_RETURN(ModelRecord now, ReloadModel(txn, ix, model));
  ViewCatalog catalog;
  if (files != nullptr) catalog = *files;
  catalog.files.reserve(catalog.files.size() + documents.size());
  for (const SearchDocument& d : documents) {
    VEXFS_ASSIGN_OR_RETURN(auto passages, LoadPassages(txn, ix, now.id, d.text));
    if (!passages) {
      ++catalog.unindexed_documents;
      continue;
    }
    catalog.files.push_back({"", 0, 0, d.text, std::move(*passages), d.key});
  }
  IndexVectorUses(now, &catalog);
  return catalog;
}

}  // namespace vexfs::index
