// Tests for creating and opening stores (error codes and messages, durability
// across reopen, read-only mode) and for a full store: kNoSpace with a clear
// message, and a store that still opens intact afterwards.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::TempDir;

TEST(StoreOpenTest, OpenMissingDirectoryIsNotFound) {
  TempDir dir;
  std::string path = dir.Sub("does-not-exist");
  auto store = Store::Open(path);
  ASSERT_CODE(store, StatusCode::kNotFound);
  EXPECT_NE(store.status().message().find(path), std::string::npos)
      << store.status().ToString();
}

TEST(StoreOpenTest, OpenDirectoryWithoutStoreIsNotFound) {
  TempDir dir;
  std::ofstream(dir.Sub("unrelated.txt")) << "hello";
  auto store = Store::Open(dir.path());
  ASSERT_CODE(store, StatusCode::kNotFound);
  EXPECT_NE(store.status().message().find(dir.path()), std::string::npos)
      << store.status().ToString();
}

TEST(StoreOpenTest, CreateOverExistingStoreIsAlreadyExists) {
  TempDir dir;
  std::string path = dir.Sub("store");
  { auto first = test::CreateStoreOrDie(path); }
  auto again = Store::Create(path, test::FastOptions());
  EXPECT_CODE(again, StatusCode::kAlreadyExists);
  // The existing store was not disturbed.
  EXPECT_OK(Store::Open(path, test::FastOptions()));
}

// LMDB allows one open of an environment per process: a second one would reset
// the lock table under the first. It is refused, naming the store, and the first
// open goes on working; once closed, the store opens again. A forked child is
// another process and may open it.
TEST(StoreOpenTest, ASecondOpenInOneProcessIsBusyUntilTheFirstCloses) {
  TempDir dir;
  std::string path = dir.Sub("store");
  auto first = test::CreateStoreOrDie(path);
  auto second = Store::Open(path, test::FastOptions());
  ASSERT_CODE(second, StatusCode::kBusy);
  EXPECT_NE(second.status().message().find(path), std::string::npos) << second.status().ToString();
  StoreOptions read_only = test::FastOptions();
  read_only.read_only = true;
  EXPECT_CODE(Store::Open(path, read_only), StatusCode::kBusy);
  auto tree = first->Tree();
  ASSERT_OK(tree.status());
  ASSERT_OK(test::PutFile(tree->get(), "still.txt", "works"));
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child opens the store itself; letting go of the store it inherited
    // must not release that open (nor close the child's lock file descriptor).
    auto mine = Store::Open(path, test::FastOptions());
    if (!mine.ok()) ::_exit(1);
    first.reset();
    if (Store::Open(path, test::FastOptions()).status().code() != StatusCode::kBusy) ::_exit(2);
    auto tree = (*mine)->Tree();
    ::_exit(tree.ok() && (*tree)->ReadAll("still.txt").ok() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  first.reset();
  auto again = Store::Open(path, test::FastOptions());
  ASSERT_OK(again.status());
  auto reopened = (*again)->Tree();
  ASSERT_OK(reopened.status());
  EXPECT_EQ(*(*reopened)->ReadAll("still.txt"), "works");
}

// Two creates of one directory at once in one process: one makes the store, the
// other fails (busy, or the store exists) without removing the first one's files.
TEST(StoreOpenTest, ConcurrentCreatesLeaveOneWorkingStore) {
  for (int round = 0; round < 20; ++round) {
    TempDir dir;
    std::string path = dir.Sub("store");
    Result<std::unique_ptr<Store>> a = Status::IOError("not run");
    Result<std::unique_ptr<Store>> b = Status::IOError("not run");
    std::thread other([&] { b = Store::Create(path, test::FastOptions()); });
    a = Store::Create(path, test::FastOptions());
    other.join();
    ASSERT_NE(a.ok(), b.ok()) << a.status().ToString() << " / " << b.status().ToString();
    const Status& lost = a.ok() ? b.status() : a.status();
    EXPECT_TRUE(lost.code() == StatusCode::kBusy || lost.code() == StatusCode::kAlreadyExists)
        << lost.ToString();
    std::unique_ptr<Store> store = a.ok() ? std::move(*a) : std::move(*b);
    auto tree = store->Tree();
    ASSERT_OK(tree.status());
    ASSERT_OK(test::PutFile(tree->get(), "kept.txt", "kept"));
    store.reset();
    auto reopened = Store::Open(path, test::FastOptions());
    ASSERT_OK(reopened.status());
    EXPECT_EQ(*(*(*reopened)->Tree())->ReadAll("kept.txt"), "kept");
  }
}

TEST(StoreOpenTest, CreateInNonEmptyDirectoryIsRefused) {
  TempDir dir;
  std::ofstream(dir.Sub("precious.txt")) << "do not touch";
  EXPECT_CODE(Store::Create(dir.path(), test::FastOptions()), StatusCode::kAlreadyExists);
  std::ifstream in(dir.Sub("precious.txt"));
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "do not touch");
}

