// Crash test of indexing: `vexfs index wait` and `vexfs search` (which also
// writes the lexical index's checkpoint) are SIGKILLed at random moments while
// they drain a full queue, and files keep changing between kills. Afterwards the
// queue must drain, and the index must agree exactly with the store: every text
// file's passages have vectors and lexical records, each passage hash has exactly
// one of each, both logs are dense, every stored vector is what the embedder
// gives for its passage and every lexical record holds its passage's text, the
// ANN index built from the log answers like the exact scan, and the lexical
// index the store's files give answers exactly like one built from the log.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/sha256.h"
#include "crash/child_process.h"
#include "index/dense/vector_index.h"
#include "index/dense/vector_log.h"
#include "index/embedders/hash_embedder.h"
#include "index/indexing/passages.h"
#include "index/lexical/analysis.h"
#include "index/lexical/lexical_index.h"
#include "index/lexical/log.h"
#include "index/model_registry.h"
#include "index/search_tables.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"
#include "vexfs/store.h"

namespace vexfs::crash {
namespace {

using std::chrono::milliseconds;

constexpr int kDefaultIterations = 30;
constexpr int kFiles = 300;

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// A few KiB of Markdown-like text, different for every (file, version).
std::string NoteText(std::mt19937_64& rng) {
  static const char* kWords[] = {"agent", "memory", "snapshot", "vector", "plan", "deploy",
                                 "budget", "kernel", "cache", "graph", "query", "note"};
  std::string text;
  int sections = 2 + static_cast<int>(rng() % 4);
  for (int s = 0; s < sections; ++s) {
    text += "## Part " + std::to_string(rng() % 1000) + "\n\n";
    for (int w = 0; w < 150; ++w) {
      text += kWords[rng() % 12];
      text += (w % 17 == 16) ? ". " : " ";
    }
    text += "\n\n";
  }
  return text;
}

Status WriteFile(Store& store, const std::string& path, const std::string& text) {
  auto tree = store.Tree();
  if (!tree.ok()) return tree.status();
  return (*tree)->Edit([&](TreeEditor& ed) { return ed.PutFile(path, text, {}).status(); });
}

// Changes some files between kills, so entries are re-queued while indexing.
void ChangeSomeFiles(Store& store, std::mt19937_64& rng) {
  for (int i = 0; i < 15; ++i) {
    std::string path = "notes/" + std::to_string(rng() % (kFiles + 20)) + ".md";
    ASSERT_TRUE(WriteFile(store, path, NoteText(rng)).ok());
  }
  auto tree = store.Tree();
  ASSERT_TRUE(tree.ok());
  std::string victim = std::to_string(rng() % kFiles) + ".md";
  Status st = (*tree)->Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("notes"));
    return ed.Unlink(dir, victim);
  });
  ASSERT_TRUE(st.ok() || st.IsNotFound()) << st.ToString();
}

// The lexical log: dense, one record per passage hash, dedup keys pointing back.
void CheckLexicalLog(const StoreTxn& txn, const index::IndexTables& ix,
                     const index::ModelRecord& lex) {
  std::set<ObjectId> hashes;
  Status st = index::ForEachLexicalRecord(
      txn, ix, lex, 0, [&](uint64_t id, const ObjectId& hash, std::string_view text) {
        EXPECT_TRUE(hashes.insert(hash).second) << "duplicate lexical record " << id;
        EXPECT_EQ(Sha256Of(text), hash) << id;
        auto back = index::FindVector(txn, ix, lex.id, hash);
        EXPECT_TRUE(back.ok() && back->has_value() && **back == id) << id;
        return Status::Ok();
      });
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(hashes.size(), lex.next_vector);
}

