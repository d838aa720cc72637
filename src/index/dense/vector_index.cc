// FAISS HNSW over a model's vector log, with a verified checkpoint.
#include "index/dense/vector_index.h"

#include <fcntl.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/clone_index.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <omp.h>
#include <unistd.h>

#include <filesystem>

#include "common/coding.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "index/dense/vector_log.h"
#include "index/model_registry.h"

namespace vexfs::index {
namespace {

constexpr std::string_view kMetaMagic = "VEXFS-HNSW-CHECKPOINT-1\n";
// Vectors per FAISS add() call. FAISS inserts each call's vectors level by
// level, in parallel, and a graph built in many small calls loses recall (300k
// vectors in calls of 8192 lost 0.013 recall@10 at efSearch 64 against one call;
// calls of 65 536 lost nothing there, and at 1M calls of 62 500 lost no more than
// calls of 250 000: both about 0.012 below FAISS's own one-call graph). A call
// cannot be interrupted, so its size is also how long a stop waits for a build:
// calls of kAddChunk vectors, with the staging buffer bounded by kAddBytes.
constexpr uint64_t kAddChunk = 65536;
constexpr uint64_t kAddBytes = uint64_t{1} << 30;

// What a checkpoint claims; checked against the model and the log before use.
struct CheckpointMeta {
  uint32_t model = 0;
  uint32_t dim = 0;
  uint8_t metric = 0;
  std::string fingerprint;
  uint64_t count = 0;
  ObjectId last_passage;  // passage hash of vector count-1: ties the file to this log
  ObjectId data_sha256;
};

std::string EncodeMeta(const CheckpointMeta& m) {
  Encoder e;
  e.PutRaw(kMetaMagic);
  e.PutFixed32BE(m.model);
  e.PutFixed32BE(m.dim);
  e.PutU8(m.metric);
  e.PutBytes(m.fingerprint);
  e.PutFixed64BE(m.count);
  e.PutId(m.last_passage);
  e.PutId(m.data_sha256);
  return e.Take();
}

bool DecodeMeta(std::string_view bytes, CheckpointMeta* m) {
  if (!bytes.starts_with(kMetaMagic)) return false;
  Decoder d(bytes.substr(kMetaMagic.size()));
  std::string_view fingerprint;
  bool ok = d.GetFixed32BE(&m->model) && d.GetFixed32BE(&m->dim) && d.GetU8(&m->metric) &&
            d.GetBytes(&fingerprint) && d.GetFixed64BE(&m->count) && d.GetId(&m->last_passage) &&
            d.GetId(&m->data_sha256) && d.done();
  m->fingerprint = std::string(fingerprint);
  return ok;
}

// Writes FAISS's serialisation to a file descriptor, hashing what it writes.
class HashingFdWriter : public faiss::IOWriter {
 public:
  explicit HashingFdWriter(int fd) : fd_(fd) {}
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    std::string_view bytes(static_cast<const char*>(ptr), size * nitems);
    hash_.Update(bytes);
    while (!bytes.empty() && ok_) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ok_ = false;
      if (n > 0) bytes.remove_prefix(static_cast<size_t>(n));
    }
    return ok_ ? nitems : 0;
  }
  bool ok() const { return ok_; }
  ObjectId Finish() { return hash_.Finish(); }

 private:
  int fd_;
  bool ok_ = true;
  Sha256 hash_;
};

Result<ObjectId> HashFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open '" + path + "'");
  Sha256 hash;
  std::string buf(1 << 20, '\0');
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) {
    hash.Update(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
  ::close(fd);
  if (n < 0) return Status::IOError("read '" + path + "' failed");
  return hash.Finish();
}

faiss::MetricType FaissMetric(Metric m) {
  return m == Metric::kL2 ? faiss::METRIC_L2 : faiss::METRIC_INNER_PRODUCT;
}

}  // namespace

VectorIndex::VectorIndex(Store* store, ModelRecord model, std::string dir,
                         HnswParams params)
    : store_(store), model_(std::move(model)), dir_(std::move(dir)), params_(params) {}

VectorIndex::~VectorIndex() = default;

std::string VectorIndex::DataPath(const std::string& dir, uint32_t id) {
  return dir + "/m" + std::to_string(id) + ".faiss";
}

