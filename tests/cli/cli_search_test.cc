// End-to-end tests of `vexfs search`, `index`, `meta` and `vector`: the real
// binary, its JSON, its errors and exit codes.
#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

class CliSearchTest : public CliStoreTest {
 protected:
  void PutNotes() {
    PutText("notes/deploy.md",
            "# Deployment\n\nRolling back a release uses helm rollback with the previous "
            "revision number.\n");
    PutText("notes/prefs.txt", "The user prefers short answers without tables.\n");
    PutText("todo/errands.txt", "Buy oat milk and coffee beans.\n");
  }

  std::vector<std::string> HitPaths(const json& result) {
    std::vector<std::string> out;
    for (const json& h : result["hits"]) out.push_back(h["path"].get<std::string>());
    return out;
  }
};

TEST_F(CliSearchTest, SearchIndexesQueuedChangesAndReportsHits) {
  PutNotes();
  json status = VexfsJson({"index", "status"});
  EXPECT_EQ(status["queued"], 3);
  EXPECT_EQ(status["embedder"], "glove");
  // The default (lexical) mode returns the files that share words with the query.
  json result = VexfsJson({"search", "how do I roll back a helm release", "-k", "2"});
  EXPECT_EQ(result["mode"], "lexical");
  EXPECT_EQ(result["lexical_model"], "bm25-en");
  ASSERT_EQ(result["hits"].size(), 1u);
  const json& top = result["hits"][0];
  EXPECT_EQ(top["path"], "notes/deploy.md");
  EXPECT_EQ(top["offset"], 0);
  EXPECT_GT(top["length"].get<int>(), 0);
  EXPECT_NE(top["snippet"].get<std::string>().find("helm rollback"), std::string::npos);
  EXPECT_EQ(top["lexical"]["rank"], 1);
  EXPECT_TRUE(top["dense"].is_null());
  EXPECT_EQ(VexfsJson({"index", "status"})["queued"], 0);
  // Dense search ranks every file by its vector: k come back.
  result = VexfsJson({"search", "how do I roll back a helm release", "-k", "2", "--mode", "dense"});
  ASSERT_EQ(result["hits"].size(), 2u);
  EXPECT_EQ(result["hits"][0]["path"], "notes/deploy.md");
  EXPECT_EQ(result["model"], "glove-6b-100d");
  EXPECT_EQ(result["method"], "exact");
  EXPECT_TRUE(result["hits"][0]["lexical"].is_null());
  // Hybrid: both sides' ranks for the fused first hit.
  result = VexfsJson({"search", "how do I roll back a helm release", "--mode", "hybrid"});
  EXPECT_EQ(result["mode"], "hybrid");
  EXPECT_EQ(result["fusion"], "rrf");
  ASSERT_EQ(result["hits"].size(), 3u);
  EXPECT_EQ(result["hits"][0]["path"], "notes/deploy.md");
  EXPECT_EQ(result["hits"][0]["dense"]["rank"], 1);
  EXPECT_EQ(result["hits"][0]["lexical"]["rank"], 1);
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--mode", "fuzzy"}), 4, {"unknown search mode"}));
  // Text output: score, path, range, snippet.
  std::string text = VexfsOk({"search", "helm rollback", "-k", "1"});
  EXPECT_NE(text.find("notes/deploy.md  [0+"), std::string::npos) << text;
}

TEST_F(CliSearchTest, RebuildWithAModelReindexesEverythingWithIt) {
  VexfsOk({"index", "use", "hash"});
  PutNotes();
  VexfsOk({"snapshot", "create", "s1"});
  EXPECT_EQ(VexfsJson({"search", "helm", "--mode", "dense", "-k", "1"})["model"], "hash-384");
  VexfsOk({"index", "rebuild", "--model", "glove"});
  json status = VexfsJson({"index", "status"});
  EXPECT_EQ(status["embedder"], "glove");
  EXPECT_EQ(status["queued"], 0);
  json now = VexfsJson({"search", "helm rollback", "--mode", "dense", "-k", "1", "--no-wait"});
  EXPECT_EQ(now["model"], "glove-6b-100d");
  EXPECT_EQ(now["unindexed_files"], 0);
  EXPECT_EQ(HitPaths(now), std::vector<std::string>{"notes/deploy.md"});
  json then = VexfsJson({"search", "helm rollback", "--mode", "dense", "--at", "s1", "--no-wait"});
  EXPECT_EQ(then["unindexed_files"], 0);  // snapshots are re-embedded too
  EXPECT_TRUE(FailedWith(Vexfs({"index", "rebuild", "--model", "nonsense"}), 4,
                         {"unknown embedder"}));
  EXPECT_EQ(VexfsJson({"index", "status"})["embedder"], "glove");  // a bad spec changes nothing
}

