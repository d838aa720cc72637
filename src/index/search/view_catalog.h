// The searchable files of one view (a branch's working tree or a snapshot) under
// one model: each file's path, mtime, version and passages with vector ids. A
// search filters this list, marks the visible vector ids and scores only those.
//
// A working-tree file counts as indexed when its current version has passages:
// ix_files says which version was indexed, and a file changed since (different
// ctime) is checked by recomputing its manifest id, so a rename or chmod does not
// hide it. Files whose current version has no passages yet are counted in
// `unindexed_files` and are not searchable until the indexer reaches them.
#ifndef VEXFS_INDEX_SEARCH_VIEW_CATALOG_H_
#define VEXFS_INDEX_SEARCH_VIEW_CATALOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "index/index_records.h"
#include "index/search_tables.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::index {

// A file of the view, or a document handed in with the request (a memory-graph
// node: `document` holds its key, `path` is empty, `manifest` its text's id).
struct CatalogFile {
  std::string path;  // relative to the view root, no leading slash
  uint64_t ino = 0;  // working trees only
  TimeNs mtime = 0;
  ObjectId manifest;
  std::vector<StoredPassage> passages{};
  std::string document{};
};

// Where a vector id occurs: file index and passage index in the catalog.
struct VectorUse {
  uint64_t vector = 0;
  uint32_t file = 0;
  uint32_t passage = 0;
};

struct ViewCatalog {
  bool is_snapshot = false;
  ObjectId commit;          // snapshots
  uint32_t branch_id = 0;   // working trees
  std::string branch;       // working trees
  std::vector<CatalogFile> files;  // sorted by path
  std::vector<VectorUse> uses;     // sorted by vector id
  uint64_t unindexed_files = 0;
  uint64_t unindexed_documents = 0;
  // Bitmap of every vector id used in the view, sized for `bitmap_ids` ids.
  std::vector<uint8_t> all_visible;
  uint64_t bitmap_ids = 0;
  uint64_t visible_vectors = 0;  // distinct ids set in all_visible
  uint64_t searchable_files = 0; // files with at least one passage
};

// The catalog of the working tree `txn` is bound to, as `txn` sees it.
Result<ViewCatalog> BuildWorkingCatalog(StoreTxn* txn, const IndexTables& ix,
                                        const ModelRecord& model);
// The catalog of snapshot `commit`, read in `txn`.
Result<ViewCatalog> BuildSnapshotCatalog(const StoreTxn& txn, const IndexTables& ix,
                                         const ObjectId& commit, const ModelRecord& model);

// `documents` after the files of `files` (null: documents alone), under
// `model` as `txn` sees it: the catalog a search over files and documents ranks.
Result<ViewCatalog> BuildDocumentCatalog(const StoreTxn& txn, const IndexTables& ix,
                                         const ModelRecord& model, const ViewCatalog* files,
                                         const std::vector<SearchDocument>& documents);

// Sets the bit of every vector of `file` in `bitmap`; returns how many were new.
uint64_t MarkVisible(const CatalogFile& file, std::vector<uint8_t>* bitmap);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_SEARCH_VIEW_CATALOG_H_
