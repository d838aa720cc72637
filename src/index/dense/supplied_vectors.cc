// Storing agent-supplied vectors in one transaction.
#include "index/dense/supplied_vectors.h"

#include <map>

#include "common/sha256.h"
#include "index/dense/vector_log.h"
#include "index/indexing/indexer.h"
#include "index/model_registry.h"

namespace vexfs::index {
namespace {

// A file touched by the batch, with its passage list as it will be saved.
struct TouchedFile {
  uint64_t ino = 0;
  uint64_t size = 0;
  ObjectId manifest_id;
  std::vector<StoredPassage> passages;
};

Result<TouchedFile> LoadFile(StoreTxn* txn, const IndexTables& ix, const std::string& path,
                             uint32_t model) {
  VEXFS_ASSIGN_OR_RETURN(uint64_t ino, txn->Resolve(path));
  VEXFS_ASSIGN_OR_RETURN(Attributes attr, txn->Stat(ino));
  if (attr.type != FileType::kRegular) {
    return Status::InvalidArgument("'" + path + "' is not a regular file");
  }
  TouchedFile f;
  f.ino = ino;
  f.size = attr.size;
  VEXFS_ASSIGN_OR_RETURN(f.manifest_id, txn->FileVersion(ino));
  VEXFS_ASSIGN_OR_RETURN(auto stored, LoadPassages(*txn, ix, model, f.manifest_id));
  if (stored) f.passages = std::move(*stored);
  return f;
}

Status AddVector(StoreTxn* txn, const IndexTables& ix, ModelRecord* model, const SuppliedVector& v,
                 TouchedFile* file) {
  VEXFS_RETURN_IF_ERROR(ValidateVector(model->info, v.values.data(), v.values.size())
                            .WithContext("vector for '" + v.path + "'"));
  uint64_t offset = v.range ? v.range->first : 0;
  uint64_t length = v.range ? v.range->second : file->size;
  if (offset > file->size || length > file->size - offset) {
    return Status::InvalidArgument("range of the vector for '" + v.path +
                                   "' is outside the file (" + std::to_string(file->size) +
                                   " bytes)");
  }
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, txn->ReadFile(file->ino, offset, length));
  // The key covers the range and the values: an agent may give equal bytes in
  // two places different vectors, and neither may silently replace the other.
  std::string key = bytes + "@" + std::to_string(offset) + "+" + std::to_string(length) + "#";
  key.append(reinterpret_cast<const char*>(v.values.data()), v.values.size() * sizeof(float));
  ObjectId hash = Sha256Of(key);
  VEXFS_ASSIGN_OR_RETURN(uint64_t id, AppendVector(txn, ix, model, hash,
                                                   v.values.data()));
  std::erase_if(file->passages, [&](const StoredPassage& p) {
    return p.offset == offset && p.length == length;
  });
  file->passages.push_back({offset, length, id});
  return Status::Ok();
}

}  // namespace

Status StoreSuppliedVectors(Store* store, std::string_view branch,
                            const ModelInfo& info, const std::vector<SuppliedVector>& vectors) {
  VEXFS_RETURN_IF_ERROR(ValidateModelName(info.name));
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.BeginOnBranch(store, /*write=*/true, branch));
  VEXFS_ASSIGN_OR_RETURN(ModelRecord model, RegisterModel(&txn, ix, info,
                                                          ModelKind::kSupplied));
  // Vectors attach to file versions, so files with equal content (bytes and
  // xattrs) share one passage list: it is keyed by version, not by path.
  std::map<ObjectId, TouchedFile> versions;
  for (const SuppliedVector& v : vectors) {
    VEXFS_ASSIGN_OR_RETURN(TouchedFile f, LoadFile(&txn, ix, v.path, model.id));
    auto it = versions.try_emplace(f.manifest_id, std::move(f)).first;
    VEXFS_RETURN_IF_ERROR(AddVector(&txn, ix, &model, v, &it->second));
  }
  for (auto& [id, f] : versions) {
    std::sort(f.passages.begin(), f.passages.end(),
              [](const StoredPassage& a, const StoredPassage& b) {
                return a.offset != b.offset ? a.offset < b.offset : a.length < b.length;
              });
    VEXFS_RETURN_IF_ERROR(SavePassages(&txn, ix, model.id, f.manifest_id,
                                       f.passages));
  }
  VEXFS_RETURN_IF_ERROR(SaveModel(&txn, ix, model));
  // Snapshots holding these versions see the new vectors: their cached catalogs
  // are keyed by this counter.
  VEXFS_RETURN_IF_ERROR(BumpIndexGeneration(&txn, ix));
  return txn.Commit();
}

}  // namespace vexfs::index
