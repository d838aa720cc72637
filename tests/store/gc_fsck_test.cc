// Tests for garbage collection and fsck: gc frees what nothing reaches (deleted
// snapshots and branches, overwritten data), keeps everything still reachable
// readable, reports what it freed, and leaves a store fsck finds clean.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;
using test::TreeDump;

class GcFsckTest : public StoreTest {
 protected:
  TreeDump Dump(TreeView* view) {
    auto dump = test::DumpTree(view);
    EXPECT_TRUE(dump.ok()) << dump.status().ToString();
    return dump.ok() ? *dump : TreeDump{};
  }
  // Every named snapshot and every branch's working tree, as dumps.
  std::map<std::string, TreeDump> Everything() {
    std::map<std::string, TreeDump> out;
    auto snapshots = store().ListSnapshots();
    EXPECT_TRUE(snapshots.ok());
    for (const CommitInfo& info : *snapshots) {
      auto view = store().OpenSnapshot(info.id.ToHex());
      EXPECT_TRUE(view.ok()) << view.status().ToString();
      if (view.ok()) out["snapshot " + info.id.ToHex()] = Dump(view->get());
    }
    auto branches = store().ListBranches();
    EXPECT_TRUE(branches.ok());
    for (const BranchInfo& b : *branches) {
      auto tree = store().Tree(b.name);
      EXPECT_TRUE(tree.ok());
      if (tree.ok()) out["branch " + b.name] = Dump(tree->get());
    }
    return out;
  }
};

TEST_F(GcFsckTest, FsckOnFreshStoreIsClean) {
  ASSIGN_OR_FAIL(FsckReport report, store().Fsck());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.objects_checked, 0u);
  EXPECT_GE(report.refs_checked, 2u);  // HEAD and branch/main
  EXPECT_EQ(report.inodes_checked, 1u);
}

TEST_F(GcFsckTest, FsckCountsWhatItChecks) {
  ASSERT_OK(Put("a/b", "x"));
  ASSERT_OK(Snap("s"));
  ASSIGN_OR_FAIL(FsckReport report, store().Fsck());
  EXPECT_TRUE(report.ok());
  ASSIGN_OR_FAIL(StoreStats stats, store().Stats());
  EXPECT_EQ(report.objects_checked, stats.objects);
  EXPECT_EQ(report.inodes_checked, 3u);
  EXPECT_EQ(report.refs_checked, 3u);  // HEAD, branch/main, snap/s
}

TEST_F(GcFsckTest, GcOnFreshStoreFreesNothing) {
  ASSIGN_OR_FAIL(GcReport report, store().Gc());
  EXPECT_EQ(report.objects_freed, 0u);
  EXPECT_EQ(report.bytes_freed, 0u);
}

