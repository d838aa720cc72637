// Filesystem: xattrs served by the index, not stored as xattrs.
//   user.vexfs.embedding.<model>  raw little-endian float32: set = an agent-supplied
//                                 vector for the whole file; get = the file's
//                                 vectors under that model, concatenated in file order
//   user.vexfs.passages           read-only JSON: every indexed passage per model
#include <cmath>
#include <cstring>

#include "fuse/filesystem.h"
#include "vexfs/json.h"

namespace vexfs::fuse {

inline constexpr std::string_view kEmbeddingPrefix = "user.vexfs.embedding.";
inline constexpr std::string_view kPassagesName = "user.vexfs.passages";

bool Filesystem::IsIndexXattr(std::string_view name) {
  return name == kPassagesName || name.substr(0, kEmbeddingPrefix.size()) == kEmbeddingPrefix;
}

Result<std::string> Filesystem::PathOf(uint64_t ino) {
  std::string path;
  VEXFS_RETURN_IF_ERROR(View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(path, ed.PathOf(ino));
    return Status::Ok();
  }));
  return path;
}

static Status NeedIndex(Index* index) {
  return index ? Status::Ok() : Status::NotSupported("this mount has no search index");
}

Status Filesystem::SetIndexXattr(uint64_t ino, std::string_view name, std::string_view value) {
  VEXFS_RETURN_IF_ERROR(NeedIndex(index_));
  if (name == kPassagesName) return Status::ReadOnly("user.vexfs.passages is read-only");
  std::string_view model = name.substr(kEmbeddingPrefix.size());
  if (value.empty() || value.size() % sizeof(float) != 0) {
    return Status::InvalidArgument("an embedding is a whole number of float32 values, not " +
                                   std::to_string(value.size()) + " bytes");
  }
  std::vector<float> values(value.size() / sizeof(float));
  std::memcpy(values.data(), value.data(), value.size());  // x86-64 and ARM: little-endian
  // The vector belongs to the file's current content, so buffered writes go first.
  if (auto inode = open_files_.Find(ino)) {
    VEXFS_RETURN_IF_ERROR(inode->Lock().Flush());
  }
  VEXFS_ASSIGN_OR_RETURN(std::string path, PathOf(ino));
  return index_->SetVector(path, model, values, branch_);
}

Result<std::string> Filesystem::GetIndexXattr(uint64_t ino, std::string_view name) {
  VEXFS_RETURN_IF_ERROR(NeedIndex(index_));
  VEXFS_ASSIGN_OR_RETURN(std::string path, PathOf(ino));
  bool passages_json = name == kPassagesName;
  std::string_view model = passages_json ? "" : name.substr(kEmbeddingPrefix.size());
  VEXFS_ASSIGN_OR_RETURN(auto passages, index_->FilePassages(path, model, branch_));
  if (passages_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const FilePassage& p : passages) out.push_back(FilePassageJson(p));
    return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (passages.empty()) {
    return Status::NotFound("no vector of model '" + std::string(model) + "' for this file");
  }
  std::string out;
  for (const FilePassage& p : passages) {
    out.append(reinterpret_cast<const char*>(p.values.data()), p.values.size() * sizeof(float));
  }
  return out;
}

}  // namespace vexfs::fuse