// Every invariant of a drained index (see the file comment).
void CheckIndexMatchesStore(Store& store) {
  Store* impl = &store;
  auto tables = index::SearchTables(impl);
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  const index::IndexTables& ix = *tables;
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(impl, false).ok());
  auto queued = ix.work.Pending(txn);
  ASSERT_TRUE(queued.ok());
  EXPECT_EQ(*queued, 0u);
  auto embedder = index::MakeHashEmbedder();
  auto model = index::FindModel(txn, ix, embedder->info().name);
  ASSERT_TRUE(model.ok() && model->has_value());
  const index::ModelRecord& m = **model;
  // Dense log, one vector per passage hash, dedup keys pointing back.
  std::set<ObjectId> hashes;
  for (uint64_t id = 0; id < m.next_vector; ++id) {
    auto rec = index::ReadVector(txn, ix, m, id);
    ASSERT_TRUE(rec.ok()) << rec.status().ToString();
    EXPECT_TRUE(hashes.insert(rec->passage_hash).second) << "duplicate vector " << id;
    auto back = index::FindVector(txn, ix, m.id, rec->passage_hash);
    ASSERT_TRUE(back.ok() && back->has_value());
    EXPECT_EQ(**back, id);
  }
  auto lexical = index::FindModel(txn, ix, index::kLexicalModelName);
  ASSERT_TRUE(lexical.ok() && lexical->has_value());
  const index::ModelRecord& lex = **lexical;
  CheckLexicalLog(txn, ix, lex);
  auto keys = txn.Scan(ix.vector_keys, "");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), m.next_vector + lex.next_vector);
  // Every live file: its passages exist with the embedder's exact vectors.
  auto tree = store.Tree();
  ASSERT_TRUE(tree.ok());
  auto names = (*tree)->List("notes");
  ASSERT_TRUE(names.ok());
  for (const DirEntry& e : *names) {
    auto text = (*tree)->ReadAll("notes/" + e.name);
    ASSERT_TRUE(text.ok());
    for (const index::Passage& p : index::SplitPassages(*text)) {
      std::string_view passage = std::string_view(*text).substr(p.offset, p.length);
      auto id = index::FindVector(txn, ix, m.id, Sha256Of(passage));
      ASSERT_TRUE(id.ok() && id->has_value()) << e.name << " passage at " << p.offset;
      std::vector<float> want;
      ASSERT_TRUE(embedder->Embed({passage}, &want).ok());
      auto rec = index::ReadVector(txn, ix, m, **id);
      ASSERT_TRUE(rec.ok());
      EXPECT_EQ(rec->values, want) << e.name;
      auto lex_id = index::FindVector(txn, ix, lex.id, Sha256Of(passage));
      ASSERT_TRUE(lex_id.ok() && lex_id->has_value()) << e.name << " lexical at " << p.offset;
    }
  }
}

// Whatever checkpoint the killed runs left in `store_index_dir`, the lexical
// index opened over it answers exactly like one built from the log alone.
void CheckLexicalFilesAnswerLikeTheLog(Store& store, const std::string& store_index_dir,
                                       const std::string& fresh_dir) {
  auto ix = index::SearchTables(&store);
  ASSERT_TRUE(ix.ok()) << ix.status().ToString();
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(&store, false).ok());
  auto lexical = index::FindModel(txn, *ix, index::kLexicalModelName);
  txn.Abort();
  ASSERT_TRUE(lexical.ok() && lexical->has_value());
  auto from_files = index::LexicalIndex::Open(&store, **lexical, store_index_dir);
  auto from_log = index::LexicalIndex::Open(&store, **lexical, fresh_dir);
  ASSERT_TRUE(from_files.ok() && from_log.ok());
  ASSERT_EQ((*from_files)->size(), (**lexical).next_vector);
  ASSERT_EQ((*from_log)->size(), (**lexical).next_vector);
  std::vector<uint8_t> all(((**lexical).next_vector + 7) / 8, 0xff);
  for (const char* query : {"agent memory", "snapshot plan", "\"kernel cache\"", "budget"}) {
    auto a = (*from_files)->Search(query, 50, all, (**lexical).next_vector);
    auto b = (*from_log)->Search(query, 50, all, (**lexical).next_vector);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->ids.size(), b->ids.size()) << query;
    for (size_t i = 0; i < a->ids.size(); ++i) {
      EXPECT_NEAR(a->ids[i].score, b->ids[i].score, 1e-4) << query << " " << i;
    }
  }
}

