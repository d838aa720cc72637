// Searching the memory graph's nodes with the index's search, and feeding the
// index the node texts the graph queues: the two places where vexfs::Db joins
// its graph and its index, neither of which knows the other.
#ifndef VEXFS_DB_GRAPH_SEARCH_H_
#define VEXFS_DB_GRAPH_SEARCH_H_

#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vexfs/db.h"
#include "vexfs/graph.h"
#include "vexfs/index.h"
#include "vexfs/status.h"

namespace vexfs::db {

// Texts per Index::IndexTexts call: each call ends with one commit that
// releases them (and the index commits once per batch of as many), so a bulk
// of texts costs a few hundred commits, not one per 64 texts.
inline constexpr size_t kTextsPerDrain = 1024;

// Indexes every node text the graph has queued and releases it, until the
// queue is empty or `stop` (checked between calls of kTextsPerDrain texts)
// says so.
Status DrainGraphTexts(Graph& graph, Index& index, const std::function<bool()>& stop);

// The nodes a search selects, as documents, and their texts for snippets.
struct NodeDocuments {
  std::vector<SearchDocument> documents;
  std::unordered_map<std::string, std::string> texts;  // by node id (hex)
  // A selection of what is valid now holds until a listed node's valid time
  // begins or ends (kGraphForever: until the graph changes).
  TimeNs expires_at = kGraphForever;
  // Names this selection for the index's catalog cache: no two share one.
  std::string name;
};

// The last few node selections, so repeated searches of an unchanged graph
// do not list it again: keyed by the view, the filters and the store's last
// commit; a selection of what is valid now is also dropped once it expires.
class NodeDocumentsCache {
 public:
  // The selection cached for `key` that has not expired, or null.
  std::shared_ptr<const NodeDocuments> Find(const std::string& key);
  void Insert(const std::string& key, std::shared_ptr<const NodeDocuments> value);

 private:
  static constexpr size_t kEntries = 4;
  std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<const NodeDocuments>>> entries_;
};

// The cache key of a selection, as of the store's commit `last_commit`.
std::string NodeSelectionKey(const SearchRequest& request, const NodeSearch& nodes,
                             uint64_t last_commit);

// The nodes `nodes` selects in the view `request` names.
Result<NodeDocuments> SelectNodes(Graph& graph, const SearchRequest& request, const NodeSearch& nodes);

// Makes `selected` the request's documents (files take part with nodes.files),
// with a reader of their texts for snippets.
void UseNodeDocuments(std::shared_ptr<const NodeDocuments> selected, const NodeSearch& nodes,
                      SearchRequest* request);

}  // namespace vexfs::db

#endif  // VEXFS_DB_GRAPH_SEARCH_H_