TEST_F(GcFsckTest, OverwrittenUnsnapshottedDataIsFreed) {
  ASSERT_OK(Put("f", test::RandomBytes(1, 1 << 20)));
  ASSERT_OK(Put("f", test::RandomBytes(2, 1 << 20)));
  ASSIGN_OR_FAIL(StoreStats before, store().Stats());
  ASSIGN_OR_FAIL(GcReport report, store().Gc());
  EXPECT_EQ(report.objects_freed, 16u);  // the sixteen chunks of the first version
  EXPECT_GE(report.bytes_freed, 1u << 20);
  ASSIGN_OR_FAIL(StoreStats after, store().Stats());
  EXPECT_EQ(after.objects, before.objects - report.objects_freed);
  EXPECT_EQ(after.object_bytes, before.object_bytes - report.bytes_freed);
  EXPECT_EQ(report.objects_kept, after.objects);
  EXPECT_EQ(Content("f"), test::RandomBytes(2, 1 << 20));
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(GcFsckTest, DeletedBranchAndSnapshotAreFreed) {
  ASSERT_OK(Put("shared", "kept by main"));
  ASSERT_OK(Snap("main-1"));
  ASSERT_OK(store().CreateBranch("scratch", std::nullopt));
  ASSIGN_OR_FAIL(auto scratch, store().Tree("scratch"));
  ASSERT_OK(test::PutFile(scratch.get(), "big", test::RandomBytes(3, 2 << 20)));
  ASSERT_OK(store().CreateSnapshot("scratch-1", "", {}, "scratch"));
  ASSERT_OK(test::PutFile(scratch.get(), "big", test::RandomBytes(4, 2 << 20)));
  ASSERT_OK(store().CreateSnapshot("scratch-2", "", {}, "scratch"));
  ASSIGN_OR_FAIL(GcReport nothing, store().Gc());
  EXPECT_EQ(nothing.objects_freed, 0u);  // everything is still reachable

  ASSERT_OK(store().DeleteSnapshotName("scratch-1"));
  ASSIGN_OR_FAIL(GcReport still, store().Gc());
  EXPECT_EQ(still.objects_freed, 0u);  // scratch-1 is the parent of scratch-2

  ASSERT_OK(store().DeleteSnapshotName("scratch-2"));
  ASSERT_OK(store().DeleteBranch("scratch"));
  std::map<std::string, TreeDump> before = Everything();
  ASSIGN_OR_FAIL(GcReport freed, store().Gc());
  EXPECT_GE(freed.bytes_freed, 4u << 20);
  EXPECT_GE(freed.objects_freed, 64u + 2);  // both versions' chunks and commits
  EXPECT_EQ(Everything(), before);
  EXPECT_EQ(Content("shared"), "kept by main");
  EXPECT_TRUE(test::FsckClean(store()));
  ASSIGN_OR_FAIL(GcReport again, store().Gc());
  EXPECT_EQ(again.objects_freed, 0u);
}

TEST_F(GcFsckTest, HistoryReachedThroughParentsSurvives) {
  ASSERT_OK(Put("f", "v1"));
  ASSIGN_OR_FAIL(CommitInfo s1, Snap("s1"));
  ASSERT_OK(Put("f", "v2"));
  ASSERT_OK(Snap("s2"));
  ASSERT_OK(store().DeleteSnapshotName("s1"));
  ASSERT_OK(store().Gc().status());
  ASSIGN_OR_FAIL(auto view, store().OpenSnapshot(s1.id.ToHex()));
  ASSIGN_OR_FAIL(std::string f, view->ReadAll("f"));
  EXPECT_EQ(f, "v1");
}

TEST_F(GcFsckTest, GcAfterManyChangesKeepsEverythingReadable) {
  test::Random rng(5);
  for (int round = 0; round < 6; ++round) {
    ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
      for (int i = 0; i < 30; ++i) {
        std::string path = "d" + std::to_string(i % 4) + "/f" + std::to_string(i);
        VEXFS_RETURN_IF_ERROR(ed.PutFile(path, rng.Bytes(rng.Uniform(0, 150000)), {}).status());
      }
      return Status::Ok();
    }));
    ASSERT_OK(Snap("r" + std::to_string(round)));
  }
  ASSERT_OK(store().CreateBranch("side", "r2"));
  ASSIGN_OR_FAIL(auto side, store().Tree("side"));
  ASSERT_OK(test::PutFile(side.get(), "side-only", rng.Bytes(100000)));
  ASSERT_OK(store().Restore("r1"));
  ASSERT_OK(Put("d0/f0", "uncommitted"));
  // Garbage: a version that was overwritten before any snapshot saw it.
  ASSERT_OK(Put("scratch", rng.Bytes(200000)));
  ASSERT_OK(Put("scratch", "small"));
  // Unnamed, but still reachable through main's head.
  ASSERT_OK(store().DeleteSnapshotName("r4"));
  ASSERT_OK(store().DeleteSnapshotName("r5"));
  std::map<std::string, TreeDump> before = Everything();
  ASSIGN_OR_FAIL(GcReport report, store().Gc());
  EXPECT_EQ(report.objects_freed, 4u);  // the four chunks of the overwritten version
  EXPECT_EQ(Everything(), before);
  ASSIGN_OR_FAIL(auto log, store().Log());
  EXPECT_EQ(log.size(), 6u);  // main's head still reaches r5 .. r0
  for (const CommitInfo& c : log) {
    ASSIGN_OR_FAIL(auto view, store().OpenSnapshot(c.id.ToHex()));
    EXPECT_TRUE(test::DumpTree(view.get()).ok()) << c.id.ToHex();
  }
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(GcFsckTest, ProgressIsReported) {
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    for (int i = 0; i < 5000; ++i) {
      VEXFS_RETURN_IF_ERROR(ed.PutFile("f" + std::to_string(i), "x" + std::to_string(i), {})
                                .status());
    }
    return Status::Ok();
  }));
  ASSERT_OK(Snap("s"));
  uint64_t calls = 0, last = 0;
  ASSIGN_OR_FAIL(FsckReport report, store().Fsck([&](uint64_t done, uint64_t) {
    ++calls;
    EXPECT_GE(done, last);
    last = done;
  }));
  EXPECT_TRUE(report.ok());
  EXPECT_GT(calls, 0u);
  calls = 0;
  ASSERT_OK(store().Gc([&](uint64_t, uint64_t) { ++calls; }).status());
  EXPECT_GT(calls, 0u);
}

}  // namespace
}  // namespace vexfs
