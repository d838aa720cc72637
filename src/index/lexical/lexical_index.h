// The lexical (BM25) index of one lexical model: Xapian over the model's passage
// texts, searched with Xapian's BM25 weighting and a filter that admits only the
// passages visible in the searched view.
//
// It is a cache of the LMDB log (lexical_log.h), like the ANN index: a verified
// on-disk checkpoint (lexical_checkpoint.h) holds records [0, c), and the records
// appended since live in an in-memory Xapian database; searches run over both
// together, so BM25 statistics are those of every distinct passage the model
// holds. A checkpoint is due when the records it lacks pass a quarter of the
// whole (at least 1000 records): then they go straight to a new checkpoint
// rather than through memory first.
//
// Visibility is decided during matching (the query is filtered by a posting
// source over the view's bitmap of lexical ids, lexical_visibility.h), so k
// results come back whenever k visible passages match. Lexical id i is document
// i + 1 of the checkpoint, or document i - c + 1 of the tail, so ids come from
// document numbers without reading the documents.
//
// Thread-safety: none; the caller serialises all calls.
#ifndef VEXFS_INDEX_LEXICAL_LEXICAL_INDEX_H_
#define VEXFS_INDEX_LEXICAL_LEXICAL_INDEX_H_

#include <xapian.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_records.h"
#include "index/lexical/checkpoint.h"
#include "index/search/top_k.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

struct LexicalMatches {
  bool empty_query = false;     // the query has nothing to search for
  std::vector<ScoredId> ids;    // best first; scores are BM25 weights
};

// How the top passages feed query expansion (pseudo-relevance feedback).
struct LexicalFeedback {
  bool enabled = false;
  int documents = 10;  // top documents taken as relevant
  int terms = 20;      // expansion terms added (Xapian's ESet, TradWeight scores)
};

class LexicalIndex {
 public:
  // Loads the valid checkpoint (or builds one when the log is large and none is
  // valid), then catches up from the log. Never fails because of the files in
  // `dir`; fails only on store errors.
  static Result<std::unique_ptr<LexicalIndex>> Open(Store* store,
                                                    const ModelRecord& model,
                                                    const std::string& dir,
                                                    const ProgressFn& progress = nullptr);

  // Adds the records appended to the log since the last catch-up.
  Status CatchUp();
  // Publishes a checkpoint of everything caught up (another process may be
  // writing one: then it waits). kReadOnly/kIOError when the files cannot be
  // written; the index keeps working from memory.
  Status SaveCheckpoint();
  // Reopens the current checkpoint (one another thread or process published)
  // and catches up.
  Status Reload();
  uint64_t unsaved() const { return size_ - checkpointed_; }
  uint64_t size() const { return size_; }
  uint64_t checkpointed() const { return checkpointed_; }

  // Up to k best passages whose lexical id has its bit set in `visible` (of
  // which `visible_count` are set). kInvalidArgument for a query Xapian cannot
  // read or one past kMaxQueryBytes.
  Result<LexicalMatches> Search(std::string_view query, size_t k,
                                const std::vector<uint8_t>& visible, uint64_t visible_count,
                                const LexicalFeedback& feedback = {});

 private:
  LexicalIndex(Store* store, ModelRecord model, std::string dir);
  Status Load(const ProgressFn& progress);
  Status RefreshModel();
  void Combine();
  // The lexical id of a document number of combined_.
  Result<uint64_t> IdOf(Xapian::docid combined) const;
  Result<LexicalMatches> SearchOnce(std::string_view query, size_t k,
                                    const std::vector<uint8_t>& visible, uint64_t visible_count,
                                    const LexicalFeedback& feedback);

  Store* store_;
  ModelRecord model_;
  std::string dir_;
  std::unique_ptr<Xapian::Database> checkpoint_;  // records [0, checkpointed_), or null
  std::unique_ptr<Xapian::WritableDatabase> tail_;  // records [checkpointed_, size_)
  Xapian::Database combined_;
  uint64_t checkpointed_ = 0;
  uint64_t size_ = 0;
};

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_LEXICAL_LEXICAL_INDEX_H_
