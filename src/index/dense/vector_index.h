// The in-memory ANN index of one model: a FAISS HNSW graph over the model's
// vector log, whose FAISS ids are the log's vector ids.
//
// The files under <store>/index/ are only a checkpoint: "m<id>.faiss" (FAISS's own
// serialisation) and "m<id>.meta" (our header: which model, how many vectors, the
// last vector's passage hash and the SHA-256 of the .faiss file). Opening loads a
// checkpoint that verifies and matches the log, then replays the vectors appended
// since. A missing, stale, foreign or corrupt checkpoint is never parsed by FAISS
// (the hash is checked first); the index is rebuilt from the log instead, so
// losing the files loses nothing but time.
//
// HNSW cannot remove vectors: vectors no longer visible in a view stay in the
// graph and are excluded at search time by a bitmap of visible ids.
//
// The graph may cover only a prefix of the log: a search answers for ids below
// size() and its caller scores the rest exactly (searcher.cc), so a graph that is
// still being built never changes an answer, only its cost.
//
// Thread-safety: vector() may run concurrently with itself; everything else
// needs exclusive access (the caller locks). Search() sets the graph's beam width.
#ifndef VEXFS_INDEX_DENSE_VECTOR_INDEX_H_
#define VEXFS_INDEX_DENSE_VECTOR_INDEX_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "index/index_records.h"
#include "index/search/top_k.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace faiss {
struct IndexHNSWFlat;
}

namespace vexfs::index {

struct HnswParams {
  int m = 32;                // graph degree
  int ef_construction = 80;  // build-time beam width
  int ef_search = 64;        // default query-time beam width
};

class VectorIndex {
 public:
  // Loads the checkpoint in `dir` when it is valid for `model`, else builds from
  // scratch; then catches up with the log. Never fails because of the files in
  // `dir`; fails only on store errors.
  static Result<std::unique_ptr<VectorIndex>> Open(Store* store,
                                                   const ModelRecord& model,
                                                   const std::string& dir,
                                                   const HnswParams& params,
                                                   const ProgressFn& progress = nullptr);
  // Only the checkpoint in `dir`, without adding what the log holds beyond it:
  // what a query may do, since loading is reading a file and adding is building.
  // kNotFound when there is no checkpoint valid for `model`.
  static Result<std::unique_ptr<VectorIndex>> Load(Store* store, const ModelRecord& model,
                                                   const std::string& dir,
                                                   const HnswParams& params);
  // The checkpoint when valid, else an empty graph; not caught up.
  static Result<std::unique_ptr<VectorIndex>> LoadOrEmpty(Store* store, const ModelRecord& model,
                                                          const std::string& dir,
                                                          const HnswParams& params);
  ~VectorIndex();

  // A copy to grow while this one keeps answering queries.
  Result<std::unique_ptr<VectorIndex>> Clone() const;
  // Adds the vectors appended to the log since the last catch-up. `stop`, checked
  // between FAISS adds, ends it early with kBusy; what was added stays.
  Status CatchUp(const ProgressFn& progress = nullptr,
                 const std::function<bool()>& stop = nullptr);
  // Writes the checkpoint atomically (temporary files, fsync, rename).
  Status SaveCheckpoint();
  // Vectors added since the checkpoint was loaded or saved.
  uint64_t unsaved() const { return size() - checkpointed_; }

  uint64_t size() const;
  const ModelRecord& model() const { return model_; }
  // The stored values of vector `id` (< size()).
  const float* vector(uint64_t id) const;
  // Up to k best ids among those whose bit is set in `visible` (size() bits,
  // least significant bit first), searching with beam width `ef`.
  Result<std::vector<ScoredId>> Search(const float* query, size_t k,
                                       const std::vector<uint8_t>& visible, int ef);

  // Paths of the checkpoint files of model `id` in `dir`.
  static std::string DataPath(const std::string& dir, uint32_t id);
  static std::string MetaPath(const std::string& dir, uint32_t id);

 private:
  VectorIndex(Store* store, ModelRecord model, std::string dir, HnswParams params);
  Status RefreshModel();
  void LoadCheckpointIfValid();
  Result<ObjectId> WriteData();
  Status AddRange(uint64_t from, uint64_t to, const ProgressFn& progress,
                  const std::function<bool()>& stop);
  Result<ObjectId> PassageHashOf(uint64_t id);

  Store* store_;
  ModelRecord model_;
  std::string dir_;
  HnswParams params_;
  std::unique_ptr<faiss::IndexHNSWFlat> hnsw_;
  uint64_t checkpointed_ = 0;
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_DENSE_VECTOR_INDEX_H_
