// VexFS search: find files by meaning, in a branch's working tree or any snapshot.
//
// What it guarantees
// - Every change to a file is queued for indexing in the same transaction as the
//   change, so no crash loses indexing work. Indexing (splitting into passages,
//   embedding) runs off the write path: by vexfs::Db's background indexer
//   (vexfs/db.h), which every front end has, or by whoever calls Wait() next.
// - A passage is embedded once per model, whatever number of files, branches and
//   snapshots contain it (vectors are keyed by model and passage content hash).
// - A search sees exactly the files of its view that pass its filters: vectors of
//   other views or of failing files are excluded while searching, so k results
//   come back whenever k matching files (or passages) are indexed.
// - The FAISS files under <store>/index/ are a cache; deleting or damaging them
//   changes no answer (they are rebuilt from the vector log in LMDB).
//
// - Lexical (BM25, Xapian) and dense (vector) search run over the same passages,
//   views and filters, alone or fused (SearchMode); the Xapian files are a cache
//   too, rebuilt from the passage texts in LMDB.
//
// What it does not guarantee
// - The default GloVe embedder is a bag of words, and the "hash" one is lexical:
//   neither understands sentences (docs/search.md, "Quality").
// - Files changed since they were last indexed are not searchable until the
//   indexer reaches them (SearchResult::unindexed_files counts them).
// - Only the first 8 MiB of a file version is indexed.
//
// Thread-safety: an Index may be used from many threads at once.
#ifndef VEXFS_INDEX_H_
#define VEXFS_INDEX_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vexfs/status.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

namespace index {
class IndexImpl;
}

struct IndexOptions {
  // Embedder for text: "" uses the store's setting (SetEmbedder); a new store's is
  // "glove", a store indexed before that default existed keeps "hash".
  std::string embedder;
  // HNSW graph degree, build and default search beam widths.
  int hnsw_m = 32;
  int hnsw_ef_construction = 80;
  int hnsw_ef_search = 64;
  // Views or filters leaving at most this many vectors visible are scanned
  // exactly instead of searched through the HNSW graph.
  uint64_t exact_max_visible = 20000;
  // Keep the lexical (BM25) index of passages beside the vectors. Off only to
  // measure or to save its space; lexical and hybrid search then find nothing.
  bool lexical = true;
};

// Which index answers: both fused (the default), BM25 over passage words alone,
// or the embedding model's vectors alone (docs/search.md, "Modes").
enum class SearchMode { kHybrid, kLexical, kDense };
// How hybrid search merges the two rankings: reciprocal rank fusion (the
// default), or a mix of min-max normalised scores.
enum class FusionMethod { kRrf, kScoreMix };
const char* SearchModeName(SearchMode mode);  // "hybrid", "lexical", "dense"
const char* FusionMethodName(FusionMethod method);  // "rrf", "mix"
// kInvalidArgument naming the known modes (methods) for anything else.
Result<SearchMode> ParseSearchMode(std::string_view name);
Result<FusionMethod> ParseFusionMethod(std::string_view name);

// A text that is not a file, searched beside (or instead of) a view's files:
// vexfs::Db hands in the memory graph's nodes (vexfs/graph.h) this way. The
// caller vouches that each belongs to the view; the index ranks it with the
// files under the same models, filters and fusion.
struct SearchDocument {
  std::string key;  // what its hit names (SearchHit::document): a node id
  ObjectId text;    // SearchTextId of its text, indexed by Index::IndexTexts
};

// The name under which a text's passages are kept: the SHA-256 of a label and
// the text, so it never equals a file version's id.
ObjectId SearchTextId(std::string_view text);

