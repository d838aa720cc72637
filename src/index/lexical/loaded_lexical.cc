// Loading, catching up and checkpointing the lexical indexes (loaded_lexical.h).
#include "index/lexical/loaded_lexical.h"

#include "index/lexical/checkpoint.h"

namespace vexfs::index {

LoadedLexical::LoadedLexical(Store* store, std::string dir)
    : store_(store), dir_(std::move(dir)) {}

Result<LoadedLexical::Lease> LoadedLexical::Acquire(const ModelRecord& model) {
  std::unique_lock lock(mu_);
  VEXFS_ASSIGN_OR_RETURN(LexicalIndex * index, CaughtUp(model));
  return Lease(std::move(lock), index);
}

Result<LexicalIndex*> LoadedLexical::CaughtUp(const ModelRecord& model) {
  auto it = loaded_.find(model.id);
  if (it == loaded_.end()) {
    VEXFS_ASSIGN_OR_RETURN(auto index, LexicalIndex::Open(store_, model, dir_));
    it = loaded_.emplace(model.id, Loaded{std::move(index), 0}).first;
  }
  uint64_t txn_id = store_->LastCommitId();
  Loaded& loaded = it->second;
  LexicalIndex* index = loaded.index.get();
  if (loaded.caught_up_at != txn_id) {
    // Many new records go straight to a new checkpoint, not through memory first;
    // a read-only store keeps them in memory instead.
    bool saved = LexicalCheckpointDue(index->checkpointed(), model.next_vector) &&
                 index->SaveCheckpoint().ok();
    if (!saved) VEXFS_RETURN_IF_ERROR(index->CatchUp());
    loaded.caught_up_at = txn_id;
  }
  return index;
}

Status LoadedLexical::CatchUp(const ModelRecord& model, const std::function<bool()>& stop) {
  bool loaded = false, due = false;
  {
    std::lock_guard lock(mu_);
    auto it = loaded_.find(model.id);
    loaded = it != loaded_.end();
    if (loaded) due = LexicalCheckpointDue(it->second.index->checkpointed(), model.next_vector);
  }
  if (!loaded) {
    // Whatever the files lack goes to disk first, so loading has only a little
    // left to hold in memory.
    VEXFS_RETURN_IF_ERROR(BuildLexicalCheckpointIfDue(store_, model, dir_, stop));
  } else if (due) {
    VEXFS_RETURN_IF_ERROR(BuildLexicalCheckpoint(store_, model, dir_, nullptr, stop));
  }
  std::lock_guard lock(mu_);
  auto it = loaded_.find(model.id);
  if (it != loaded_.end() && due) {
    VEXFS_RETURN_IF_ERROR(it->second.index->Reload());
    it->second.caught_up_at = store_->LastCommitId();
    return Status::Ok();
  }
  return CaughtUp(model).status();  // loads, or catches the in-memory part up
}

Status LoadedLexical::Rebuild(const ModelRecord& model, const ProgressFn& progress) {
  std::lock_guard lock(mu_);
  loaded_.erase(model.id);
  VEXFS_RETURN_IF_ERROR(RemoveLexicalCheckpoint(dir_, model.id));
  VEXFS_ASSIGN_OR_RETURN(auto index, LexicalIndex::Open(store_, model, dir_, progress));
  VEXFS_RETURN_IF_ERROR(index->SaveCheckpoint());
  loaded_[model.id] = Loaded{std::move(index), 0};
  return Status::Ok();
}

}  // namespace vexfs::index
