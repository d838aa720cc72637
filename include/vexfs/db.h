// vexfs::Db: the one door to a VexFS store. Every front end (the CLI, the mount,
// the MCP server, Python, the C API) and every outside program opens a store
// through it, and gets the same store with the same parts attached.
//
// What it guarantees
// - Open and Create attach every extension this build has (the search index
//   and the memory graph) and those the caller hands in DbOptions::extensions,
//   so a snapshot commits all of their data with the files, gc keeps their
//   objects and fsck checks their records, whichever front end asked.
// - An extension the store records but this program does not have (a newer
//   release's, or another program's) is left alone: its tables are untouched,
//   and every write that would lose its data (a snapshot, a restore, a branch
//   from a snapshot, gc) is refused with an error naming it. Everything else
//   works. unattached_extensions() lists such extensions, so a front end can say
//   so.
// - With background indexing on (the default), one thread indexes whatever any
//   process commits to the store: it is woken by the store's commits themselves
//   (vexfs::CommitWatch), so no writer notifies anything. A file closed through
//   the mount, written by the CLI, MCP, Python, C or another program is found
//   by a search once that thread reaches it (milliseconds for a note).
// - No search builds an index. The background indexer's second thread, or
//   WaitIndexed(), builds the Xapian checkpoint and the HNSW graphs after each
//   drain and publishes them whole; a search meanwhile answers from what is
//   published and scores the vectors a graph lacks exactly, so it gets the
//   same answers, sooner.
// - The search index (and its embedder, which may load a model) is opened on
//   first use, so commands that never search never pay for it.
//
// What it does not guarantee
// - Background indexing runs only while a Db with it is open somewhere; a
//   short-lived program that turns it off leaves the work queued (durably) for
//   the next searcher, whose WaitIndexed() or search with wait does it.
//
// Thread-safety: a Db may be used from many threads at once; store(), the
// index and the branch handles it hands out are thread-safe (vexfs/store.h,
// vexfs/index.h). Destroy a Db only when no other thread uses it or anything it
// handed out. As with
// Store, a process opens a store once; share the Db. Do not use a Db across
// fork(): open it in the process that uses it.
#ifndef VEXFS_DB_H_
#define VEXFS_DB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vexfs/extension.h"
#include "vexfs/graph.h"
#include "vexfs/index.h"
#include "vexfs/status.h"
#include "vexfs/store.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

// Makes a program's own extension for an open store: registers its tables and
// returns the hooks Db attaches. Called once per open.
using ExtensionFactory = std::function<Result<std::shared_ptr<Extension>>(Store* store)>;

struct DbOptions {
  // Refuse every write with kReadOnly; no background indexing. A store whose
  // files this process cannot write opens read-only whatever this says.
  bool read_only = false;
  // The branch this Db works on ("" = the one HEAD names). Front ends pass it
  // to the store's and the index's calls; it is checked to exist at open.
  std::string branch;
  // Size of the memory map: Create records it (0 = kDefaultMapSize); Open uses
  // the recorded one unless this is non-zero (for this process only).
  uint64_t map_size = 0;
  // Sync every commit (vexfs/store.h); the mount turns it off and syncs at fsync.
  bool sync_on_commit = true;
  // Create only: the store's text embedder ("" = the default, GloVe; see
  // Index::SetEmbedder for the forms). Open ignores it.
  std::string embedder;
  // Index in a background thread, woken by every commit to the store.
  bool background_indexing = true;
  // Search settings (HNSW widths, the exact-scan threshold, an embedder
  // override for this process).
  IndexOptions index;
  // The program's own extensions, attached at open beside the built-in ones.
  std::vector<ExtensionFactory> extensions;
};

// The defaults: writable, the current branch, background indexing on.
DbOptions DefaultDbOptions();

// Which memory-graph nodes a search covers (Db::SearchGraph): those of the
// view the request names (a snapshot's graph, or a branch's working graph)
// that pass every filter here. Node texts are searched as files are: split
// into passages, ranked by the same lexical, dense or hybrid search.
struct NodeSearch {
  // Rank the view's files with the nodes, in one list (request.under and the
  // other file filters apply to the files only).
  bool files = false;
  std::vector<std::string> kinds{};  // any of these kinds (empty = any)
  std::string thread{};              // "" = any
  // Top-level properties KEY=VALUE, all of which must match: a string
  // property by its text, any other by its compact JSON ("3", "true").
  std::map<std::string, std::string> properties{};
  // As GraphReadOptions: nodes valid at valid_at (0 = now), not retired.
  TimeNs valid_at = 0;
  bool include_invalid = false;
  bool include_retired = false;
};

