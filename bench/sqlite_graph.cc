// The graph benchmark's SQLite anchor (sqlite_graph.h).
#include "sqlite_graph.h"

#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "bench_util.h"

namespace vexfs::bench {
namespace {

constexpr char kSchema[] = R"(
PRAGMA journal_mode=WAL;
PRAGMA synchronous=FULL;
PRAGMA foreign_keys=ON;
CREATE TABLE nodes(id BLOB PRIMARY KEY, kind TEXT NOT NULL, text TEXT, properties TEXT,
                   thread TEXT, valid_from INTEGER, valid_to INTEGER, recorded_at INTEGER,
                   retired_at INTEGER) WITHOUT ROWID;
CREATE INDEX nodes_kind ON nodes(kind);
CREATE INDEX nodes_thread ON nodes(thread);
CREATE TABLE edges(id BLOB PRIMARY KEY, kind TEXT NOT NULL,
                   src BLOB NOT NULL REFERENCES nodes(id), dst BLOB NOT NULL REFERENCES nodes(id),
                   properties TEXT, valid_from INTEGER, valid_to INTEGER, recorded_at INTEGER,
                   retired_at INTEGER) WITHOUT ROWID;
CREATE UNIQUE INDEX edges_out ON edges(src, kind, dst);
CREATE INDEX edges_in ON edges(dst, kind);
)";

constexpr int64_t kForever = INT64_MAX;

void Bind(sqlite3_stmt* st, int i, const std::string& blob) {
  sqlite3_bind_blob(st, i, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
}

void BindText(sqlite3_stmt* st, int i, const std::string& text) {
  sqlite3_bind_text(st, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

}  // namespace

SqliteGraph::SqliteGraph(const std::string& path, bool sync) : path_(path) {
  for (const char* suffix : {"", "-wal", "-shm"}) unlink((path + suffix).c_str());
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) Check(Status::IOError("sqlite open"), path);
  Exec(kSchema);
  if (!sync) Exec("PRAGMA synchronous=OFF");
  insert_node_ = Prepare("INSERT OR IGNORE INTO nodes VALUES(?1, ?2, ?3, '{}', ?4, ?5, ?6, ?5, ?6)");
  insert_edge_ = Prepare("INSERT OR IGNORE INTO edges VALUES(?1, ?2, ?3, ?4, '{}', ?5, ?6, ?5, ?6)");
  out_edges_ = Prepare("SELECT id, kind, dst, properties, valid_from, valid_to FROM edges "
                       "WHERE src = ?1 AND retired_at = ?2");
  in_edges_ = Prepare("SELECT id, kind, src, properties, valid_from, valid_to FROM edges "
                      "WHERE dst = ?1 AND retired_at = ?2");
  node_ = Prepare("SELECT * FROM nodes WHERE id = ?1");
  invalidate_ = Prepare("UPDATE nodes SET valid_to = ?2 WHERE id = ?1 AND valid_to > ?2");
}

SqliteGraph::~SqliteGraph() {
  for (sqlite3_stmt* st : {insert_node_, insert_edge_, out_edges_, in_edges_, node_, invalidate_}) sqlite3_finalize(st);
  sqlite3_close(db_);
}

void SqliteGraph::SetSync(bool sync) { Exec(sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF"); }

void SqliteGraph::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "?";
    sqlite3_free(error);
    Check(Status::IOError(message), "sqlite: " + sql.substr(0, 60));
  }
}

sqlite3_stmt* SqliteGraph::Prepare(const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    Check(Status::IOError(sqlite3_errmsg(db_)), "sqlite prepare");
  }
  return st;
}

void SqliteGraph::InsertNode(const BenchNode& n) {
  sqlite3_reset(insert_node_);
  Bind(insert_node_, 1, n.id);
  BindText(insert_node_, 2, n.kind);
  BindText(insert_node_, 3, n.text);
  BindText(insert_node_, 4, n.thread);
  sqlite3_bind_int64(insert_node_, 5, 1);
  sqlite3_bind_int64(insert_node_, 6, kForever);
  if (sqlite3_step(insert_node_) != SQLITE_DONE) Check(Status::IOError(sqlite3_errmsg(db_)), "insert node");
}

void SqliteGraph::InsertEdge(const BenchEdge& e) {
  sqlite3_reset(insert_edge_);
  Bind(insert_edge_, 1, e.id);
  BindText(insert_edge_, 2, e.kind);
  Bind(insert_edge_, 3, e.from);
  Bind(insert_edge_, 4, e.to);
  sqlite3_bind_int64(insert_edge_, 5, 1);
  sqlite3_bind_int64(insert_edge_, 6, kForever);
  if (sqlite3_step(insert_edge_) != SQLITE_DONE) Check(Status::IOError(sqlite3_errmsg(db_)), "insert edge");
}

void SqliteGraph::Insert(const std::vector<BenchNode>& nodes, const std::vector<BenchEdge>& edges,
                         const std::vector<std::string>& invalidate) {
  Exec("BEGIN");
  for (const BenchNode& n : nodes) InsertNode(n);
  for (const BenchEdge& e : edges) InsertEdge(e);
  for (const std::string& id : invalidate) {
    sqlite3_reset(invalidate_);
    Bind(invalidate_, 1, id);
    sqlite3_bind_int64(invalidate_, 2, 2);
    if (sqlite3_step(invalidate_) != SQLITE_DONE) Check(Status::IOError(sqlite3_errmsg(db_)), "invalidate");
  }
  Exec("COMMIT");
}

// Reads the live edges of `id` both ways with their far ends' rows.
size_t SqliteGraph::NeighborsOf(const std::string& id, std::vector<std::string>* out) {
  size_t rows = 0;
  for (sqlite3_stmt* st : {out_edges_, in_edges_}) {
    sqlite3_reset(st);
    Bind(st, 1, id);
    sqlite3_bind_int64(st, 2, kForever);
    while (sqlite3_step(st) == SQLITE_ROW) {
      const void* far = sqlite3_column_blob(st, 2);
      out->emplace_back(static_cast<const char*>(far), sqlite3_column_bytes(st, 2));
      ++rows;
    }
  }
  return rows;
}

size_t SqliteGraph::Neighbors(const std::string& start, int depth) {
  std::set<std::string> seen{start};
  std::vector<std::string> frontier{start};
  for (int d = 0; d < depth; ++d) {
    std::vector<std::string> next;
    for (const std::string& id : frontier) {
      std::vector<std::string> far;
      NeighborsOf(id, &far);
      for (std::string& f : far) {
        if (seen.insert(f).second) next.push_back(std::move(f));
      }
    }
    frontier = std::move(next);
  }
  for (const std::string& id : seen) {  // the rows a caller gets back
    sqlite3_reset(node_);
    Bind(node_, 1, id);
    while (sqlite3_step(node_) == SQLITE_ROW) {
    }
  }
  return seen.size();
}

void SqliteGraph::CopyTo(const std::string& path) {
  unlink(path.c_str());
  Exec("VACUUM INTO '" + path + "'");
}

size_t SqliteGraph::DiffWith(const std::string& path) {
  Exec("ATTACH DATABASE '" + path + "' AS snap");
  size_t n = 0;
  for (const char* sql :
       {"SELECT count(*) FROM (SELECT * FROM main.nodes EXCEPT SELECT * FROM snap.nodes)",
        "SELECT count(*) FROM (SELECT * FROM snap.nodes EXCEPT SELECT * FROM main.nodes)",
        "SELECT count(*) FROM (SELECT * FROM main.edges EXCEPT SELECT * FROM snap.edges)",
        "SELECT count(*) FROM (SELECT * FROM snap.edges EXCEPT SELECT * FROM main.edges)"}) {
    sqlite3_stmt* st = Prepare(sql);
    if (sqlite3_step(st) == SQLITE_ROW) n += static_cast<size_t>(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
  }
  Exec("DETACH DATABASE snap");
  return n;
}

void SqliteGraph::BuildTextIndex() {
  Exec("CREATE VIRTUAL TABLE node_text USING fts5(id UNINDEXED, text)");
  Exec("INSERT INTO node_text(id, text) SELECT id, text FROM nodes");
}

std::vector<std::string> SqliteGraph::SearchText(const std::string& match, int k) {
  sqlite3_stmt* st =
      Prepare("SELECT id FROM node_text WHERE node_text MATCH ?1 ORDER BY bm25(node_text) LIMIT ?2");
  sqlite3_bind_text(st, 1, match.data(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, k);
  std::vector<std::string> ids;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const void* blob = sqlite3_column_blob(st, 0);
    ids.emplace_back(static_cast<const char*>(blob), static_cast<size_t>(sqlite3_column_bytes(st, 0)));
  }
  sqlite3_finalize(st);
  return ids;
}

uint64_t SqliteGraph::Bytes() {
  Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  struct stat st {};
  return stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace vexfs::bench
