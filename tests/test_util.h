// Shared test support: status assertions, temporary directories that clean up,
// fresh stores, seeded random data, and dumping a tree into a comparable map.
#ifndef VEXFS_TESTS_TEST_UTIL_H_
#define VEXFS_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <string_view>

#include "vexfs/status.h"
#include "vexfs/store.h"
#include "vexfs/types.h"

// Status assertions. `expr` (a Status or Result) is evaluated exactly once and the
// failure message shows the status it gave. The switch keeps a following `else`
// from binding to the macro's `if`.
#define VEXFS_CHECK_STATUS_(expr, pred, on_fail, what)                     \
  switch (0)                                                               \
  case 0:                                                                  \
  default:                                                                 \
    if (const ::vexfs::Status vexfs_st_ = ::vexfs::test::StatusOf(expr); \
        pred) {                                                            \
    } else                                                                 \
      on_fail() << #expr << " expected " << what << ", got " << vexfs_st_.ToString()

#define ASSERT_OK(expr) VEXFS_CHECK_STATUS_(expr, vexfs_st_.ok(), FAIL, "ok")
#define EXPECT_OK(expr) VEXFS_CHECK_STATUS_(expr, vexfs_st_.ok(), ADD_FAILURE, "ok")
// Expects `expr` to fail with exactly `code_value`.
#define EXPECT_CODE(expr, code_value)                                         \
  VEXFS_CHECK_STATUS_(expr, vexfs_st_.code() == (code_value), ADD_FAILURE, \
                      ::vexfs::StatusCodeName(code_value))
#define ASSERT_CODE(expr, code_value)                                  \
  VEXFS_CHECK_STATUS_(expr, vexfs_st_.code() == (code_value), FAIL, \
                      ::vexfs::StatusCodeName(code_value))

// `ASSIGN_OR_FAIL(auto x, Call());` binds the value or fails the test (fatally).
#define ASSIGN_OR_FAIL(decl, expr) \
  ASSIGN_OR_FAIL_IMPL_(VEXFS_CONCAT_(test_result_, __LINE__), decl, expr)
#define ASSIGN_OR_FAIL_IMPL_(tmp, decl, expr)       \
  auto tmp = (expr);                                \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString(); \
  decl = std::move(tmp).value()

namespace vexfs {

// Readable gtest output for status values ("not found: 'x' does not exist").
inline void PrintTo(StatusCode code, std::ostream* os) { *os << StatusCodeName(code); }
inline void PrintTo(const Status& status, std::ostream* os) { *os << status.ToString(); }

namespace test {

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const Result<T>& r) {
  return r.status();
}

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when
// the object goes away, so failed tests leave nothing behind either.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // `path()/name`, not created.
  std::string Sub(std::string_view name) const;

 private:
  std::string path_;
};

// Options for test stores: no fsync per commit, because these tests are about
// behaviour, not durability, and thousands of synced commits would dominate.
StoreOptions FastOptions();

// Creates a store at `path`; aborts the process with the message on failure, since
// no test can do anything useful without its store.
std::unique_ptr<Store> CreateStoreOrDie(const std::string& path,
                                        const StoreOptions& options = FastOptions());
std::unique_ptr<Store> OpenStoreOrDie(const std::string& path,
                                      const StoreOptions& options = FastOptions());

// Deterministic random data from a seed, so a failure reproduces.
class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  // Uniform in [lo, hi].
  uint64_t Uniform(uint64_t lo, uint64_t hi);
  // True with probability `p`.
  bool Chance(double p);
  // Incompressible bytes.
  std::string Bytes(size_t n);
  // Compressible printable text.
  std::string Text(size_t n);
  // A short lowercase name.
  std::string Name(size_t min_len = 3, size_t max_len = 12);
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

// `n` incompressible bytes from `seed`.
std::string RandomBytes(uint64_t seed, size_t n);

// A whole tree as path -> description: "dir", "file:<bytes>", "link:<target>",
// "<special type>:<rdev>" (e.g. "fifo:0").
// Paths have no leading '/'. Makes two trees comparable with one EXPECT_EQ.
using TreeDump = std::map<std::string, std::string>;
Result<TreeDump> DumpTree(TreeView* view);

// Writes `data` as the file at `path` (parents created) in one transaction.
Status PutFile(WorkingTree* tree, std::string_view path, std::string_view data);

// A test with a fresh store in a temporary directory and its "main" working tree.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Closes and reopens the store (e.g. to prove something is durable).
  void Reopen();

  Store& store() { return *store_; }
  WorkingTree& tree() { return *tree_; }
  std::string store_path() const { return dir_.Sub("store"); }
  // Inode of `path` in the working tree; 0 (and a test failure) if it is absent.
  uint64_t Ino(std::string_view path);
  // Whole content of the file at `path` in the working tree, or "<status>".
  std::string Content(std::string_view path);
  Status Put(std::string_view path, std::string_view data) {
    return PutFile(tree_.get(), path, data);
  }
  Status Edit(const std::function<Status(TreeEditor&)>& fn) { return tree_->Edit(fn); }
  Result<CommitInfo> Snap(std::string_view name) { return store_->CreateSnapshot(name, "", {}); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<WorkingTree> tree_;
};

// Success if Fsck runs and finds nothing; otherwise a failure listing the problems.
::testing::AssertionResult FsckClean(Store& store);

// Environment variable as a positive integer, or `fallback`.
uint64_t EnvOr(const char* name, uint64_t fallback);

}  // namespace test
}  // namespace vexfs

#endif  // VEXFS_TESTS_TEST_UTIL_H_
