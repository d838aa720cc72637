// Tests for concurrent use: threads sharing one Store (writers, readers and a
// snapshotter at once) and processes each opening the store themselves after
// fork(). Afterwards every file must be present with the right bytes and fsck
// must be clean.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

class ConcurrencyTest : public test::StoreTest {};

// Content is a function of the path, so any reader can check anything it sees.
std::string ContentFor(const std::string& path) {
  uint64_t seed = std::hash<std::string>()(path);
  size_t size = seed % 3 == 0 ? 100000 + seed % 50000 : seed % 3000;
  return path + "\n" + test::RandomBytes(seed, size);
}

std::string PathFor(int writer, int i) {
  return "w" + std::to_string(writer) + "/d" + std::to_string(i % 5) + "/f" + std::to_string(i);
}

// Checks every regular file below `dir` of `view` against ContentFor.
Status CheckFiles(TreeView* view, const std::string& dir, int* checked) {
  VEXFS_ASSIGN_OR_RETURN(auto entries, view->List(dir));
  for (const DirEntry& e : entries) {
    std::string path = dir.empty() ? e.name : dir + "/" + e.name;
    if (e.attr.type == FileType::kDirectory) {
      VEXFS_RETURN_IF_ERROR(CheckFiles(view, path, checked));
      continue;
    }
    VEXFS_ASSIGN_OR_RETURN(std::string data, view->ReadAll(path));
    if (data != ContentFor(path)) return Status::Corruption("wrong bytes in " + path);
    ++*checked;
  }
  return Status::Ok();
}

TEST_F(ConcurrencyTest, ThreadsShareOneStore) {
  constexpr int kWriters = 4;
  constexpr int kFilesEach = 40;
  std::atomic<int> writers_done{0};
  std::atomic<int> failures{0};
  auto fail = [&](const std::string& what, const Status& st) {
    ++failures;
    ADD_FAILURE() << what << ": " << st.ToString();
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto tree = store().Tree();
      if (!tree.ok()) return fail("tree", tree.status());
      for (int i = 0; i < kFilesEach; ++i) {
        std::string path = PathFor(w, i);
        Status st = test::PutFile(tree->get(), path, ContentFor(path));
        if (!st.ok()) return fail("write " + path, st);
      }
      ++writers_done;
    });
  }
  // Readers see only whole files: every file present has exactly its content.
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      auto tree = store().Tree();
      if (!tree.ok()) return fail("tree", tree.status());
      while (writers_done < kWriters) {
        int checked = 0;
        Status st = CheckFiles(tree->get(), "", &checked);
        if (!st.ok()) return fail("read", st);
      }
    });
  }
  std::vector<std::string> snapshots;
  threads.emplace_back([&] {
    for (int s = 0; s < 10 && writers_done < kWriters; ++s) {
      std::string name = "c" + std::to_string(s);
      auto info = store().CreateSnapshot(name, "", {});
      if (!info.ok()) return fail("snapshot", info.status());
      snapshots.push_back(name);
    }
  });
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(failures, 0);

  int checked = 0;
  ASSERT_OK(CheckFiles(&tree(), "", &checked));
  EXPECT_EQ(checked, kWriters * kFilesEach);
  for (const std::string& name : snapshots) {
    ASSIGN_OR_FAIL(auto view, store().OpenSnapshot(name));
    int in_snapshot = 0;
    EXPECT_OK(CheckFiles(view.get(), "", &in_snapshot)) << name;
  }
  ASSIGN_OR_FAIL(auto log, store().Log());
  EXPECT_EQ(log.size(), snapshots.size());
  EXPECT_TRUE(test::FsckClean(store()));
}

// Runs in a forked child: opens the store itself and writes its files. Returns
// the process exit code (0 = success); nothing here may touch the parent's state.
int ChildWrites(const std::string& path, int child, int files) {
  auto store = Store::Open(path, test::FastOptions());
  if (!store.ok()) return 10;
  auto tree = (*store)->Tree();
  if (!tree.ok()) return 11;
  for (int i = 0; i < files; ++i) {
    std::string file = PathFor(child, i);
    if (!test::PutFile(tree->get(), file, ContentFor(file)).ok()) return 12;
  }
  std::string snap = "child" + std::to_string(child);
  if (!(*store)->CreateSnapshot(snap, "", {}).ok()) return 13;
  return 0;
}

TEST(ProcessConcurrencyTest, ProcessesShareOneStore) {
  constexpr int kChildren = 4;
  constexpr int kFilesEach = 30;
  test::TempDir dir;
  const std::string path = dir.Sub("store");
  // Created and closed before forking: no Store crosses a fork.
  test::CreateStoreOrDie(path).reset();
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(ChildWrites(path, c, kFilesEach));
    children.push_back(pid);
  }
  // The parent opens its own handle after forking and reads while children write.
  auto store = test::OpenStoreOrDie(path);
  ASSIGN_OR_FAIL(auto tree, store->Tree());
  for (int round = 0; round < 5; ++round) {
    int checked = 0;
    EXPECT_OK(CheckFiles(tree.get(), "", &checked));
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  int checked = 0;
  ASSERT_OK(CheckFiles(tree.get(), "", &checked));
  EXPECT_EQ(checked, kChildren * kFilesEach);
  ASSIGN_OR_FAIL(auto snapshots, store->ListSnapshots());
  EXPECT_EQ(snapshots.size(), static_cast<size_t>(kChildren));
  ASSIGN_OR_FAIL(auto log, store->Log());
  EXPECT_EQ(log.size(), static_cast<size_t>(kChildren));  // one linear history
  EXPECT_TRUE(test::FsckClean(*store));
}

}  // namespace
}  // namespace vexfs
