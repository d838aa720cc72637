// The sharded lexical build against the sequential one: the same documents
// under the same numbers, the same terms and positions, and so the same BM25
// scores; progress that adds up to the whole log.
#include <xapian.h>

#include <filesystem>
#include <mutex>
#include <set>

#include "index/lexical/analysis.h"
#include "index/lexical/build.h"
#include "index/model_registry.h"
#include "test_util.h"
#include "vexfs/extension.h"
#include "vexfs/index.h"

namespace vexfs {
namespace {

using test::StoreTest;

constexpr const char* kWords[] = {"alpha", "beta",  "gamma",  "delta",   "omega", "kernel",
                                  "cache", "plans", "running", "ranked", "notes", "graph"};

std::string Words(test::Random& rnd, int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += kWords[rnd.Uniform(0, std::size(kWords) - 1)];
    text += (i % 9 == 8) ? ". " : " ";
  }
  return text;
}

class LexicalBuildTest : public StoreTest {
 protected:
  // Indexes `files` random files and returns the lexical model.
  index::ModelRecord IndexFiles(int files) {
    EXPECT_OK(Index::SetEmbedder(&store(), "hash"));
    auto index = Index::Open(&store());
    EXPECT_TRUE(index.ok());
    test::Random rnd(21);
    for (int i = 0; i < files; ++i) {
      EXPECT_OK(Put("d/" + std::to_string(i) + ".txt", Words(rnd, 40 + i % 200)));
    }
    EXPECT_OK((*index)->Wait());
    auto ix = index::SearchTables(&store());
    EXPECT_OK(ix.status());
    StoreTxn txn;
    EXPECT_OK(txn.Begin(&store(), false));
    auto model = index::FindModel(txn, *ix, index::kLexicalModelName);
    EXPECT_TRUE(model.ok() && model->has_value());
    return **model;
  }
};

std::vector<std::pair<Xapian::docid, double>> Ranking(const Xapian::Database& db,
                                                      const std::string& text) {
  auto parsed = index::ParseLexicalQuery(text, db);
  EXPECT_TRUE(parsed.ok());
  Xapian::Enquire enquire(db);
  enquire.set_weighting_scheme(Xapian::BM25Weight());
  enquire.set_query(parsed->query);
  std::vector<std::pair<Xapian::docid, double>> out;
  Xapian::MSet mset = enquire.get_mset(0, 50);
  for (auto it = mset.begin(); it != mset.end(); ++it) out.emplace_back(*it, it.get_weight());
  return out;
}

TEST_F(LexicalBuildTest, ShardedBuildEqualsTheSequentialOne) {
  index::ModelRecord model = IndexFiles(300);
  ASSERT_GE(model.next_vector, 300u);
  test::TempDir dir;
  ASSERT_OK(index::BuildLexicalDatabaseInShards(&store(), model, dir.Sub("one"), nullptr, 1));
  std::mutex mu;
  std::set<uint64_t> seen;
  uint64_t last_total = 0;
  auto progress = [&](uint64_t done, uint64_t total) {
    std::lock_guard lock(mu);
    seen.insert(done);
    last_total = total;
  };
  ASSERT_OK(index::BuildLexicalDatabaseInShards(&store(), model, dir.Sub("three"), progress, 3));
  EXPECT_EQ(last_total, model.next_vector);
  EXPECT_EQ(seen.count(model.next_vector), 1u);  // the shards' counts add up to the log
  for (int s = 0; s < 3; ++s) {  // the scratch shards are gone
    EXPECT_FALSE(std::filesystem::exists(dir.Sub("three.s" + std::to_string(s))));
  }
  Xapian::Database one(dir.Sub("one")), three(dir.Sub("three"));
  ASSERT_EQ(one.get_doccount(), model.next_vector);
  ASSERT_EQ(three.get_doccount(), one.get_doccount());
  ASSERT_EQ(three.get_lastdocid(), one.get_lastdocid());
  EXPECT_EQ(three.get_total_length(), one.get_total_length());
  for (Xapian::docid d = 1; d <= one.get_lastdocid(); ++d) {
    Xapian::Document a = one.get_document(d), b = three.get_document(d);
    ASSERT_EQ(a.get_value(index::kIdSlot), b.get_value(index::kIdSlot)) << d;
    std::vector<std::string> ta(a.termlist_begin(), a.termlist_end());
    std::vector<std::string> tb(b.termlist_begin(), b.termlist_end());
    ASSERT_EQ(ta, tb) << "document " << d;
  }
  for (const char* q : {"alpha beta", "\"gamma delta\"", "omega"}) {
    auto a = Ranking(one, q), b = Ranking(three, q);
    ASSERT_EQ(a.size(), b.size()) << q;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].first, b[i].first) << q << " #" << i;
      EXPECT_DOUBLE_EQ(a[i].second, b[i].second) << q << " #" << i;
    }
  }
}

TEST_F(LexicalBuildTest, MoreShardsThanRecordsStillBuildsEveryRecord) {
  index::ModelRecord model = IndexFiles(3);
  test::TempDir dir;
  ASSERT_OK(index::BuildLexicalDatabaseInShards(&store(), model, dir.Sub("db"), nullptr, 8));
  Xapian::Database db(dir.Sub("db"));
  EXPECT_EQ(db.get_doccount(), model.next_vector);
  EXPECT_EQ(db.get_lastdocid(), model.next_vector);
}

}  // namespace
}  // namespace vexfs