struct SearchRequest {
  // nullopt: dense when the request gives a vector or names a model, else
  // Index::DefaultMode().
  std::optional<SearchMode> mode;
  FusionMethod fusion = FusionMethod::kRrf;
  // Lexical side: expand the query with terms of its best passages (pseudo-
  // relevance feedback; docs/search.md says when it helps).
  bool feedback = false;
  std::string query;          // text, embedded by the embedder of `model`
  std::vector<float> vector;  // or a ready query vector (needed for supplied models)
  std::string model;          // "" = the text embedder's model
  size_t k = 10;              // 1..10000
  std::string snapshot;       // search this snapshot (name or commit id) ...
  std::string branch;         // ... or this branch's working tree ("" = current)
  std::string under;          // only paths equal to or below this one
  std::map<std::string, std::string> where;  // metadata KEY=VALUE, all must match
  std::optional<TimeNs> modified_after;      // mtime >= this
  std::optional<TimeNs> modified_before;     // mtime < this
  bool passages = false;      // every matching passage, not the best one per file
  bool snippets = true;       // read each hit's snippet (costs a read per hit)
  int ef_search = 0;          // HNSW beam width for this query (0 = IndexOptions')
  // The view's files take part (off: only `documents` are ranked).
  bool files = true;
  // Shared, not copied: a caller repeating a search over a large set (a
  // graph's nodes) hands in the same list each time (null: none).
  std::shared_ptr<const std::vector<SearchDocument>> documents;
  // Names `documents` for the index's catalog cache, where the caller knows
  // that equal names mean equal documents ("": a digest of them is taken).
  std::string documents_key;
  // A document's text by key, for its snippet (null: hits have none). Files'
  // filters (under, where, modified_*) do not apply to documents.
  std::function<Result<std::string>(const std::string& key)> read_document;
};

// Where one side of a search ranked a hit: rank 1 is its best.
struct HitRank {
  uint32_t rank = 0;
  float score = 0;  // that side's own score: BM25 weight, or vector similarity
};

struct SearchHit {
  std::string path;      // a file's hit; empty for a document's
  std::string document;  // a document's hit: its SearchDocument::key
  uint64_t offset = 0;  // the passage's byte range in the file
  uint64_t length = 0;
  // Higher is better: the fused score (hybrid), BM25 weight (lexical), inner
  // product or -squared L2 (dense).
  float score = 0;
  std::string snippet;  // the passage's start, whitespace collapsed
  std::optional<HitRank> dense;    // set when the dense side found this hit
  std::optional<HitRank> lexical;  // set when the lexical side found it
};

struct SearchResult {
  std::vector<SearchHit> hits;
  std::string mode;                // what answered: "hybrid", "lexical" or "dense"
  std::string fusion;              // hybrid only: "rrf" or "mix"
  std::string model;               // the dense side's model ("" if it did not run)
  std::string lexical_model;       // the lexical side's model ("" if it did not run)
  std::string method;              // dense side: "exact" or "hnsw"
  uint64_t visible_vectors = 0;    // vectors that passed view and filters
  uint64_t visible_passages = 0;   // lexical passages that passed view and filters
  uint64_t unindexed_files = 0;    // files of the view not yet indexed
  uint64_t unindexed_documents = 0;  // documents whose text is not indexed yet
  // Hybrid searches that fell back to one side say why (e.g. "the query has no
  // words to match"); empty otherwise.
  std::string note;
};

struct ModelStatus {
  std::string name;
  uint32_t dim = 0;
  std::string metric;   // "ip" or "l2"
  std::string kind;     // "embedded", "supplied" or "lexical"
  std::string fingerprint;
  uint64_t vectors = 0;
};

struct IndexStatus {
  uint64_t queued = 0;   // queue entries waiting
  std::string embedder;  // the text embedder in use
  std::vector<ModelStatus> models;
};

// How vectors of a model are compared: inner product (cosine for unit vectors)
// or Euclidean distance.
enum class VectorMetric { kInnerProduct, kL2 };

// One agent-supplied vector: for the whole file at `path`, or for the byte range
// [range.first, range.first + range.second) of it.
struct SuppliedVector {
  std::string path;
  std::optional<std::pair<uint64_t, uint64_t>> range;
  std::vector<float> values;
};

// One indexed passage of a file under one model, with its vector.
struct FilePassage {
  std::string model;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::vector<float> values;
};

// Metadata KEY=VALUE set on a file lives in this xattr ("user.vexfs.meta.KEY").
std::string MetaXattrName(std::string_view key);

class Index {
 public:
  static Result<std::unique_ptr<Index>> Open(Store* store, const IndexOptions& options = {});
  ~Index();
  Index(const Index&) = delete;
  Index& operator=(const Index&) = delete;

