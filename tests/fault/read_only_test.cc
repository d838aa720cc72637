// Read-only stores: a store on a read-only mount must still open for reading,
// and on it, as on a store opened with StoreOptions::read_only, every write must
// fail with kReadOnly and leave every byte of the store as it was.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crash/child_process.h"
#include "fault/scoped_mount.h"
#include "vexfs/store.h"

namespace vexfs::fault {
namespace {

namespace fs = std::filesystem;

const std::string kBig(3 * 64 * 1024 + 17, 'b');  // several chunks

// Every file of the store directory with its bytes.
std::map<std::string, std::string> Fingerprint(const std::string& dir, bool with_lock) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!with_lock && name == "lock.mdb") continue;  // reader slots change on every read
    out[name] = crash::ReadFileOrEmpty(entry.path().string());
  }
  return out;
}

void MakeStore(const std::string& path) {
  auto store = Store::Create(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto tree = (*store)->Tree("");
  ASSERT_TRUE(tree.ok());
  ASSERT_TRUE((*tree)->Edit([](TreeEditor& ed) -> Status {
                VEXFS_RETURN_IF_ERROR(ed.PutFile("a.txt", "alpha", {}).status());
                return ed.PutFile("docs/big.bin", kBig, {}).status();
              }).ok());
  ASSERT_TRUE((*store)->CreateSnapshot("v1", "first", {}).ok());
  ASSERT_TRUE((*tree)->Edit([](TreeEditor& ed) {
                return ed.PutFile("a.txt", "alpha two", {}).status();
              }).ok());
  ASSERT_TRUE((*store)->CreateBranch("side", std::nullopt).ok());
}

void ExpectReadsWork(Store* store) {
  auto tree = store->Tree("");
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  auto a = (*tree)->ReadAll("a.txt");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(*a, "alpha two");
  auto big = (*tree)->ReadAll("docs/big.bin");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_TRUE(*big == kBig);
  auto listing = (*tree)->List("");
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->size(), 2u);
  auto snap = store->OpenSnapshot("v1");
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto old = (*snap)->ReadAll("a.txt");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old, "alpha");
  auto diff = store->Diff("v1", kWorkingName);
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_EQ(diff->size(), 1u);
  EXPECT_TRUE(store->Log().ok());
  EXPECT_TRUE(store->ListBranches().ok());
  EXPECT_TRUE(store->Stats().ok());
  auto fsck = store->Fsck();
  ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
  EXPECT_TRUE(fsck->ok());
}

// Every kind of write the store offers, each of which must be refused.
std::vector<std::pair<std::string, std::function<Status(Store*)>>> Writes() {
  auto edit = [](Store* s, std::function<Status(TreeEditor&)> fn) -> Status {
    auto tree = s->Tree("");
    return tree.ok() ? (*tree)->Edit(fn) : tree.status();
  };
  return {
      {"put", [=](Store* s) {
         return edit(s, [](TreeEditor& ed) { return ed.PutFile("new", "x", {}).status(); });
       }},
      {"mkdir", [=](Store* s) {
         return edit(s, [](TreeEditor& ed) { return ed.MakeDirs("x/y", {}).status(); });
       }},
      {"unlink", [=](Store* s) {
         return edit(s, [](TreeEditor& ed) { return ed.Unlink(kRootIno, "a.txt"); });
       }},
      {"snapshot", [](Store* s) { return s->CreateSnapshot("v2", "", {}).status(); }},
      {"tag", [](Store* s) { return s->TagSnapshot("t1", "v1"); }},
      {"delete snapshot name", [](Store* s) { return s->DeleteSnapshotName("v1"); }},
      {"branch", [](Store* s) { return s->CreateBranch("b2", std::nullopt); }},
      {"branch from snapshot", [](Store* s) { return s->CreateBranch("b3", "v1"); }},
      {"checkout", [](Store* s) { return s->Checkout("side"); }},
      {"delete branch", [](Store* s) { return s->DeleteBranch("side"); }},
      {"restore", [](Store* s) { return s->Restore("v1"); }},
      {"gc", [](Store* s) { return s->Gc().status(); }},
  };
}

void ExpectWritesRefused(Store* store) {
  for (const auto& [what, write] : Writes()) {
    Status st = write(store);
    EXPECT_EQ(st.code(), StatusCode::kReadOnly) << what << ": " << st.ToString();
    EXPECT_NE(st.message().find("read-only"), std::string::npos)
        << what << ": the message does not say why: " << st.ToString();
  }
}

class ReadOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    store_ = dir_.path() + "/store";
    MakeStore(store_);
  }
  crash::TempDir dir_{"vexfs_readonly_"};
  std::string store_;
};

TEST_F(ReadOnlyTest, StoreOnReadOnlyMountOpensForReadingAndRefusesWrites) {
  EnterPrivateMountNamespace();
  std::string mnt = dir_.path() + "/ro";
  ASSERT_EQ(::mkdir(mnt.c_str(), 0755), 0) << std::strerror(errno);
  // First as left by its last writer; then as shipped on read-only media
  // without LMDB's lock file, which then cannot be created either.
  for (bool with_lock_file : {true, false}) {
    SCOPED_TRACE(with_lock_file ? "with lock file" : "without lock file");
    if (!with_lock_file) fs::remove(store_ + "/lock.mdb");
    auto before = Fingerprint(store_, /*with_lock=*/true);
    {
      ScopedMount mount;
      int err = mount.BindReadOnly(store_, mnt);
      if (err == EPERM) GTEST_SKIP() << "bind-mounting was refused (EPERM): needs CAP_SYS_ADMIN";
      ASSERT_EQ(err, 0) << "read-only bind mount: " << std::strerror(err);
      auto store = Store::Open(mnt);
      ASSERT_TRUE(store.ok()) << "open on a read-only mount: " << store.status().ToString();
      ExpectReadsWork(store->get());
      ExpectWritesRefused(store->get());
      ExpectReadsWork(store->get());
    }
    EXPECT_TRUE(Fingerprint(store_, /*with_lock=*/true) == before) << "the store changed";
  }
  auto store = Store::Open(store_);
  ASSERT_TRUE(store.ok());
  ExpectReadsWork(store->get());
}

TEST_F(ReadOnlyTest, ReadOnlyOptionRefusesWritesOnAWritableStore) {
  auto before = Fingerprint(store_, /*with_lock=*/false);
  {
    StoreOptions options;
    options.read_only = true;
    auto store = Store::Open(store_, options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ExpectReadsWork(store->get());
    ExpectWritesRefused(store->get());
  }
  EXPECT_TRUE(Fingerprint(store_, /*with_lock=*/false) == before) << "the store changed";
  auto store = Store::Open(store_);
  ASSERT_TRUE(store.ok());
  ExpectReadsWork(store->get());
}

}  // namespace
}  // namespace vexfs::fault