// A Create that fails (here: a map too small to hold even an empty store) must
// leave nothing behind, so the same path can be initialised once the cause is gone.
TEST(StoreOpenTest, FailedCreateLeavesThePathReusable) {
  TempDir dir;
  std::string path = dir.Sub("store");
  StoreOptions tiny = test::FastOptions();
  tiny.map_size = 1024;
  auto failed = Store::Create(path, tiny);
  ASSERT_FALSE(failed.ok());
  EXPECT_CODE(Store::Open(path, test::FastOptions()), StatusCode::kNotFound);
  auto retry = Store::Create(path, test::FastOptions());
  ASSERT_OK(retry);
  EXPECT_OK((*retry)->CurrentBranch());
}

TEST(StoreOpenTest, CreateMakesMissingParents) {
  TempDir dir;
  std::string path = dir.Sub("a/b/c/store");
  auto store = Store::Create(path, test::FastOptions());
  ASSERT_OK(store);
  EXPECT_EQ((*store)->path(), path);
  ASSIGN_OR_FAIL(std::string branch, (*store)->CurrentBranch());
  EXPECT_EQ(branch, "main");
}

TEST(StoreOpenTest, DamagedMarkerIsCorruption) {
  TempDir dir;
  std::string path = dir.Sub("store");
  { auto store = test::CreateStoreOrDie(path); }
  std::ofstream(path + "/VEXFS", std::ios::trunc) << "garbage\n";
  EXPECT_CODE(Store::Open(path), StatusCode::kCorruption);
}

TEST(StoreOpenTest, DataSurvivesReopenWithSyncedCommits) {
  TempDir dir;
  std::string path = dir.Sub("store");
  {
    auto store = test::CreateStoreOrDie(path, StoreOptions{});  // sync on commit
    ASSIGN_OR_FAIL(auto tree, store->Tree());
    ASSERT_OK(test::PutFile(tree.get(), "kept/file", "durable"));
    ASSERT_OK(store->CreateSnapshot("s", "msg", {{"k", "v"}}));
    ASSERT_OK(store->CreateBranch("dev", "s"));
  }
  auto store = test::OpenStoreOrDie(path, StoreOptions{});
  ASSIGN_OR_FAIL(auto tree, store->Tree());
  ASSIGN_OR_FAIL(std::string data, tree->ReadAll("kept/file"));
  EXPECT_EQ(data, "durable");
  ASSIGN_OR_FAIL(CommitInfo s, store->ResolveSnapshot("s"));
  EXPECT_EQ(s.message, "msg");
  ASSIGN_OR_FAIL(auto branches, store->ListBranches());
  EXPECT_EQ(branches.size(), 2u);
  ASSERT_OK(store->Sync());
}

TEST(StoreOpenTest, ReadOnlyStoreRefusesWrites) {
  TempDir dir;
  std::string path = dir.Sub("store");
  {
    auto store = test::CreateStoreOrDie(path);
    ASSIGN_OR_FAIL(auto tree, store->Tree());
    ASSERT_OK(test::PutFile(tree.get(), "f", "data"));
    ASSERT_OK(store->CreateSnapshot("s", "", {}));
  }
  StoreOptions options = test::FastOptions();
  options.read_only = true;
  auto store = test::OpenStoreOrDie(path, options);
  ASSIGN_OR_FAIL(auto tree, store->Tree());
  ASSIGN_OR_FAIL(std::string data, tree->ReadAll("f"));
  EXPECT_EQ(data, "data");
  EXPECT_CODE(test::PutFile(tree.get(), "g", "x"), StatusCode::kReadOnly);
  EXPECT_CODE(store->CreateSnapshot("t", "", {}), StatusCode::kReadOnly);
  EXPECT_CODE(store->Gc(), StatusCode::kReadOnly);
  EXPECT_CODE(store->CreateBranch("b", std::nullopt), StatusCode::kReadOnly);
  ASSIGN_OR_FAIL(auto diff, store->Diff("s", kWorkingName));
  EXPECT_TRUE(diff.empty());
  EXPECT_TRUE(test::FsckClean(*store));
}

