// Agent-supplied vectors: stored under a declared model for a file or a byte
// range of it, keyed like embedded ones (model, hash of the bytes and range), and
// attached to the file's current version, so snapshots keep them and a changed
// file no longer claims them.
#ifndef VEXFS_INDEX_DENSE_SUPPLIED_VECTORS_H_
#define VEXFS_INDEX_DENSE_SUPPLIED_VECTORS_H_

#include <string_view>
#include <vector>

#include "index/embedders/embedder.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::index {

// One write transaction on `branch`; nothing is written unless every vector is
// valid (dimension, finite values, existing regular file, range inside it).
Status StoreSuppliedVectors(Store* store, std::string_view branch,
                            const ModelInfo& model, const std::vector<SuppliedVector>& vectors);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_DENSE_SUPPLIED_VECTORS_H_
