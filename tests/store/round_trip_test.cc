// Round trips on generated trees: thousands of files (text, binary, empty,
// symlinks, a few large ones) in nested directories are written, snapshotted,
// mutated at random, snapshotted again; the diff must match the changes made to an
// in-memory model, and restoring must bring back every byte the model holds.
// Seeded: VEXFS_TEST_SEED reproduces a run; VEXFS_ROUNDTRIP_FILES and
// VEXFS_ROUNDTRIP_LARGE_MB scale it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::Random;
using test::StoreTest;
using test::TreeDump;

struct Node {
  FileType type = FileType::kRegular;
  std::string data;  // file bytes or symlink target
};
using Model = std::map<std::string, Node>;  // path -> node, directories included

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

bool IsWithin(const std::string& path, const std::string& dir) {
  return path == dir || path.rfind(dir + "/", 0) == 0;
}

TreeDump ToDump(const Model& model) {
  TreeDump out;
  for (const auto& [path, node] : model) {
    switch (node.type) {
      case FileType::kDirectory: out[path] = "dir"; break;
      case FileType::kRegular: out[path] = "file:" + node.data; break;
      case FileType::kSymlink: out[path] = "link:" + node.data; break;
      default: out[path] = "special"; break;  // the generator makes none
    }
  }
  return out;
}

// (kind, path, old path) rows in path order.
using Row = std::tuple<std::string, std::string, std::string>;

std::vector<Row> Rows(const std::vector<DiffEntry>& diff) {
  std::vector<Row> out;
  for (const DiffEntry& e : diff) out.emplace_back(DiffKindName(e.kind), e.path, e.old_path);
  return out;
}

// What Diff(a, b) must report, computed from the models alone: per-path changes,
// then removed and added non-empty files or symlinks of equal content paired as
// renames (contents are unique in these trees, so the pairing is unambiguous).
std::vector<Row> ExpectedDiff(const Model& a, const Model& b) {
  std::vector<Row> rows;
  std::map<std::pair<FileType, std::string>, std::string> removed;  // content -> path
  std::vector<std::string> removed_empty;
  for (const auto& [path, node] : a) {
    auto it = b.find(path);
    if (it == b.end()) {
      if (node.type != FileType::kDirectory && !node.data.empty()) {
        removed[{node.type, node.data}] = path;
      } else {
        removed_empty.push_back(path);
      }
    } else if (it->second.type != node.type) {
      rows.emplace_back("type-changed", path, "");
    } else if (node.type != FileType::kDirectory && it->second.data != node.data) {
      rows.emplace_back("modified", path, "");
    }
  }
  for (const auto& [path, node] : b) {
    if (a.count(path)) continue;
    auto it = removed.find({node.type, node.data});
    if (node.type != FileType::kDirectory && !node.data.empty() && it != removed.end()) {
      rows.emplace_back("renamed", path, it->second);
      removed.erase(it);
    } else {
      rows.emplace_back("added", path, "");
    }
  }
  for (const auto& [content, path] : removed) rows.emplace_back("removed", path, "");
  for (const std::string& path : removed_empty) rows.emplace_back("removed", path, "");
  std::sort(rows.begin(), rows.end(),
            [](const Row& x, const Row& y) { return std::get<1>(x) < std::get<1>(y); });
  return rows;
}

// Builds random trees and changes them, keeping the model and the store in step.
class TreeGenerator {
 public:
  TreeGenerator(uint64_t seed, WorkingTree* tree, Model* model)
      : rng_(seed), tree_(tree), model_(model) {}

  Status Populate(int dirs, int files, int large_files, size_t large_bytes);
  // Applies `ops` random changes: modify, add, delete, rename file, rename dir.
  Status Mutate(int ops);

 private:
  std::string UniqueName(const char* prefix) { return prefix + std::to_string(counter_++); }
  // Unique content: a header naming it, then text or incompressible bytes.
  std::string NewContent();
  std::vector<std::string> Paths(FileType type) const;
  std::string Pick(const std::vector<std::string>& v) { return v[rng_.Uniform(0, v.size() - 1)]; }
  Status AddFile(TreeEditor& ed);
  Status ModifyFile(TreeEditor& ed);
  Status DeleteFile(TreeEditor& ed);
  Status RenameFile(TreeEditor& ed);
  Status RenameDir(TreeEditor& ed);

