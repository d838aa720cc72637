// Model registry in the ix_models database.
#include "index/model_registry.h"

#include "common/coding.h"

namespace vexfs::index {

const char* ModelKindName(ModelKind kind) {
  switch (kind) {
    case ModelKind::kSupplied: return "supplied";
    case ModelKind::kLexical: return "lexical";
    case ModelKind::kEmbedded: break;
  }
  return "embedded";
}

namespace {

const char* KindName(ModelKind kind) {
  return kind == ModelKind::kSupplied ? "agent-supplied" : ModelKindName(kind);
}

Status CheckSameModel(const ModelRecord& have, const ModelInfo& info, ModelKind kind) {
  std::string quoted = "model '" + info.name + "'";
  if (have.kind != kind) {
    return Status::InvalidArgument(quoted + " is registered for " + KindName(have.kind) +
                                   " vectors, not " + KindName(kind) + " ones");
  }
  if (have.info.dim != info.dim) {
    return Status::InvalidArgument(quoted + " has dimension " + std::to_string(have.info.dim) +
                                   ", not " + std::to_string(info.dim));
  }
  if (have.info.metric != info.metric) {
    return Status::InvalidArgument(quoted + " uses metric " + MetricName(have.info.metric) +
                                   ", not " + MetricName(info.metric));
  }
  if (have.info.fingerprint != info.fingerprint) {
    return Status::InvalidArgument(quoted + " is registered with another fingerprint (" +
                                   have.info.fingerprint + "); use a new model name");
  }
  return Status::Ok();
}

Result<uint32_t> AllocateModelId(StoreTxn* txn, const IndexTables& ix) {
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn->Get(ix.models, kNextModelIdKey));
  uint32_t id = 1;
  if (raw) {
    Decoder d(*raw);
    if (!d.GetFixed32BE(&id)) return Status::Corruption("model id counter is malformed");
  }
  Encoder e;
  e.PutFixed32BE(id + 1);
  VEXFS_RETURN_IF_ERROR(txn->Put(ix.models, kNextModelIdKey, e.data()));
  return id;
}

}  // namespace

Status ValidateModelName(std::string_view name) {
  if (name.empty() || name.size() > 128) {
    return Status::InvalidArgument("model name must be 1-128 bytes");
  }
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
              c == '-' || c == ':';
    if (!ok) {
      return Status::InvalidArgument("model name '" + std::string(name) +
                                     "' may use only letters, digits and . _ : -");
    }
  }
  return Status::Ok();
}

Result<std::optional<ModelRecord>> FindModel(const StoreTxn& txn,
                                             const IndexTables& ix,
                                             std::string_view name) {
  VEXFS_ASSIGN_OR_RETURN(auto id_raw, txn.Get(ix.models, ModelNameKey(name)));
  if (!id_raw) return std::optional<ModelRecord>();
  VEXFS_ASSIGN_OR_RETURN(auto raw, txn.Get(ix.models, "i" + std::string(*id_raw)));
  if (!raw) return Status::Corruption("model '" + std::string(name) + "' has no record");
  ModelRecord m;
  VEXFS_RETURN_IF_ERROR(DecodeModel(*raw, &m).WithContext("model '" + std::string(name) + "'"));
  return std::optional<ModelRecord>(std::move(m));
}

Result<std::vector<ModelRecord>> ListModels(const StoreTxn& txn,
                                            const IndexTables& ix) {
  std::vector<ModelRecord> models;
  TableCursor cursor;
  VEXFS_RETURN_IF_ERROR(cursor.Open(txn, ix.models));
  VEXFS_ASSIGN_OR_RETURN(bool more, cursor.Seek("i"));
  for (; more && cursor.key().starts_with("i"); ) {
    ModelRecord m;
    VEXFS_RETURN_IF_ERROR(DecodeModel(cursor.value(), &m));
    models.push_back(std::move(m));
    VEXFS_ASSIGN_OR_RETURN(more, cursor.Next());
  }
  return models;
}

Result<ModelRecord> RegisterModel(StoreTxn* txn, const IndexTables& ix,
                                  const ModelInfo& info, ModelKind kind) {
  VEXFS_RETURN_IF_ERROR(ValidateModelName(info.name));
  // Lexical models hold passage texts, not vectors: dimension 0.
  if (kind == ModelKind::kLexical ? info.dim != 0 : (info.dim == 0 || info.dim > 65536)) {
    return Status::InvalidArgument("model dimension must be 1-65536, not " +
                                   std::to_string(info.dim));
  }
  VEXFS_ASSIGN_OR_RETURN(auto existing, FindModel(*txn, ix, info.name));
  if (existing) {
    VEXFS_RETURN_IF_ERROR(CheckSameModel(*existing, info, kind));
    return *existing;
  }
  ModelRecord m;
  VEXFS_ASSIGN_OR_RETURN(m.id, AllocateModelId(txn, ix));
  m.kind = kind;
  m.info = info;
  VEXFS_RETURN_IF_ERROR(txn->Put(ix.models, ModelNameKey(info.name),
                                 ModelIdKey(m.id).substr(1)));
  VEXFS_RETURN_IF_ERROR(SaveModel(txn, ix, m));
  return m;
}

Status SaveModel(StoreTxn* txn, const IndexTables& ix, const ModelRecord& m) {
  return txn->Put(ix.models, ModelIdKey(m.id), EncodeModel(m));
}

}  // namespace vexfs::index