  // Registers the search index with the store: its tables and its subscription
  // to the store's change feed, so every change from then on, by any process,
  // is queued for it one by one. Open() does this too; a store that was written
  // before either gets every branch and snapshot queued for one rescan instead.
  // Idempotent. kReadOnly on a store opened read-only that never had it.
  static Status Enable(Store* store);

  // kInvalidArgument (or the embedder's own error) if `spec` names no embedder
  // that can run here; loads it to find out.
  static Status CheckEmbedder(std::string_view spec);

  // Chooses the text embedder recorded in the store ("glove", "glove:PATH",
  // "hash", "hash:DIM", "exec:COMMAND", "gguf:PATH").
  static Status SetEmbedder(Store* store, std::string_view spec);

  // Attaches the index to an open store: Enable() on a writable store; on a
  // read-only one, its fsck check where the store was ever indexed. What
  // vexfs::Db does at open, for every front end.
  static Status Attach(Store* store);

  Result<IndexStatus> GetStatus();
  // Indexes until the queue is empty, or until `stop` (checked between batches)
  // says so. Embedder errors stop it; the work stays queued.
  Status Wait(const ProgressFn& progress = nullptr, const std::function<bool()>& stop = nullptr);
  // Builds what searches use from the logs a drain wrote, so no search builds
  // anything: the lexical index's checkpoint (loaded and caught up), the HNSW
  // graph of every dense model with more than IndexOptions::exact_max_visible
  // vectors (grown, checkpointed when due, and published whole: searches
  // meanwhile use the graph published before, and score what it lacks
  // exactly), and the catalogs of `branch`'s working tree. `progress` follows
  // the graph builds; `stop` ends a build between FAISS adds (at most 65,536
  // vectors) or Xapian commits, unpublished. vexfs::Db's background indexer
  // calls it after each drain that did work, on a thread of its own, and
  // Db::WaitIndexed after its drain.
  Status CatchUp(const std::function<bool()>& stop = nullptr,
                 const ProgressFn& progress = nullptr, std::string_view branch = "");
  // The mode of a text request that names none: hybrid where the embedder
  // embeds sentences (a GGUF model, or an exec model declaring
  // "kind":"sentence"), lexical with word vectors or hash, whose hybrid ranks
  // below plain BM25 (docs/search.md, "Modes").
  SearchMode DefaultMode() const;
  // Grows each time this Index finishes a Wait() that indexed something: a search
  // run before it changed may miss files that are searchable now.
  uint64_t IndexedVersion() const;
  // Indexes texts that are not files (vexfs::Db passes the memory graph's node
  // texts): each is split, embedded and kept under SearchTextId(text), for the
  // text model and the lexical one, as a file version is. Texts indexed before
  // cost a lookup. Embedder errors are returned and nothing is kept.
  Status IndexTexts(const std::vector<std::string>& texts);
  // Drops the ANN checkpoints and rebuilds them from the vector log.
  Status Rebuild(const ProgressFn& progress = nullptr);

  Result<SearchResult> Search(const SearchRequest& request);

  // Agent-supplied vector for the file at `path` of `branch` ("" = current): the
  // whole file, or the byte range [offset, offset+length). Registers the model on
  // first use; later uses must agree on dimension. kInvalidArgument on a wrong
  // dimension, NaN or infinity; nothing is written then.
  Status SetVector(std::string_view path, std::string_view model, const std::vector<float>& values,
                   std::string_view branch = "", std::optional<std::pair<uint64_t, uint64_t>> range = {});
  // The passages of the current version of the file at `path` of `branch` ("" =
  // current), under every model that has indexed it (or only `model`), in model
  // then file order. Empty if no model has indexed this version yet.
  Result<std::vector<FilePassage>> FilePassages(std::string_view path,
                                                std::string_view model = "",
                                                std::string_view branch = "");
  // Many vectors of one model in one transaction (one sync): all or none are
  // stored. The model's metric is fixed when it is first registered.
  Status SetVectors(std::string_view model, VectorMetric metric,
                    const std::vector<SuppliedVector>& vectors, std::string_view branch = "");

 private:
  explicit Index(std::unique_ptr<index::IndexImpl> impl);
  std::unique_ptr<index::IndexImpl> impl_;
};

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_INDEX_H_
