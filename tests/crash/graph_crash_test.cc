// A graph writer killed with SIGKILL at random moments, again and again: after
// every kill, every step it acknowledged is there (its fact, its link, its
// invalidation, its snapshot with the graph as of then), nothing is half
// written, and fsck finds the store clean.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <random>
#include <thread>

#include "crash/child_process.h"
#include "test_util.h"
#include "vexfs/db.h"

namespace vexfs::crash {
namespace {

using std::chrono::milliseconds;

constexpr int kDefaultKills = 12;

// The last "ack N" line in `text`, or -1.
int64_t LastAck(const std::string& text) {
  size_t at = text.rfind("ack ");
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + 4));
}

GraphId Fact(int64_t i) { return GraphIdForKey("k" + std::to_string(i)); }

// What the writer promised up to step `acked`, checked on the working graph
// and on every snapshot it took.
void CheckAcked(Db& db, int64_t acked) {
  GraphReadOptions all{.include_invalid = true, .include_retired = true};
  for (int64_t i = 0; i <= acked; ++i) {
    auto node = db.graph().Node(Fact(i), all);
    ASSERT_TRUE(node.ok()) << node.status().ToString();
    ASSERT_TRUE(node->has_value()) << "acked fact " << i << " is lost";
    // Step i+2 invalidates fact i every third step; the step after the last
    // ack may have committed or not.
    bool invalidated = (*node)->times.valid_to == 5000;
    if (i + 2 <= acked) {
      EXPECT_EQ(invalidated, (i + 2) % 3 == 0) << "fact " << i;
    }
    if (i + 2 > acked + 1) {
      EXPECT_FALSE(invalidated) << "fact " << i;
    }
    if (i == 0) continue;
    auto hood = db.graph().Neighbors({.start = Fact(i), .edge_kinds = {"derived_from"},
                                      .direction = GraphDirection::kOut, .read = all});
    ASSERT_TRUE(hood.ok());
    EXPECT_EQ(hood->nodes.size(), 2u) << "acked link of fact " << i << " is lost";
  }
  for (int64_t i = 9; i <= acked; i += 10) {
    GraphReadOptions at{.snapshot = "s" + std::to_string(i), .include_invalid = true};
    auto stats = db.graph().Stats(at);
    ASSERT_TRUE(stats.ok()) << "snapshot s" << i << ": " << stats.status().ToString();
    EXPECT_EQ(stats->nodes, static_cast<uint64_t>(i + 1)) << "snapshot s" << i;
    EXPECT_EQ(stats->edges, static_cast<uint64_t>(i)) << "snapshot s" << i;
  }
}

TEST(GraphCrashTest, KilledWriterLosesNothingAcknowledged) {
  const char* writer = VEXFS_GRAPH_CRASH_WRITER;
  test::TempDir dir;
  std::string path = dir.Sub("store");
  {
    DbOptions options;
    options.embedder = "hash";
    options.background_indexing = false;
    ASSERT_TRUE(Db::Create(path, options).ok());
  }
  std::mt19937_64 rng(test::EnvOr("VEXFS_CRASH_SEED", 11));
  int kills = static_cast<int>(test::EnvOr("VEXFS_GRAPH_CRASH_KILLS", kDefaultKills));
  int64_t acked = -1;
  int killed_mid_run = 0;
  for (int k = 0; k < kills; ++k) {
    ChildProcess child;
    std::string error;
    ASSERT_TRUE(child.Start({.argv = {writer, path, std::to_string(acked + 1)},
                             .stderr_path = dir.Sub("stderr")},
                            &error))
        << error;
    std::this_thread::sleep_for(milliseconds(20 + rng() % 200));
    child.Kill(SIGKILL);
    int status = child.Wait(milliseconds(10000));
    if (WIFSIGNALED(status)) ++killed_mid_run;
    ASSERT_FALSE(WIFEXITED(status)) << "the writer failed; see its stderr in " << dir.Sub("stderr");
    acked = std::max(acked, LastAck(child.stdout_text()));
    DbOptions options;
    options.background_indexing = false;
    auto db = Db::Open(path, options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    CheckAcked(**db, acked);
    auto fsck = (*db)->store().Fsck();
    ASSERT_TRUE(fsck.ok());
    EXPECT_TRUE(fsck->ok()) << "fsck after kill " << k;
  }
  EXPECT_GT(killed_mid_run, kills / 2);
  EXPECT_GT(acked, 20) << "the writer made too little progress to test anything";
}

}  // namespace
}  // namespace vexfs::crash