std::string VectorIndex::MetaPath(const std::string& dir, uint32_t id) {
  return dir + "/m" + std::to_string(id) + ".meta";
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Open(Store* store,
                                                       const ModelRecord& model,
                                                       const std::string& dir,
                                                       const HnswParams& params,
                                                       const ProgressFn& progress) {
  VEXFS_ASSIGN_OR_RETURN(auto index, LoadOrEmpty(store, model, dir, params));
  VEXFS_RETURN_IF_ERROR(index->CatchUp(progress));
  return index;
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Load(Store* store, const ModelRecord& model,
                                                       const std::string& dir,
                                                       const HnswParams& params) {
  std::unique_ptr<VectorIndex> index(new VectorIndex(store, model, dir, params));
  VEXFS_RETURN_IF_ERROR(index->RefreshModel());
  index->LoadCheckpointIfValid();
  if (!index->hnsw_) {
    return Status::NotFound("no valid graph checkpoint for model '" + model.info.name + "'");
  }
  return index;
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::LoadOrEmpty(Store* store,
                                                              const ModelRecord& model,
                                                              const std::string& dir,
                                                              const HnswParams& params) {
  auto loaded = Load(store, model, dir, params);
  if (!loaded.status().IsNotFound()) return loaded;
  std::unique_ptr<VectorIndex> index(new VectorIndex(store, model, dir, params));
  VEXFS_RETURN_IF_ERROR(index->RefreshModel());
  index->hnsw_ = std::make_unique<faiss::IndexHNSWFlat>(
      static_cast<int>(model.info.dim), params.m, FaissMetric(model.info.metric));
  index->hnsw_->hnsw.efConstruction = params.ef_construction;
  return index;
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Clone() const {
  std::unique_ptr<VectorIndex> copy(new VectorIndex(store_, model_, dir_, params_));
  // FAISS 1.7.3's clone_index returns an HNSW graph as another class, so the
  // graph (held by value) is copied here and only its vector storage cloned.
  auto graph = std::make_unique<faiss::IndexHNSWFlat>(*hnsw_);
  graph->own_fields = false;  // it still points at this graph's storage
  try {
    graph->storage = faiss::clone_index(hnsw_->storage);
  } catch (const std::exception& e) {
    return Status::IOError(std::string("FAISS clone failed: ") + e.what());
  }
  graph->own_fields = true;
  copy->hnsw_ = std::move(graph);
  copy->checkpointed_ = checkpointed_;
  return copy;
}

Status VectorIndex::RefreshModel() {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store_));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix, model_.info.name));
  if (!found || found->id != model_.id) {
    return Status::NotFound("model '" + model_.info.name + "' is not registered");
  }
  model_ = *found;
  return Status::Ok();
}

void VectorIndex::LoadCheckpointIfValid() {
  auto meta_bytes = ReadWholeFile(MetaPath(dir_, model_.id));
  CheckpointMeta meta;
  if (!meta_bytes.ok() || !DecodeMeta(*meta_bytes, &meta)) return;
  bool matches = meta.model == model_.id && meta.dim == model_.info.dim &&
                 meta.metric == static_cast<uint8_t>(model_.info.metric) &&
                 meta.fingerprint == model_.info.fingerprint && meta.count <= model_.next_vector;
  if (!matches) return;
  if (meta.count > 0) {
    auto last = PassageHashOf(meta.count - 1);
    if (!last.ok() || *last != meta.last_passage) return;
  }
  std::string data_path = DataPath(dir_, model_.id);
  auto digest = HashFile(data_path);
  if (!digest.ok() || *digest != meta.data_sha256) return;
  try {
    std::unique_ptr<faiss::Index> loaded(faiss::read_index(data_path.c_str()));
    auto* hnsw = dynamic_cast<faiss::IndexHNSWFlat*>(loaded.get());
    if (hnsw == nullptr || static_cast<uint64_t>(hnsw->ntotal) != meta.count ||
        hnsw->d != static_cast<int>(model_.info.dim) ||
        hnsw->metric_type != FaissMetric(model_.info.metric)) {
      return;
    }
    loaded.release();
    hnsw_.reset(hnsw);
    checkpointed_ = meta.count;
  } catch (const std::exception&) {
    // A verified file FAISS still rejects: rebuild from the log like any other.
  }
}

Result<ObjectId> VectorIndex::PassageHashOf(uint64_t id) {
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store_));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  VEXFS_ASSIGN_OR_RETURN(VectorRecord rec, ReadVector(txn, ix, model_, id));
  return rec.passage_hash;
}

Status VectorIndex::CatchUp(const ProgressFn& progress, const std::function<bool()>& stop) {
  VEXFS_RETURN_IF_ERROR(RefreshModel());
  return AddRange(size(), model_.next_vector, progress, stop);
}