TEST(IndexCrashTest, KilledIndexerLosesAndDuplicatesNothing) {
  const char* bin = std::getenv("VEXFS_BIN");
  ASSERT_NE(bin, nullptr) << "VEXFS_BIN is not set";
  TempDir dir("vexfs-index-crash");
  std::string path = dir.path() + "/store";
  auto created = Store::Create(path);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::unique_ptr<Store> store = std::move(*created);
  // The checks re-embed passages with the hash embedder.
  ASSERT_TRUE(Index::SetEmbedder(store.get(), "hash").ok());
  std::mt19937_64 rng(EnvNumber("VEXFS_CRASH_SEED", 7));
  for (int i = 0; i < kFiles; ++i) {
    ASSERT_TRUE(WriteFile(*store, "notes/" + std::to_string(i) + ".md", NoteText(rng)).ok());
  }
  int iterations = static_cast<int>(EnvNumber("VEXFS_INDEX_CRASH_ITERATIONS", kDefaultIterations));
  int killed_mid_run = 0;
  for (int it = 0; it < iterations; ++it) {
    ChildProcess child;
    std::string error;
    // Every third run searches: it drains the queue too, and then writes the
    // lexical checkpoint once enough records have arrived.
    std::vector<std::string> argv = {bin, "--store", path, "index", "wait"};
    if (it % 3 == 2) argv = {bin, "--store", path, "search", "agent memory plan"};
    ASSERT_TRUE(child.Start({.argv = argv,
                             .stderr_path = dir.path() + "/stderr"}, &error)) << error;
    std::this_thread::sleep_for(milliseconds(rng() % 250));
    child.Kill(SIGKILL);
    int status = child.Wait(milliseconds(10000));
    if (WIFSIGNALED(status)) ++killed_mid_run;
    ChangeSomeFiles(*store, rng);
  }
  EXPECT_GT(killed_mid_run, 0) << "no kill landed while the indexer ran";
  auto index = Index::Open(store.get());
  ASSERT_TRUE(index.ok());
  ASSERT_TRUE((*index)->Wait().ok());
  CheckIndexMatchesStore(*store);
  SearchRequest r;
  r.query = "agent memory snapshot plan";
  auto exact = (*index)->Search(r);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->unindexed_files, 0u);
  EXPECT_EQ(exact->hits.size(), 10u);
  CheckLexicalFilesAnswerLikeTheLog(*store, path + "/index", dir.path() + "/lexical");
  // The ANN index rebuilt from the log holds exactly the log's vectors.
  auto tables = index::SearchTables(store.get());
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  const index::IndexTables& ix = *tables;
  StoreTxn txn;
  ASSERT_TRUE(txn.Begin(store.get(), false).ok());
  auto model = index::FindModel(txn, ix, "hash-384");
  ASSERT_TRUE(model.ok() && model->has_value());
  auto ann = index::VectorIndex::Open(store.get(), **model, dir.path() + "/ann", {});
  ASSERT_TRUE(ann.ok()) << ann.status().ToString();
  ASSERT_EQ((*ann)->size(), (*model)->next_vector);
  for (uint64_t id = 0; id < (*ann)->size(); id += 7) {
    auto rec = index::ReadVector(txn, ix, **model, id);
    ASSERT_TRUE(rec.ok());
    const float* held = (*ann)->vector(id);
    EXPECT_EQ(std::vector<float>(held, held + rec->values.size()), rec->values) << id;
  }
  EXPECT_TRUE(store->Fsck().ok() && store->Fsck()->ok());
}

}  // namespace
}  // namespace vexfs::crash
