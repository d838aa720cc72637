// The HNSW graphs that queries search, one per dense model, each published whole.
//
// Building is the catch-up's job, never a query's: CatchUp() grows a graph to
// its model's log (in place when the new part is small, otherwise on a copy
// while queries keep searching the published one), checkpoints it when due and
// swaps it in. A query takes what is published, loading a checkpoint at most,
// and scores whatever the graph does not cover yet exactly (searcher.cc), so
// the answers do not depend on how far a build has got.
//
// Thread-safety: every method may be called from any thread. One catch-up or
// rebuild runs at a time; queries wait only for the short in-place adds.
#ifndef VEXFS_INDEX_DENSE_PUBLISHED_GRAPHS_H_
#define VEXFS_INDEX_DENSE_PUBLISHED_GRAPHS_H_

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <string>

#include "index/dense/vector_index.h"
#include "index/index_records.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

class PublishedGraphs {
 public:
  // `min_vectors`: a model whose log holds no more vectors than this gets no
  // graph, since every search of it is an exact scan anyway.
  PublishedGraphs(Store* store, std::string dir, HnswParams params, uint64_t min_vectors);

 private:
  struct Entry {
    std::mutex search_mu;  // FAISS's beam width is per graph: one search at a time
    std::unique_ptr<VectorIndex> graph;
  };

 public:
  // A published graph held for one search: locked, and kept alive even if a
  // newer one is published meanwhile. Empty when the model has none.
  class Lease {
   public:
    Lease() = default;
    explicit Lease(std::shared_ptr<Entry> entry)
        : entry_(std::move(entry)), lock_(entry_->search_mu) {}
    VectorIndex* get() const { return entry_ ? entry_->graph.get() : nullptr; }

   private:
    std::shared_ptr<Entry> entry_;
    std::unique_lock<std::mutex> lock_;
  };

  // The published graph of `model`; with `load`, when none is in memory, the
  // model's checkpoint is loaded (never built). An empty lease when there is
  // none: the caller scans exactly.
  Result<Lease> Acquire(const ModelRecord& model, bool load);

  // Brings the graph of `model` up to its log and publishes it. `stop` ends a
  // build between FAISS adds, unpublished. A no-op for a model too small to
  // need a graph.
  Status CatchUp(const ModelRecord& model, const ProgressFn& progress,
                 const std::function<bool()>& stop);

  // Forgets the graph of `model` and removes its checkpoint, then builds it
  // from the log and checkpoints it.
  Status Rebuild(const ModelRecord& model, const ProgressFn& progress);

 private:
  std::shared_ptr<Entry> Published(uint32_t model);
  void Publish(uint32_t model, std::unique_ptr<VectorIndex> graph);
  // Grows `entry`'s graph in place when that holds queries up for less time
  // than copying it would; returns false (untouched) otherwise.
  Result<bool> GrowInPlace(Entry* entry, uint64_t target);
  static bool CheckpointDue(const VectorIndex& graph);

  Store* store_;
  std::string dir_;
  HnswParams params_;
  uint64_t min_vectors_;
  std::mutex build_mu_;  // one catch-up or rebuild at a time
  std::mutex mu_;        // guards graphs_
  std::map<uint32_t, std::shared_ptr<Entry>> graphs_;
  // Models whose checkpoint a search found missing or invalid: not checked
  // again (a damaged file is hashed in full each time) until one is built.
  std::set<uint32_t> no_checkpoint_;
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_DENSE_PUBLISHED_GRAPHS_H_