TEST_F(CliSearchTest, NoWaitSearchesOnlyWhatIsIndexed) {
  PutNotes();
  ProcessResult r = Vexfs({"search", "helm rollback", "--no-wait", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json result = json::parse(r.out);
  EXPECT_TRUE(result["hits"].empty());
  EXPECT_EQ(result["unindexed_files"], 3);
  VexfsOk({"index", "wait"});
  EXPECT_EQ(HitPaths(VexfsJson({"search", "helm rollback", "--no-wait", "-k", "1"})),
            std::vector<std::string>{"notes/deploy.md"});
}

TEST_F(CliSearchTest, AtSnapshotFindsWhatTheWorkingTreeLost) {
  PutNotes();
  VexfsOk({"snapshot", "create", "before"});
  VexfsOk({"rm", "notes/prefs.txt"});
  std::string query = "how short should answers be";
  for (const std::string& p : HitPaths(VexfsJson({"search", query}))) {
    EXPECT_NE(p, "notes/prefs.txt");
  }
  auto then = HitPaths(VexfsJson({"search", query, "--at", "before"}));
  ASSERT_FALSE(then.empty());
  EXPECT_EQ(then[0], "notes/prefs.txt");
}

TEST_F(CliSearchTest, FiltersByPathMetadataAndTime) {
  PutNotes();
  VexfsOk({"meta", "set", "todo/errands.txt", "kind=errand", "owner=me"});
  json meta = VexfsJson({"meta", "get", "todo/errands.txt"});
  EXPECT_EQ(meta, (json{{"kind", "errand"}, {"owner", "me"}}));
  EXPECT_EQ(HitPaths(VexfsJson({"search", "milk", "--where", "kind=errand"})),
            std::vector<std::string>{"todo/errands.txt"});
  EXPECT_TRUE(HitPaths(VexfsJson({"search", "milk", "--where", "kind=work"})).empty());
  for (const std::string& p : HitPaths(VexfsJson({"search", "answers", "--under", "notes"}))) {
    EXPECT_TRUE(p.starts_with("notes/")) << p;
  }
  // Dense search ranks every file, so the time filters alone decide what comes back.
  EXPECT_EQ(HitPaths(VexfsJson({"search", "answers", "--mode", "dense", "--modified-after",
                                "2000-01-01"})).size(), 3u);
  EXPECT_TRUE(HitPaths(VexfsJson({"search", "answers", "--mode", "dense", "--modified-before",
                                  "2000-01-01"})).empty());
}

TEST_F(CliSearchTest, SuppliedVectorsAreSearchedByVector) {
  PutNotes();
  VexfsOk({"vector", "set", "notes/deploy.md", "--model", "mine", "--values", "[1,0]"});
  VexfsOk({"vector", "set", "notes/prefs.txt", "--model", "mine"}, "[0,1]");
  json result = VexfsJson({"search", "x", "--model", "mine", "--vector", "[0.1,0.9]", "-k", "1"});
  EXPECT_EQ(HitPaths(result), std::vector<std::string>{"notes/prefs.txt"});
  json status = VexfsJson({"index", "status"});
  bool found = false;
  for (const json& m : status["models"]) {
    if (m["name"] == "mine") {
      found = true;
      EXPECT_EQ(m["dim"], 2);
      EXPECT_EQ(m["kind"], "supplied");
      EXPECT_EQ(m["vectors"], 2);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(CliSearchTest, BadInputGetsClearErrorsAndChangesNothing) {
  PutNotes();
  StoreState before = CaptureState();
  EXPECT_TRUE(FailedWith(Vexfs({"search", ""}), 4, {"query is empty"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "-k", "0"}), 4, {"-k"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "-k", "99999999"}), 4, {"k must be"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--at", "nope"}), 3, {"nope"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--model", "nope"}), 3, {"nope"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--where", "novalue"}), 4, {"KEY=VALUE"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--modified-after", "yesterday"}), 4,
                         {"yesterday"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--vector", "[1,2"}), 4, {"JSON array"}));
  EXPECT_TRUE(FailedWith(Vexfs({"search", "x", "--vector", "[1,2]"}), 4, {"dimension"}));
  EXPECT_TRUE(FailedWith(Vexfs({"vector", "set", "notes/deploy.md", "--model", "m",
                                "--values", "[1e39, 0]"}), 4, {"not finite"}));
  EXPECT_TRUE(FailedWith(Vexfs({"vector", "set", "notes/deploy.md", "--model", "m",
                                "--values", "[\"a\"]"}), 4, {"numbers"}));
  EXPECT_TRUE(FailedWith(Vexfs({"vector", "set", "nope.md", "--model", "m", "--values", "[1]"}),
                         3, {"nope.md"}));
  EXPECT_TRUE(FailedWith(Vexfs({"meta", "set", "notes/deploy.md", "bad key=1"}), 4,
                         {"bad key"}));
  EXPECT_TRUE(FailedWith(Vexfs({"index", "use", "word2vec"}), 4, {"word2vec"}));
  EXPECT_EQ(CaptureState(), before);
  ExpectFsckClean();
}

TEST_F(CliSearchTest, RebuildAfterDeletingTheIndexFilesGivesTheSameAnswer) {
  for (int i = 0; i < 40; ++i) {
    PutText("m/" + std::to_string(i) + ".txt",
            "memo " + std::to_string(i) + " about subject " + std::to_string(i % 7));
  }
  json first = VexfsJson({"search", "memo about subject 3"});
  VexfsOk({"index", "rebuild"});
  std::filesystem::remove_all(store() + "/index");
  EXPECT_EQ(VexfsJson({"search", "memo about subject 3"}), first);
  VexfsOk({"index", "rebuild"});
  EXPECT_TRUE(std::filesystem::exists(store() + "/index"));
  EXPECT_EQ(VexfsJson({"search", "memo about subject 3"}), first);
}

}  // namespace
}  // namespace vexfs::cli_test
