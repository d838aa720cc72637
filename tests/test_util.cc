// Shared test support (see test_util.h).
#include "test_util.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

namespace vexfs::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/vexfs-test-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    std::abort();
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // best effort: a leak is not a failure
}

std::string TempDir::Sub(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

StoreOptions FastOptions() {
  StoreOptions options;
  options.sync_on_commit = false;
  return options;
}

static std::unique_ptr<Store> OrDie(Result<std::unique_ptr<Store>> result,
                                    const char* what, const std::string& path) {
  if (!result.ok()) {
    std::fprintf(stderr, "%s store at %s: %s\n", what, path.c_str(),
                 result.status().ToString().c_str());
    std::abort();
  }
  return std::move(result).value();
}

std::unique_ptr<Store> CreateStoreOrDie(const std::string& path, const StoreOptions& options) {
  return OrDie(Store::Create(path, options), "create", path);
}

std::unique_ptr<Store> OpenStoreOrDie(const std::string& path, const StoreOptions& options) {
  return OrDie(Store::Open(path, options), "open", path);
}

uint64_t Random::Uniform(uint64_t lo, uint64_t hi) {
  return std::uniform_int_distribution<uint64_t>(lo, hi)(engine_);
}

bool Random::Chance(double p) { return std::bernoulli_distribution(p)(engine_); }

std::string Random::Bytes(size_t n) {
  std::string out(n, '\0');
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word = engine_();
    for (int b = 0; b < 8; ++b) out[i + b] = static_cast<char>(word >> (8 * b));
  }
  for (; i < n; ++i) out[i] = static_cast<char>(engine_());
  return out;
}

std::string Random::Text(size_t n) {
  static const char* const kWords[] = {"memory ", "agent ", "vector ", "note ",
                                       "plan\n", "tool ",   "result ", "the "};
  std::string out;
  out.reserve(n + 8);
  while (out.size() < n) out += kWords[engine_() % 8];
  out.resize(n);
  return out;
}

std::string Random::Name(size_t min_len, size_t max_len) {
  size_t len = Uniform(min_len, max_len);
  std::string out(len, 'a');
  for (char& c : out) c = static_cast<char>('a' + engine_() % 26);
  return out;
}

std::string RandomBytes(uint64_t seed, size_t n) { return Random(seed).Bytes(n); }

static Status DumpDir(TreeView* view, const std::string& dir, TreeDump* out) {
  VEXFS_ASSIGN_OR_RETURN(auto entries, view->List(dir));
  for (const DirEntry& e : entries) {
    std::string path = dir.empty() ? e.name : dir + "/" + e.name;
    if (e.attr.type == FileType::kDirectory) {
      (*out)[path] = "dir";
      VEXFS_RETURN_IF_ERROR(DumpDir(view, path, out));
    } else if (e.attr.type == FileType::kSymlink) {
      VEXFS_ASSIGN_OR_RETURN(std::string target, view->ReadLink(path));
      (*out)[path] = "link:" + target;
    } else if (IsSpecialFile(e.attr.type)) {
      (*out)[path] = std::string(FileTypeName(e.attr.type)) + ":" + std::to_string(e.attr.rdev);
    } else {
      VEXFS_ASSIGN_OR_RETURN(std::string data, view->Read(path, 0, e.attr.size));
      (*out)[path] = "file:" + data;
    }
  }
  return Status::Ok();
}

Result<TreeDump> DumpTree(TreeView* view) {
  TreeDump out;
  VEXFS_RETURN_IF_ERROR(DumpDir(view, "", &out));
  return out;
}

Status PutFile(WorkingTree* tree, std::string_view path, std::string_view data) {
  return tree->Edit([&](TreeEditor& ed) { return ed.PutFile(path, data, {}).status(); });
}

void StoreTest::SetUp() {
  store_ = CreateStoreOrDie(store_path());
  auto tree = store_->Tree();
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  tree_ = std::move(tree).value();
}

void StoreTest::Reopen() {
  tree_.reset();
  store_.reset();
  store_ = OpenStoreOrDie(store_path());
  auto tree = store_->Tree();
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  tree_ = std::move(tree).value();
}

uint64_t StoreTest::Ino(std::string_view path) {
  auto attr = tree_->Stat(path);
  EXPECT_TRUE(attr.ok()) << std::string(path) << ": " << attr.status().ToString();
  return attr.ok() ? attr->ino : 0;
}

std::string StoreTest::Content(std::string_view path) {
  auto data = tree_->ReadAll(path);
  return data.ok() ? *data : "<" + data.status().ToString() + ">";
}

::testing::AssertionResult FsckClean(Store& store) {
  auto report = store.Fsck();
  if (!report.ok()) {
    return ::testing::AssertionFailure() << "fsck failed: " << report.status().ToString();
  }
  if (report->ok()) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure();
  failure << report->problems.size() << " fsck problem(s):";
  for (const std::string& p : report->problems) failure << "\n  " << p;
  return failure;
}

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  unsigned long long parsed = std::strtoull(value, &end, 10);
  return (*end == '\0' && parsed > 0) ? parsed : fallback;
}

}  // namespace vexfs::test
