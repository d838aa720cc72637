// The anchor of the graph benchmark: the same graph in SQLite, as most local
// agent memories keep it (a node and an edge table with indexes, WAL, one
// transaction per call, foreign keys checked), with the same operations the
// benchmark times on VexFS. SQLite has no snapshot or diff of its own; the
// nearest is copying the database (VACUUM INTO) and comparing two copies
// (EXCEPT over ATTACHed databases), which is what it measures for them.
#ifndef VEXFS_BENCH_SQLITE_GRAPH_H_
#define VEXFS_BENCH_SQLITE_GRAPH_H_

#include <sqlite3.h>

#include <string>
#include <vector>

namespace vexfs::bench {

struct BenchNode {
  std::string id{};  // 16 bytes
  std::string kind, text, thread;
};

struct BenchEdge {
  std::string id, kind, from, to;  // ids: 16 bytes
};

class SqliteGraph {
 public:
  // Creates the database at `path` (removed first); `sync`: synchronous=FULL
  // (each commit durable), else OFF.
  SqliteGraph(const std::string& path, bool sync);
  ~SqliteGraph();
  SqliteGraph(const SqliteGraph&) = delete;
  SqliteGraph& operator=(const SqliteGraph&) = delete;

  // synchronous=FULL (true) or OFF from now on.
  void SetSync(bool sync);
  // One transaction for all of them; `invalidate` ends those nodes' valid time.
  void Insert(const std::vector<BenchNode>& nodes, const std::vector<BenchEdge>& edges,
              const std::vector<std::string>& invalidate = {});
  // Nodes and edges within `depth` of `start`, as full rows; returns how many nodes.
  size_t Neighbors(const std::string& start, int depth);
  // Copies the database to `path` (the snapshot's equivalent).
  void CopyTo(const std::string& path);
  // Rows that differ between this database and the copy at `path` (the diff's).
  size_t DiffWith(const std::string& path);
  // Builds a full-text index (FTS5, BM25) over the node texts, as a SQLite
  // agent memory searches them.
  void BuildTextIndex();
  // The ids of the `k` best nodes for the FTS5 query `match`, best first.
  std::vector<std::string> SearchText(const std::string& match, int k);
  // Bytes of the database once its log is checkpointed.
  uint64_t Bytes();

 private:
  void Exec(const std::string& sql);
  sqlite3_stmt* Prepare(const std::string& sql);
  void InsertNode(const BenchNode& n);
  void InsertEdge(const BenchEdge& e);
  size_t NeighborsOf(const std::string& id, std::vector<std::string>* out);

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_node_ = nullptr;
  sqlite3_stmt* insert_edge_ = nullptr;
  sqlite3_stmt* out_edges_ = nullptr;
  sqlite3_stmt* in_edges_ = nullptr;
  sqlite3_stmt* node_ = nullptr;
  sqlite3_stmt* invalidate_ = nullptr;
};

}  // namespace vexfs::bench

#endif  // VEXFS_BENCH_SQLITE_GRAPH_H_
