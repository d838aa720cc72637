// Reading and writing vectors and passage lists in LMDB. The vector table is the
// ordered insert log of each model (ids dense, in insert order); everything the
// FAISS index holds can be rebuilt from it.
#ifndef VEXFS_INDEX_DENSE_VECTOR_LOG_H_
#define VEXFS_INDEX_DENSE_VECTOR_LOG_H_

#include <functional>
#include <optional>
#include <vector>

#include "index/index_records.h"
#include "index/search_tables.h"

namespace vexfs::index {

// The id of the vector for `passage_hash`, appending `values` (model->info.dim
// floats, already validated) if the model has none yet. Advances
// model->next_vector; the caller saves the model record in the same transaction.
Result<uint64_t> AppendVector(StoreTxn* txn, const IndexTables& ix,
                              ModelRecord* model, const ObjectId& passage_hash,
                              const float* values);
// The same for any model's log: `encode` gives the record when one is appended.
Result<uint64_t> AppendLogRecord(StoreTxn* txn, const IndexTables& ix,
                                 ModelRecord* model, const ObjectId& passage_hash,
                                 const std::function<std::string()>& encode);
Result<std::optional<uint64_t>> FindVector(const StoreTxn& txn,
                                           const IndexTables& ix, uint32_t model,
                                           const ObjectId& passage_hash);
Result<VectorRecord> ReadVector(const StoreTxn& txn, const IndexTables& ix,
                                const ModelRecord& model, uint64_t vector);
// The values of vector `id` into `out` (resized to dim); no other allocation, for
// scans that read many vectors.
Status ReadVectorValues(const StoreTxn& txn, const IndexTables& ix,
                        const ModelRecord& model, uint64_t vector, std::vector<float>* out);
// Calls `fn` for vectors [from, model.next_vector) in id order. A gap or a
// malformed record is kCorruption: the log must be dense.
Status ForEachVector(const StoreTxn& txn, const IndexTables& ix,
                     const ModelRecord& model, uint64_t from,
                     const std::function<Status(uint64_t id, const float* values)>& fn);

// Passages of one file version (manifest) under one model; nullopt if that
// version was never indexed for the model. An empty list means indexed, nothing
// to search (not text, or empty).
Result<std::optional<std::vector<StoredPassage>>> LoadPassages(
    const StoreTxn& txn, const IndexTables& ix, uint32_t model,
    const ObjectId& manifest);
Status SavePassages(StoreTxn* txn, const IndexTables& ix, uint32_t model,
                    const ObjectId& manifest, const std::vector<StoredPassage>& passages);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_DENSE_VECTOR_LOG_H_
