// The indexed passages of one working-tree file, with their vectors: what the
// mount shows as user.vexfs.passages and user.vexfs.embedding.<model>.
#ifndef VEXFS_INDEX_INDEXING_FILE_PASSAGES_H_
#define VEXFS_INDEX_INDEXING_FILE_PASSAGES_H_

#include <string_view>
#include <vector>

#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::index {

Result<std::vector<FilePassage>> ReadFilePassages(Store* store, std::string_view path,
                                                  std::string_view model, std::string_view branch);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_INDEXING_FILE_PASSAGES_H_
