// ReadFilePassages: the file's manifest id keys its passages under each model.
#include "index/indexing/file_passages.h"

#include "index/dense/vector_log.h"
#include "index/model_registry.h"

namespace vexfs::index {

Result<std::vector<FilePassage>> ReadFilePassages(Store* store, std::string_view path,
                                                  std::string_view model, std::string_view branch) {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.BeginOnBranch(store, false, branch));
  VEXFS_ASSIGN_OR_RETURN(uint64_t ino, txn.Resolve(path));
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, txn.Stat(ino));
  if (attr.type != FileType::kRegular) {
    return Status::IsDirectory("'" + std::string(path) + "' is not a regular file");
  }
  VEXFS_ASSIGN_OR_RETURN(ObjectId version, txn.FileVersion(ino));
  VEXFS_ASSIGN_OR_RETURN(auto models, ListModels(txn, ix));
  std::vector<FilePassage> out;
  for (const ModelRecord& m : models) {
    // Lexical passages have no vector; the lexical index is searched, not read.
    if (m.kind == ModelKind::kLexical) continue;
    if (!model.empty() && m.info.name != model) continue;
    VEXFS_ASSIGN_OR_RETURN(auto passages, LoadPassages(txn, ix, m.id, version));
    if (!passages) continue;
    for (const StoredPassage& p : *passages) {
      FilePassage fp{m.info.name, p.offset, p.length, {}};
      VEXFS_RETURN_IF_ERROR(ReadVectorValues(txn, ix, m, p.vector, &fp.values));
      out.push_back(std::move(fp));
    }
  }
  return out;
}

}  // namespace vexfs::index