  Random rng_;
  WorkingTree* tree_;
  Model* model_;
  uint64_t counter_ = 0;
};

std::string TreeGenerator::NewContent() {
  std::string header = "#" + std::to_string(counter_++) + "\n";
  uint64_t kind = rng_.Uniform(0, 99);
  if (kind < 5) return "";
  if (kind < 55) return header + rng_.Text(rng_.Uniform(0, 8000));
  return header + rng_.Bytes(rng_.Uniform(1, 40000));
}

std::vector<std::string> TreeGenerator::Paths(FileType type) const {
  std::vector<std::string> out;
  if (type == FileType::kDirectory) out.push_back("");
  for (const auto& [path, node] : *model_) {
    if (node.type == type) out.push_back(path);
  }
  return out;
}

Status TreeGenerator::Populate(int dirs, int files, int large_files, size_t large_bytes) {
  std::vector<std::string> dir_paths{""};
  VEXFS_RETURN_IF_ERROR(tree_->Edit([&](TreeEditor& ed) -> Status {
    for (int i = 0; i < dirs; ++i) {
      std::string parent = Pick(dir_paths);
      if (std::count(parent.begin(), parent.end(), '/') >= 4) parent = "";
      std::string path = Join(parent, UniqueName("d"));
      VEXFS_RETURN_IF_ERROR(ed.MakeDirs(path, {}).status());
      (*model_)[path] = Node{FileType::kDirectory, ""};
      dir_paths.push_back(path);
    }
    return Status::Ok();
  }));
  const int kBatch = 200;
  for (int done = 0; done < files;) {
    VEXFS_RETURN_IF_ERROR(tree_->Edit([&](TreeEditor& ed) -> Status {
      for (int i = 0; i < kBatch && done < files; ++i, ++done) {
        VEXFS_RETURN_IF_ERROR(AddFile(ed));
      }
      return Status::Ok();
    }));
  }
  for (int i = 0; i < large_files; ++i) {
    // Mostly random bytes with a run of zeros, so holes appear in large files too.
    std::string data = rng_.Bytes(large_bytes);
    std::fill(data.begin() + large_bytes / 3, data.begin() + large_bytes / 3 + 300000, '\0');
    std::string path = Join(Pick(dir_paths), UniqueName("large"));
    VEXFS_RETURN_IF_ERROR(test::PutFile(tree_, path, data));
    (*model_)[path] = Node{FileType::kRegular, std::move(data)};
  }
  return Status::Ok();
}

Status TreeGenerator::AddFile(TreeEditor& ed) {
  std::string dir = Pick(Paths(FileType::kDirectory));
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ed.ResolvePath(dir));
  if (rng_.Chance(0.05)) {
    std::string path = Join(dir, UniqueName("link"));
    std::string target = "target/" + UniqueName("t");
    VEXFS_RETURN_IF_ERROR(ed.Symlink(parent, BaseOf(path), target, {}).status());
    (*model_)[path] = Node{FileType::kSymlink, target};
    return Status::Ok();
  }
  std::string path = Join(dir, UniqueName("f"));
  std::string data = NewContent();
  VEXFS_ASSIGN_OR_RETURN(Attributes a, ed.CreateFile(parent, BaseOf(path), {}));
  VEXFS_RETURN_IF_ERROR(ed.Write(a.ino, 0, data));
  (*model_)[path] = Node{FileType::kRegular, std::move(data)};
  return Status::Ok();
}

