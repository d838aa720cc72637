// Vector log and passage lists in ix_vectors, ix_vector_keys and ix_passages.
#include "index/dense/vector_log.h"

#include <cstring>

#include "common/coding.h"

namespace vexfs::index {

Result<uint64_t> AppendVector(StoreTxn* txn, const IndexTables& ix,
                              ModelRecord* model, const ObjectId& passage_hash,
                              const float* values) {
  return AppendLogRecord(txn, ix, model, passage_hash, [&] {
    return EncodeVector(passage_hash, values, model->info.dim);
  });
}

Result<uint64_t> AppendLogRecord(StoreTxn* txn, const IndexTables& ix,
                                 ModelRecord* model, const ObjectId& passage_hash,
                                 const std::function<std::string()>& encode) {
  VEXFS_ASSIGN_OR_RETURN(auto existing, FindVector(*txn, ix, model->id, passage_hash));
  if (existing) return *existing;
  uint64_t id = model->next_vector++;
  VEXFS_RETURN_IF_ERROR(txn->Put(ix.vectors, VectorKey(model->id, id), encode()));
  Encoder e;
  e.PutFixed64BE(id);
  VEXFS_RETURN_IF_ERROR(
      txn->Put(ix.vector_keys, VectorDedupKey(model->id, passage_hash), e.data()));
  return id;
}

Result<std::optional<uint64_t>> FindVector(const StoreTxn& txn,
                                           const IndexTables& ix, uint32_t model,
                                           const ObjectId& passage_hash) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.vector_keys, VectorDedupKey(model, passage_hash)));
  if (!raw) return std::optional<uint64_t>();
  Decoder d(*raw);
  uint64_t id = 0;
  if (!d.GetFixed64BE(&id) || !d.done()) return Status::Corruption("vector key is malformed");
  return std::optional<uint64_t>(id);
}

Result<VectorRecord> ReadVector(const StoreTxn& txn, const IndexTables& ix,
                                const ModelRecord& model, uint64_t vector) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.vectors, VectorKey(model.id, vector)));
  if (!raw) {
    return Status::Corruption("vector " + std::to_string(vector) + " of model '" +
                              model.info.name + "' is missing");
  }
  VectorRecord rec;
  VEXFS_RETURN_IF_ERROR(DecodeVector(*raw, model.info.dim, &rec));
  return rec;
}

Status ReadVectorValues(const StoreTxn& txn, const IndexTables& ix,
                        const ModelRecord& model, uint64_t vector, std::vector<float>* out) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.vectors, VectorKey(model.id, vector)));
  size_t bytes = size_t{model.info.dim} * sizeof(float);
  if (!raw || raw->size() != 32 + bytes) {
    return Status::Corruption("vector " + std::to_string(vector) + " of model '" +
                              model.info.name + "' is missing or malformed");
  }
  out->resize(model.info.dim);
  std::memcpy(out->data(), raw->data() + 32, bytes);
  return Status::Ok();
}

Status ForEachVector(const StoreTxn& txn, const IndexTables& ix,
                     const ModelRecord& model, uint64_t from,
                     const std::function<Status(uint64_t id, const float* values)>& fn) {
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, ix.vectors));
  std::string prefix = VectorPrefix(model.id);
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek(VectorKey(model.id, from)));
  VectorRecord rec;
  for (uint64_t expect = from; expect < model.next_vector; ++expect) {
    if (!more || !cursor.key().starts_with(prefix) ||
        DecodeBE64(cursor.key().substr(prefix.size())) != expect) {
      return Status::Corruption("vector log of model '" + model.info.name +
                                "' has no vector " + std::to_string(expect));
    }
    VEXFS_RETURN_IF_ERROR(DecodeVector(cursor.value(), model.info.dim, &rec));
    VEXFS_RETURN_IF_ERROR(fn(expect, rec.values.data()));
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return Status::Ok();
}

Result<std::optional<std::vector<StoredPassage>>> LoadPassages(
    const StoreTxn& txn, const IndexTables& ix, uint32_t model,
    const ObjectId& manifest) {
  using Out = std::optional<std::vector<StoredPassage>>;
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.passages, PassagesKey(model, manifest)));
  if (!raw) return Out();
  std::vector<StoredPassage> passages;
  VEXFS_RETURN_IF_ERROR(DecodePassages(*raw, &passages));
  return Out(std::move(passages));
}

Status SavePassages(StoreTxn* txn, const IndexTables& ix, uint32_t model,
                    const ObjectId& manifest, const std::vector<StoredPassage>& passages) {
  return txn->Put(ix.passages, PassagesKey(model, manifest), EncodePassages(passages));
}

}  // namespace vexfs::index