Status VectorIndex::AddRange(uint64_t from, uint64_t to, const ProgressFn& progress,
                             const std::function<bool()>& stop) {
  if (from >= to) return Status::Ok();
  VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store_));
  StoreTxn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(store_, false));
  const uint32_t dim = model_.info.dim;
  const uint64_t per_add = std::max<uint64_t>(1, std::min(kAddChunk, kAddBytes / (4 * dim)));
  std::vector<float> chunk;
  chunk.reserve(std::min(to - from, per_add) * dim);
  auto flush = [&]() -> Status {
    if (stop && stop()) return Status::Busy("graph build stopped");
    try {
      hnsw_->add(static_cast<faiss::Index::idx_t>(chunk.size() / dim), chunk.data());
    } catch (const std::exception& e) {
      return Status::IOError(std::string("FAISS add failed: ") + e.what());
    }
    chunk.clear();
    if (progress) progress(size() - from, to - from);
    return Status::Ok();
  };
  ModelRecord upto = model_;
  upto.next_vector = to;
  VEXFS_RETURN_IF_ERROR(ForEachVector(txn, ix, upto, from,
                                      [&](uint64_t, const float* v) -> Status {
                                        chunk.insert(chunk.end(), v, v + dim);
                                        if (chunk.size() < per_add * dim) return Status::Ok();
                                        return flush();
                                      }));
  return chunk.empty() ? Status::Ok() : flush();
}

Status VectorIndex::SaveCheckpoint() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Status::IOError("create '" + dir_ + "': " + ec.message());
  CheckpointMeta meta{model_.id, model_.info.dim, static_cast<uint8_t>(model_.info.metric),
                      model_.info.fingerprint, size(), ObjectId{}, ObjectId{}};
  if (meta.count > 0) {
    VEXFS_ASSIGN_OR_RETURN(meta.last_passage, PassageHashOf(meta.count - 1));
  }
  VEXFS_ASSIGN_OR_RETURN(meta.data_sha256, WriteData());
  VEXFS_RETURN_IF_ERROR(WriteFileAtomically(MetaPath(dir_, model_.id), EncodeMeta(meta)));
  checkpointed_ = meta.count;
  return Status::Ok();
}

// Writes the FAISS file under a temporary name, syncs it and renames it.
Result<ObjectId> VectorIndex::WriteData() {
  std::string path = DataPath(dir_, model_.id);
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create '" + tmp + "'");
  HashingFdWriter writer(fd);
  Status st;
  try {
    faiss::write_index(hnsw_.get(), &writer);
  } catch (const std::exception& e) {
    st = Status::IOError(std::string("FAISS write failed: ") + e.what());
  }
  if (st.ok() && !writer.ok()) st = ErrnoStatus("write '" + tmp + "'");
  if (st.ok() && ::fsync(fd) != 0) st = ErrnoStatus("sync '" + tmp + "'");
  ::close(fd);
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) st = ErrnoStatus("rename '" + tmp + "'");
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  VEXFS_RETURN_IF_ERROR(SyncDirectory(dir_));
  return writer.Finish();
}

uint64_t VectorIndex::size() const { return hnsw_ ? static_cast<uint64_t>(hnsw_->ntotal) : 0; }

const float* VectorIndex::vector(uint64_t id) const {
  auto* flat = static_cast<const faiss::IndexFlat*>(hnsw_->storage);
  return flat->get_xb() + id * model_.info.dim;
}

Result<std::vector<ScoredId>> VectorIndex::Search(const float* query, size_t k,
                                                  const std::vector<uint8_t>& visible,
                                                  int ef) {
  std::vector<ScoredId> out;
  if (k == 0 || size() == 0) return out;
  faiss::IDSelectorBitmap selector(visible.size(), visible.data());
  faiss::SearchParametersHNSW params;
  params.efSearch = std::max<int>(ef, static_cast<int>(k));
  params.sel = &selector;
  // Debian's FAISS 1.7.3 takes the selector from `params` but the beam width
  // from the graph itself, so both are set (hence Search() is not const).
  hnsw_->hnsw.efSearch = params.efSearch;
  std::vector<float> distances(k);
  std::vector<faiss::Index::idx_t> labels(k, -1);
  // One query gains nothing from FAISS's OpenMP region, and on a busy machine its
  // barrier waits for descheduled threads (measured: milliseconds per query).
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  Status st;
  try {
    hnsw_->search(1, query, static_cast<faiss::Index::idx_t>(k), distances.data(), labels.data(),
                  &params);
  } catch (const std::exception& e) {
    st = Status::IOError(std::string("FAISS search failed: ") + e.what());
  }
  omp_set_num_threads(threads);
  VEXFS_RETURN_IF_ERROR(st);
  bool l2 = model_.info.metric == Metric::kL2;
  for (size_t i = 0; i < k && labels[i] >= 0; ++i) {
    out.push_back({static_cast<uint64_t>(labels[i]), l2 ? -distances[i] : distances[i]});
  }
  return out;
}

}  // namespace vexfs::index