Status TreeGenerator::ModifyFile(TreeEditor& ed) {
  std::string path = Pick(Paths(FileType::kRegular));
  std::string& data = (*model_)[path].data;
  VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath(path));
  // A fresh unique header keeps contents unique, so renames stay unambiguous.
  std::string header = "#" + std::to_string(counter_++) + "\n";
  uint64_t how = rng_.Uniform(0, 2);
  if (how == 0 && data.size() > header.size() + 10) {
    uint64_t size = rng_.Uniform(header.size(), data.size() - 1);
    VEXFS_RETURN_IF_ERROR(ed.Truncate(ino, size));
    data.resize(size);
  } else if (how == 1) {
    std::string more = rng_.Bytes(rng_.Uniform(1, 100000));
    VEXFS_RETURN_IF_ERROR(ed.Write(ino, data.size(), more));
    data += more;
  } else {
    uint64_t offset = rng_.Uniform(0, data.size());
    std::string patch = rng_.Bytes(rng_.Uniform(1, 70000));
    VEXFS_RETURN_IF_ERROR(ed.Write(ino, offset, patch));
    if (data.size() < offset + patch.size()) data.resize(offset + patch.size());
    data.replace(offset, patch.size(), patch);
  }
  VEXFS_RETURN_IF_ERROR(ed.Write(ino, 0, header));
  if (data.size() < header.size()) data.resize(header.size());
  data.replace(0, header.size(), header);
  return Status::Ok();
}

Status TreeGenerator::DeleteFile(TreeEditor& ed) {
  std::vector<std::string> files = Paths(FileType::kRegular);
  std::vector<std::string> links = Paths(FileType::kSymlink);
  files.insert(files.end(), links.begin(), links.end());
  std::string path = Pick(files);
  VEXFS_ASSIGN_OR_RETURN(uint64_t parent, ed.ResolvePath(ParentOf(path)));
  VEXFS_RETURN_IF_ERROR(ed.Unlink(parent, BaseOf(path)));
  model_->erase(path);
  return Status::Ok();
}

Status TreeGenerator::RenameFile(TreeEditor& ed) {
  std::string from = Pick(Paths(FileType::kRegular));
  std::string to = Join(Pick(Paths(FileType::kDirectory)), UniqueName("mv"));
  VEXFS_ASSIGN_OR_RETURN(uint64_t src, ed.ResolvePath(ParentOf(from)));
  VEXFS_ASSIGN_OR_RETURN(uint64_t dst, ed.ResolvePath(ParentOf(to)));
  VEXFS_RETURN_IF_ERROR(ed.Rename(src, BaseOf(from), dst, BaseOf(to)));
  auto node = model_->extract(from);
  node.key() = to;
  model_->insert(std::move(node));
  return Status::Ok();
}

Status TreeGenerator::RenameDir(TreeEditor& ed) {
  std::vector<std::string> dirs = Paths(FileType::kDirectory);
  std::string from = Pick(dirs);
  std::string target = Pick(dirs);
  if (from.empty() || IsWithin(target, from)) return Status::Ok();  // not a legal move
  std::string to = Join(target, UniqueName("rd"));
  VEXFS_ASSIGN_OR_RETURN(uint64_t src, ed.ResolvePath(ParentOf(from)));
  VEXFS_ASSIGN_OR_RETURN(uint64_t dst, ed.ResolvePath(target));
  VEXFS_RETURN_IF_ERROR(ed.Rename(src, BaseOf(from), dst, BaseOf(to)));
  Model moved;
  for (auto it = model_->begin(); it != model_->end();) {
    if (IsWithin(it->first, from)) {
      moved[to + it->first.substr(from.size())] = std::move(it->second);
      it = model_->erase(it);
    } else {
      ++it;
    }
  }
  model_->merge(moved);
  return Status::Ok();
}

Status TreeGenerator::Mutate(int ops) {
  for (int i = 0; i < ops; ++i) {
    uint64_t what = rng_.Uniform(0, 99);
    VEXFS_RETURN_IF_ERROR(tree_->Edit([&](TreeEditor& ed) -> Status {
      if (what < 35) return ModifyFile(ed);
      if (what < 60) return AddFile(ed);
      if (what < 80) return DeleteFile(ed);
      if (what < 96) return RenameFile(ed);
      return RenameDir(ed);
    }));
  }
  return Status::Ok();
}