// A store with a 1 MiB map fills up quickly.
class StoreFullTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kMapSize = 1 << 20;
  void SetUp() override {
    StoreOptions options = test::FastOptions();
    options.map_size = kMapSize;
    store_ = test::CreateStoreOrDie(path(), options);
  }
  std::string path() const { return dir_.Sub("store"); }
  // Writes distinct incompressible 16 KiB files until the store is full; returns
  // the status that stopped it.
  Status FillUp(std::map<std::string, std::string>* written) {
    VEXFS_ASSIGN_OR_RETURN(auto tree, store_->Tree());
    test::Random rng(17);
    for (int i = 0; i < 1000; ++i) {
      std::string path = "fill/f" + std::to_string(i);
      std::string data = rng.Bytes(16 * 1024);
      Status st = test::PutFile(tree.get(), path, data);
      if (!st.ok()) return st;
      (*written)[path] = data;
    }
    return Status::Ok();
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreFullTest, FullStoreSaysSoAndStaysIntact) {
  std::map<std::string, std::string> written;
  Status st = FillUp(&written);
  ASSERT_EQ(st.code(), StatusCode::kNoSpace) << st.ToString();
  EXPECT_NE(st.message().find("full"), std::string::npos) << st.ToString();
  EXPECT_GT(written.size(), 5u);
  // Snapshots may or may not fit now; either way the store must stay sound.
  Status snap = store_->CreateSnapshot("maybe", "", {}).status();
  EXPECT_TRUE(snap.ok() || snap.code() == StatusCode::kNoSpace) << snap.ToString();
  store_.reset();

  store_ = test::OpenStoreOrDie(path());
  ASSIGN_OR_FAIL(StoreStats stats, store_->Stats());
  EXPECT_EQ(stats.map_size, kMapSize);
  ASSIGN_OR_FAIL(auto tree, store_->Tree());
  for (const auto& [path, data] : written) {
    ASSIGN_OR_FAIL(std::string got, tree->ReadAll(path));
    EXPECT_EQ(got, data) << path;
  }
  EXPECT_TRUE(test::FsckClean(*store_));
}

TEST_F(StoreFullTest, DeletingAndGcMakesRoomAgain) {
  std::map<std::string, std::string> written;
  ASSERT_CODE(FillUp(&written), StatusCode::kNoSpace);
  ASSIGN_OR_FAIL(auto tree, store_->Tree());
  ASSERT_OK(tree->Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t dir, ed.ResolvePath("fill"));
    for (int i = 0; i < 10; ++i) VEXFS_RETURN_IF_ERROR(ed.Unlink(dir, "f" + std::to_string(i)));
    return Status::Ok();
  }));
  ASSIGN_OR_FAIL(GcReport report, store_->Gc());
  EXPECT_GE(report.objects_freed, 10u);
  EXPECT_OK(test::PutFile(tree.get(), "after-gc", test::RandomBytes(5, 16 * 1024)));
  EXPECT_TRUE(test::FsckClean(*store_));
}

TEST_F(StoreFullTest, ReopeningWithLargerMapAddsRoom) {
  std::map<std::string, std::string> written;
  ASSERT_CODE(FillUp(&written), StatusCode::kNoSpace);
  store_.reset();
  StoreOptions bigger = test::FastOptions();
  bigger.map_size = 8 * kMapSize;
  store_ = test::OpenStoreOrDie(path(), bigger);
  ASSIGN_OR_FAIL(auto tree, store_->Tree());
  EXPECT_OK(test::PutFile(tree.get(), "roomy", test::RandomBytes(6, 64 * 1024)));
  ASSIGN_OR_FAIL(std::string first, tree->ReadAll("fill/f0"));
  EXPECT_EQ(first, written["fill/f0"]);
  EXPECT_TRUE(test::FsckClean(*store_));
}

}  // namespace
}  // namespace vexfs
