// ReadFilePassages: the file's manifest id keys its passages under each model.
#include "index/file_passages.h"

#include "index/model_registry.h"
#include "index/vector_log.h"

namespace vexfs::index {

Result<std::vector<FilePassage>> ReadFilePassages(internal::StoreImpl* impl, std::string_view path,
                                                  std::string_view model, std::string_view branch) {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(impl));
  internal::TxnScope scope(impl);
  VEXFS_RETURN_IF_ERROR(scope.Begin(false, branch));
  VEXFS_ASSIGN_OR_RETURN(uint64_t ino, scope.Resolve(path));
  VEXFS_ASSIGN_OR_RETURN(internal::InodeRecord rec, scope.LoadInode(ino));
  if (rec.type != FileType::kRegular) {
    return Status::IsDirectory("'" + std::string(path) + "' is not a regular file");
  }
  VEXFS_ASSIGN_OR_RETURN(internal::Manifest manifest, scope.BuildManifest(ino, rec));
  ObjectId version = internal::ComputeObjectId(internal::ObjectType::kManifest,
                                               internal::EncodeManifest(manifest));
  VEXFS_ASSIGN_OR_RETURN(auto models, ListModels(scope.txn(), ix));
  std::vector<FilePassage> out;
  for (const ModelRecord& m : models) {
    // Lexical passages have no vector; the lexical index is searched, not read.
    if (m.kind == ModelKind::kLexical) continue;
    if (!model.empty() && m.info.name != model) continue;
    VEXFS_ASSIGN_OR_RETURN(auto passages, LoadPassages(scope.txn(), ix, m.id, version));
    if (!passages) continue;
    for (const StoredPassage& p : *passages) {
      FilePassage fp{m.info.name, p.offset, p.length, {}};
      VEXFS_RETURN_IF_ERROR(ReadVectorValues(scope.txn(), ix, m, p.vector, &fp.values));
      out.push_back(std::move(fp));
    }
  }
  return out;
}

}  // namespace vexfs::index