class RoundTripTest : public StoreTest {
 protected:
  TreeDump Dump(TreeView* view) {
    auto dump = test::DumpTree(view);
    EXPECT_TRUE(dump.ok()) << dump.status().ToString();
    return dump.ok() ? *dump : TreeDump{};
  }
  TreeDump DumpSnapshot(const std::string& name) {
    auto view = store().OpenSnapshot(name);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return view.ok() ? Dump(view->get()) : TreeDump{};
  }
  std::vector<Row> DiffRows(std::string_view a, std::string_view b) {
    auto diff = store().Diff(a, b);
    EXPECT_TRUE(diff.ok()) << diff.status().ToString();
    return diff.ok() ? Rows(*diff) : std::vector<Row>{};
  }
  // Reports the first differing path instead of two huge maps.
  static void ExpectSameTree(const TreeDump& got, const TreeDump& want) {
    EXPECT_EQ(got.size(), want.size());
    for (const auto& [path, value] : want) {
      auto it = got.find(path);
      if (it == got.end()) {
        ADD_FAILURE() << "missing " << path;
        return;
      }
      if (it->second != value) {
        ADD_FAILURE() << "content differs at " << path << " (" << it->second.size() << " vs "
                      << value.size() << " bytes)";
        return;
      }
    }
  }
};

TEST_F(RoundTripTest, SnapshotMutateDiffRestore) {
  const uint64_t seed = test::EnvOr("VEXFS_TEST_SEED", 20240601);
  const int files = static_cast<int>(test::EnvOr("VEXFS_ROUNDTRIP_FILES", 3000));
  const size_t large = test::EnvOr("VEXFS_ROUNDTRIP_LARGE_MB", 20) << 20;
  SCOPED_TRACE("seed " + std::to_string(seed));
  Model model;
  TreeGenerator gen(seed, &tree(), &model);
  ASSERT_OK(gen.Populate(files / 20, files, 2, large));
  const Model first = model;
  ASSERT_OK(Snap("first"));
  ExpectSameTree(DumpSnapshot("first"), ToDump(first));

  ASSERT_OK(gen.Mutate(static_cast<int>(first.size() / 20)));
  const std::vector<Row> expected = ExpectedDiff(first, model);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(DiffRows("first", kWorkingName), expected);
  ASSERT_OK(Snap("second"));
  EXPECT_EQ(DiffRows("first", "second"), expected);
  ExpectSameTree(DumpSnapshot("second"), ToDump(model));

  ASSERT_OK(store().Restore("first"));
  ExpectSameTree(Dump(&tree()), ToDump(first));
  EXPECT_TRUE(DiffRows("first", kWorkingName).empty());
  EXPECT_TRUE(test::FsckClean(store()));
}

// Many rounds of change, snapshot and restore to an arbitrary earlier point: dirty
// tracking must stay right after restores, and every snapshot must stay intact.
TEST_F(RoundTripTest, ManyRoundsWithRestores) {
  const uint64_t seed = test::EnvOr("VEXFS_TEST_SEED", 777);
  SCOPED_TRACE("seed " + std::to_string(seed));
  Random pick(seed + 1);
  Model model;
  TreeGenerator gen(seed, &tree(), &model);
  ASSERT_OK(gen.Populate(20, 300, 0, 0));
  std::vector<Model> history;
  for (int round = 0; round < 8; ++round) {
    std::string name = "r" + std::to_string(round);
    ASSERT_OK(Snap(name));
    history.push_back(model);
    if (round > 0) {
      EXPECT_EQ(DiffRows("r" + std::to_string(round - 1), name),
                ExpectedDiff(history[round - 1], history[round]))
          << "round " << round;
    }
    if (round % 3 == 2) {
      uint64_t back = pick.Uniform(0, round);
      ASSERT_OK(store().Restore("r" + std::to_string(back)));
      model = history[back];
    }
    ASSERT_OK(gen.Mutate(25));
  }
  for (size_t i = 0; i < history.size(); ++i) {
    SCOPED_TRACE("snapshot r" + std::to_string(i));
    ExpectSameTree(DumpSnapshot("r" + std::to_string(i)), ToDump(history[i]));
  }
  ExpectSameTree(Dump(&tree()), ToDump(model));
  EXPECT_TRUE(test::FsckClean(store()));
}

}  // namespace
}  // namespace vexfs
