// The lexical index of each lexical model, in memory: loaded from its Xapian
// checkpoint on first need, the records beyond the checkpoint held in memory,
// and a new checkpoint built when due: by the catch-up with no lock held, or,
// failing that, by the first search that finds one due.
//
// Thread-safety: every method may be called from any thread. A lease holds the
// one lock for its search (Xapian's databases are not thread-safe), so lexical
// searches of one Index run one at a time.
#ifndef VEXFS_INDEX_LEXICAL_LOADED_LEXICAL_H_
#define VEXFS_INDEX_LEXICAL_LOADED_LEXICAL_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "index/index_records.h"
#include "index/lexical/lexical_index.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

class LoadedLexical {
 public:
  LoadedLexical(Store* store, std::string dir);

  // The caught-up index of one model, locked for one search.
  class Lease {
   public:
    Lease(std::unique_lock<std::mutex> lock, LexicalIndex* index)
        : lock_(std::move(lock)), index_(index) {}
    LexicalIndex* get() const { return index_; }

   private:
    std::unique_lock<std::mutex> lock_;
    LexicalIndex* index_;
  };

  // The index of `model`, loaded on first need and caught up with the log.
  Result<Lease> Acquire(const ModelRecord& model);

  // Builds the checkpoint of `model` when due, with no lock held (searches
  // meanwhile use what is loaded; `stop` ends it between commits, unpublished),
  // then loads it or catches the loaded index up.
  Status CatchUp(const ModelRecord& model, const std::function<bool()>& stop);

  // Removes the checkpoint of `model` and builds it again from the log.
  Status Rebuild(const ModelRecord& model, const ProgressFn& progress);

 private:
  struct Loaded {
    std::unique_ptr<LexicalIndex> index;
    uint64_t caught_up_at = 0;  // LMDB transaction id of the last catch-up
  };
  // The caught-up index of `model` (mu_ held).
  Result<LexicalIndex*> CaughtUp(const ModelRecord& model);

  Store* store_;
  std::string dir_;
  std::mutex mu_;  // guards loaded_; held for a whole lexical search
  std::map<uint32_t, Loaded> loaded_;
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_LOADED_LEXICAL_H_
