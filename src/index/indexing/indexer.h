// The indexer: drains the store's indexing queue. For each changed file (or each
// file version of a snapshot taken before its content was indexed) it splits the
// text into passages, embeds the passages that the model has never seen, and
// records the passage list and the file's indexed version.
//
// Writes never wait for it: the queue is filled inside the write transactions,
// and the indexer reads in one transaction, embeds with no transaction open, and
// stores its results in a short write transaction that re-checks that nothing
// changed meanwhile (a queue entry is removed only if nobody re-queued it, a file
// is marked indexed only if its ctime is unchanged). A crash anywhere leaves the
// entry queued, and vectors are deduplicated by passage hash, so replaying a batch
// never duplicates a vector. Several indexers (threads or processes) may run at
// once; they only waste work.
//
// Thread-safety: one Indexer per thread.
#ifndef VEXFS_INDEX_INDEXING_INDEXER_H_
#define VEXFS_INDEX_INDEXING_INDEXER_H_

#include <functional>
#include <optional>
#include <utility>
#include <vector>
#include <string>

#include "index/embedders/embedder.h"
#include "index/index_records.h"
#include "index/indexing/passages.h"
#include "index/search_tables.h"
#include "vexfs/extension.h"
#include "vexfs/store.h"

namespace vexfs::index {

struct IndexerOptions {
  PassageOptions passages;
  // Only this prefix of a file version is indexed (documented in docs/search.md):
  // it bounds the work and memory one huge file can cost.
  uint64_t max_indexed_bytes = uint64_t{8} << 20;
  size_t batch_entries = 64;
  size_t batch_text_bytes = size_t{2} << 20;
  // Also record every passage's text for the lexical (BM25) model.
  bool lexical = true;
};

class Indexer {
 public:
  Indexer(Store* store, Embedder* embedder, IndexerOptions options = {});

  // Processes one batch. Returns the number of queue entries it handled; 0 means
  // the queue was empty. Embedder errors are returned and leave the batch queued.
  Result<size_t> RunBatch();
  // Runs batches until the queue is empty or `stop` returns true. `progress`
  // gets (entries handled, entries handled + entries still queued); `handled`,
  // if given, the number of entries handled (also when it fails part way).
  Status Drain(const ProgressFn& progress = nullptr,
               const std::function<bool()>& stop = nullptr, uint64_t* handled = nullptr);

  // Indexes texts that are not files (Index::IndexTexts), each under its id,
  // as a snapshot's file version is, up to 1,024 texts (or the usual bytes) a
  // batch; there is no queue entry to consume. Embedder errors stop it;
  // batches applied before stay.
  Status IndexTexts(const std::vector<std::pair<ObjectId, std::string>>& texts);

  // The registered model (after the first batch, or EnsureModel()); registers
  // the lexical model too when options.lexical.
  Result<ModelRecord> EnsureModel();

 private:
  struct Batch;
  struct Job;
  // Ids assigned in Apply() to the batch's new texts, by slot.
  struct Ids {
    std::vector<uint64_t> vector;
    std::vector<uint64_t> lexical;
  };
  Status EnsureLexicalModel();
  Result<bool> HasAllPassages(const StoreTxn& txn, const ObjectId& manifest);
  // Branch and snapshot entries expand into file and file-version entries.
  Result<size_t> ExpandBranch(const std::string& key, const std::string& stamp);
  Result<size_t> ExpandCommit(const std::string& key, const std::string& stamp);
  Status QueueUnindexedVersions(StoreTxn* txn, const ObjectId& root);
  // Reading: which passages each entry has and which texts need embedding.
  Status PrepareFiles(Batch* batch);
  Status PrepareFile(StoreTxn* txn, size_t job_index, Batch* batch);
  Status PrepareManifests(Batch* batch);
  // `read` gives the version's first n bytes (fewer if it is shorter).
  Status PrepareContent(const StoreTxn& txn,
                        const std::function<Result<std::string>(uint64_t n)>& read,
                        size_t job_index, Batch* batch);
  Status Embed(Batch* batch);
  // Writing, in one short transaction.
  Status Apply(Batch* batch);
  Status ApplyJob(StoreTxn* txn, const ModelRecord& model, const ModelRecord* lexical,
                  const Ids& ids, const Job& job);
  Status RecordIndexedFile(StoreTxn* txn, const Job& job);

  Store* store_;
  IndexTables ix_;  // set by EnsureModel()
  Embedder* embedder_;
  IndexerOptions options_;
  std::optional<ModelRecord> model_;
  std::optional<ModelRecord> lexical_;
};

// Key (in the models table) of a counter bumped by every indexing commit, so
// cached views of snapshots know when passages were added.
inline constexpr std::string_view kIndexGenerationKey = "generation";
Result<uint64_t> ReadIndexGeneration(const StoreTxn& txn, const IndexTables& ix);
Status BumpIndexGeneration(StoreTxn* txn, const IndexTables& ix);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_INDEXING_INDEXER_H_