class Db;

// One branch of an open Db, for a caller that works on several branches of one
// store (the Db's own, DbOptions::branch, is fixed at open): that branch's
// working tree, searches, snapshots and restores, with the branch named once.
// A copyable handle, valid while its Db is open. A branch deleted after the
// handle was made gives kNotFound from each call.
class DbBranch {
 public:
  const std::string& name() const { return name_; }
  // The branch's working tree (Store::Tree).
  Result<std::unique_ptr<WorkingTree>> Tree() const;
  // Searches the branch's working tree, or request.snapshot when it is set
  // (Db::Search; request.branch is replaced by this branch).
  Result<SearchResult> Search(SearchRequest request, bool wait = false) const;
  // Snapshots the branch's working tree and makes it the branch's head.
  Result<CommitInfo> Snapshot(std::string_view name, std::string_view message = "",
                              const std::map<std::string, std::string>& meta = {}) const;
  // Makes the branch's working tree the snapshot's (Store::Restore).
  Status Restore(std::string_view snapshot) const;

 private:
  friend class Db;
  DbBranch(Db* db, std::string name) : db_(db), name_(std::move(name)) {}
  Db* db_;
  std::string name_;
};

class Db {
 public:
  // Opens the store in `path`. kNotFound if there is none; kBusy if this process
  // has it open already; errors of the store's open, of attaching an extension,
  // and kNotFound for an unknown DbOptions::branch.
  static Result<std::unique_ptr<Db>> Open(const std::string& path,
                                          const DbOptions& options = DefaultDbOptions());
  // Creates a new, empty store in `path` (kAlreadyExists if one is there),
  // records options.embedder (kInvalidArgument for a bad spec, and nothing is
  // left behind), and opens it.
  static Result<std::unique_ptr<Db>> Create(const std::string& path,
                                            const DbOptions& options = DefaultDbOptions());
  // Stops the background indexer (an unfinished batch stays queued) and closes.
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Store& store();
  const std::string& path() const;
  // The branch DbOptions named ("" for the one HEAD names at each call).
  const std::string& branch() const;
  bool read_only() const;
  // Names of extensions the store records that this Db has not attached.
  const std::vector<std::string>& unattached_extensions() const;

  // The memory graph (vexfs/graph.h): files and graph commit in the same
  // snapshots. Attached at open; valid while the Db is.
  Graph& graph();

  // The search index, opened on first use (its embedder is loaded then).
  // Errors of opening it are returned again on later calls.
  Result<Index*> index();
  // Indexes until the queue is empty (the caller's own drain, beside the
  // background one), then builds what searches use (Index::CatchUp), so the
  // next search of this Db's branch is as fast as any later one. `progress`
  // follows the drain, `hnsw_progress` the HNSW graph builds. kReadOnly on a
  // read-only Db.
  Status WaitIndexed(const ProgressFn& progress = nullptr,
                     const ProgressFn& hnsw_progress = nullptr);
  // Searches; `wait` first drains what is queued (writable Db only), so a
  // search right after a write finds it. It builds nothing: what the graphs
  // lack is scored exactly.
  Result<SearchResult> Search(const SearchRequest& request, bool wait = false);
  // Searches the memory graph's node texts (and the files, with nodes.files)
  // of the view `request` names; a node's hit names it in SearchHit::document
  // (its id in hex). kNotFound for an unknown snapshot or branch.
  Result<SearchResult> SearchGraph(const SearchRequest& request, const NodeSearch& nodes,
                                   bool wait = false);
  // Chooses the text embedder (Index::SetEmbedder) and queues every file and
  // every node text (working graphs and snapshots') for it again.
  Status SetEmbedder(std::string_view spec);
  // Drains by this Db's index that indexed something (Index::IndexedVersion);
  // 0 before the index is opened.
  uint64_t IndexedVersion();
  // Whether the background indexer runs.
  bool background_indexing() const;
  // A handle on branch `name` ("" = the one HEAD names now, resolved here);
  // kNotFound if there is no such branch.
  Result<DbBranch> Branch(std::string_view name = "");

 private:
  struct Rep;
  explicit Db(std::unique_ptr<Rep> rep);
  static Result<std::unique_ptr<Db>> Attach(std::unique_ptr<Store> store, const DbOptions& options);
  std::unique_ptr<Rep> rep_;
};

}  // namespace vexfs

#pragma GCC visibility pop

#endif  // VEXFS_DB_H_
