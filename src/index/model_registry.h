// The registry of embedding models in a store. A model is named once with its
// dimension, metric and fingerprint; a later registration under the same name
// must agree on all of them, so vectors of different models never share an index.
#ifndef VEXFS_INDEX_MODEL_REGISTRY_H_
#define VEXFS_INDEX_MODEL_REGISTRY_H_

#include <optional>
#include <string_view>
#include <vector>

#include "index/index_records.h"
#include "index/search_tables.h"

namespace vexfs::index {

// "embedded", "supplied" or "lexical" (as `vexfs index status` shows them).
const char* ModelKindName(ModelKind kind);

// Model names: 1-128 bytes of [A-Za-z0-9._:-].
Status ValidateModelName(std::string_view name);

Result<std::optional<ModelRecord>> FindModel(const StoreTxn& txn,
                                             const IndexTables& ix,
                                             std::string_view name);
Result<std::vector<ModelRecord>> ListModels(const StoreTxn& txn,
                                            const IndexTables& ix);

// Returns the model named info.name, registering it if new. kInvalidArgument if a
// model of that name exists with another kind, dimension, metric or fingerprint.
Result<ModelRecord> RegisterModel(StoreTxn* txn, const IndexTables& ix,
                                  const ModelInfo& info, ModelKind kind);
Status SaveModel(StoreTxn* txn, const IndexTables& ix, const ModelRecord& m);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_MODEL_REGISTRY_H_
