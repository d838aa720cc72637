// Publishing HNSW graphs: grown by the catch-up, loaded (never built) by queries.
#include "index/dense/published_graphs.h"

#include <filesystem>

namespace vexfs::index {
namespace {

// Growing a graph in place holds its queries up for the adds; growing a copy
// holds them up only for the copy. An add costs about 0.3 ms (100,000 vectors
// took 26.5 s, docs/BENCHMARKS.md) and a copy about 0.3 µs per vector already
// in the graph (some 1.5 KB of vector and links at memcpy speed), so in place
// wins below one new vector per ~1000 held, and always for a handful.
constexpr uint64_t kAlwaysInPlace = 16;
constexpr uint64_t kHeldPerInPlaceAdd = 1024;

}  // namespace

PublishedGraphs::PublishedGraphs(Store* store, std::string dir, HnswParams params,
                                 uint64_t min_vectors)
    : store_(store), dir_(std::move(dir)), params_(params), min_vectors_(min_vectors) {}

std::shared_ptr<PublishedGraphs::Entry> PublishedGraphs::Published(uint32_t model) {
  std::lock_guard lock(mu_);
  auto it = graphs_.find(model);
  return it == graphs_.end() ? nullptr : it->second;
}

void PublishedGraphs::Publish(uint32_t model, std::unique_ptr<VectorIndex> graph) {
  auto entry = std::make_shared<Entry>();
  entry->graph = std::move(graph);
  std::lock_guard lock(mu_);
  graphs_[model] = std::move(entry);  // a search holding the old one keeps it alive
  no_checkpoint_.erase(model);
}

Result<PublishedGraphs::Lease> PublishedGraphs::Acquire(const ModelRecord& model, bool load) {
  if (model.id == 0) return Lease();  // not registered yet: nothing indexed
  if (auto entry = Published(model.id)) return Lease(std::move(entry));
  if (!load) return Lease();
  {
    std::lock_guard lock(mu_);
    if (no_checkpoint_.count(model.id)) return Lease();
  }
  auto loaded = VectorIndex::Load(store_, model, dir_, params_);
  if (loaded.status().IsNotFound()) {
    std::lock_guard lock(mu_);
    no_checkpoint_.insert(model.id);
    return Lease();
  }
  VEXFS_RETURN_IF_ERROR(loaded.status());
  std::shared_ptr<Entry> entry;
  {
    // mu_ is let go before the lease waits for the graph's search lock.
    std::lock_guard lock(mu_);
    auto& slot = graphs_[model.id];
    if (!slot) {  // a catch-up may have published a newer one meanwhile
      slot = std::make_shared<Entry>();
      slot->graph = std::move(*loaded);
    }
    entry = slot;
  }
  return Lease(std::move(entry));
}

bool PublishedGraphs::CheckpointDue(const VectorIndex& graph) {
  // When a good share of the graph would otherwise be replayed by the next process.
  return graph.unsaved() >= std::max<uint64_t>(1000, graph.size() / 4);
}

Result<bool> PublishedGraphs::GrowInPlace(Entry* entry, uint64_t target) {
  std::lock_guard lock(entry->search_mu);
  VectorIndex& graph = *entry->graph;
  uint64_t missing = target > graph.size() ? target - graph.size() : 0;
  if (missing > std::max(kAlwaysInPlace, graph.size() / kHeldPerInPlaceAdd)) return false;
  VEXFS_RETURN_IF_ERROR(graph.CatchUp());
  if (CheckpointDue(graph)) (void)graph.SaveCheckpoint();  // read-only: replayed next time
  return true;
}

Status PublishedGraphs::CatchUp(const ModelRecord& model, const ProgressFn& progress,
                                const std::function<bool()>& stop) {
  if (model.id == 0 || model.next_vector <= min_vectors_) return Status::Ok();
  std::lock_guard build(build_mu_);
  std::unique_ptr<VectorIndex> grown;
  if (auto entry = Published(model.id)) {
    if (entry->graph->size() >= model.next_vector) return Status::Ok();
    VEXFS_ASSIGN_OR_RETURN(bool done, GrowInPlace(entry.get(), model.next_vector));
    if (done) return Status::Ok();
    std::lock_guard lock(entry->search_mu);
    VEXFS_ASSIGN_OR_RETURN(grown, entry->graph->Clone());
  } else {
    VEXFS_ASSIGN_OR_RETURN(grown, VectorIndex::LoadOrEmpty(store_, model, dir_, params_));
  }
  // The long part, with no lock held: queries search the published graph.
  VEXFS_RETURN_IF_ERROR(grown->CatchUp(progress, stop));
  if (CheckpointDue(*grown)) (void)grown->SaveCheckpoint();  // read-only: replayed next time
  Publish(model.id, std::move(grown));
  return Status::Ok();
}

Status PublishedGraphs::Rebuild(const ModelRecord& model, const ProgressFn& progress) {
  std::lock_guard build(build_mu_);
  {
    std::lock_guard lock(mu_);
    graphs_.erase(model.id);
  }
  std::error_code ignored;  // a missing file is fine; an unwritable one fails below
  std::filesystem::remove(VectorIndex::DataPath(dir_, model.id), ignored);
  std::filesystem::remove(VectorIndex::MetaPath(dir_, model.id), ignored);
  VEXFS_ASSIGN_OR_RETURN(auto graph, VectorIndex::Open(store_, model, dir_, params_, progress));
  VEXFS_RETURN_IF_ERROR(graph->SaveCheckpoint());
  Publish(model.id, std::move(graph));
  return Status::Ok();
}

}  // namespace vexfs::index
