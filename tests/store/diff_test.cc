// Tests for Diff between snapshots and the working tree: every kind of change,
// nested directories, both directions, rename detection, and error cases.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "test_util.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;
using Kind = DiffEntry::Kind;

// (kind, path, old path, type) of each entry, for whole-list comparisons.
using Row = std::tuple<std::string, std::string, std::string, std::string>;

std::vector<Row> Rows(const std::vector<DiffEntry>& diff) {
  std::vector<Row> out;
  for (const DiffEntry& e : diff) {
    out.emplace_back(DiffKindName(e.kind), e.path, e.old_path, FileTypeName(e.type));
  }
  return out;
}

class DiffTest : public StoreTest {
 protected:
  std::vector<Row> DiffRows(std::string_view a, std::string_view b) {
    auto diff = store().Diff(a, b);
    EXPECT_TRUE(diff.ok()) << diff.status().ToString();
    return diff.ok() ? Rows(*diff) : std::vector<Row>{};
  }
  // A base tree used by most tests.
  void MakeBase() {
    ASSERT_OK(Put("keep.txt", "unchanged"));
    ASSERT_OK(Put("edit.txt", "before"));
    ASSERT_OK(Put("gone.txt", "will be removed"));
    ASSERT_OK(Put("a/b/deep.txt", "deep"));
    ASSERT_OK(Put("a/b/move-me.txt", "moving content"));
    ASSERT_OK(Put("olddir/x.txt", "x"));
    ASSERT_OK(Put("olddir/sub/y.txt", "y"));
    ASSERT_OK(Snap("base"));
  }
};

TEST_F(DiffTest, EqualTreesGiveEmptyDiff) {
  MakeBase();
  EXPECT_TRUE(DiffRows("base", "base").empty());
  EXPECT_TRUE(DiffRows("base", kWorkingName).empty());
  EXPECT_TRUE(DiffRows(kWorkingName, kWorkingName).empty());
  ASSERT_OK(Snap("same"));
  EXPECT_TRUE(DiffRows("base", "same").empty());
}

TEST_F(DiffTest, ChangesThatCancelOutGiveEmptyDiff) {
  MakeBase();
  ASSERT_OK(Put("a/b/tmp", "temporary"));
  uint64_t b = Ino("a/b");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Unlink(b, "tmp"); }));
  ASSERT_OK(Put("edit.txt", "changed"));
  ASSERT_OK(Put("edit.txt", "before"));
  EXPECT_TRUE(DiffRows("base", kWorkingName).empty());
}

TEST_F(DiffTest, EveryKindOfChange) {
  MakeBase();
  uint64_t b = Ino("a/b"), olddir = Ino("olddir");
  ASSERT_OK(Put("edit.txt", "after"));
  ASSERT_OK(Put("a/b/new.txt", "brand new"));
  ASSERT_OK(Put("newdir/inner/z.txt", "z"));
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "gone.txt"));
    VEXFS_RETURN_IF_ERROR(ed.Rename(b, "move-me.txt", kRootIno, "moved.txt"));
    VEXFS_ASSIGN_OR_RETURN(uint64_t sub, ed.ResolvePath("olddir/sub"));
    VEXFS_RETURN_IF_ERROR(ed.Unlink(sub, "y.txt"));
    VEXFS_RETURN_IF_ERROR(ed.Rmdir(olddir, "sub"));
    VEXFS_RETURN_IF_ERROR(ed.Unlink(olddir, "x.txt"));
    return ed.Rmdir(kRootIno, "olddir");
  }));
  ASSIGN_OR_FAIL(CommitInfo s2, Snap("s2"));
  const std::vector<Row> want = {
      {"added", "a/b/new.txt", "", "file"},
      {"modified", "edit.txt", "", "file"},
      {"removed", "gone.txt", "", "file"},
      {"renamed", "moved.txt", "a/b/move-me.txt", "file"},
      {"added", "newdir", "", "dir"},
      {"added", "newdir/inner", "", "dir"},
      {"added", "newdir/inner/z.txt", "", "file"},
      {"removed", "olddir", "", "dir"},
      {"removed", "olddir/sub", "", "dir"},
      {"removed", "olddir/sub/y.txt", "", "file"},
      {"removed", "olddir/x.txt", "", "file"},
  };
  EXPECT_EQ(DiffRows("base", kWorkingName), want);
  EXPECT_EQ(DiffRows("base", "s2"), want);
  EXPECT_EQ(DiffRows("base", s2.id.ToHex()), want);
}

TEST_F(DiffTest, ReverseDirectionSwapsAddedAndRemoved) {
  MakeBase();
  ASSERT_OK(Put("added.txt", "a"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "gone.txt"); }));
  ASSERT_OK(Snap("s2"));
  EXPECT_EQ(DiffRows("base", "s2"),
            (std::vector<Row>{{"added", "added.txt", "", "file"},
                              {"removed", "gone.txt", "", "file"}}));
  EXPECT_EQ(DiffRows("s2", "base"),
            (std::vector<Row>{{"removed", "added.txt", "", "file"},
                              {"added", "gone.txt", "", "file"}}));
  EXPECT_EQ(DiffRows(kWorkingName, "base"), DiffRows("s2", "base"));
}

TEST_F(DiffTest, ModeAndXattrChangesAreModifications) {
  MakeBase();
  uint64_t keep = Ino("keep.txt"), edit = Ino("edit.txt");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    TreeEditor::AttrChange change;
    change.mode = 0755;
    VEXFS_RETURN_IF_ERROR(ed.SetAttr(keep, change).status());
    return ed.SetXattr(edit, "user.note", "v");
  }));
  EXPECT_EQ(DiffRows("base", kWorkingName),
            (std::vector<Row>{{"modified", "edit.txt", "", "file"},
                              {"modified", "keep.txt", "", "file"}}));
}

TEST_F(DiffTest, TypeChanges) {
  ASSERT_OK(Put("f2d", "was a file"));
  ASSERT_OK(Put("d2f/child", "child"));
  ASSERT_OK(Put("f2l", "was a file"));
  ASSERT_OK(Snap("base"));
  uint64_t d2f = Ino("d2f");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "f2d"));
    VEXFS_RETURN_IF_ERROR(ed.PutFile("f2d/inside", "now a dir", {}).status());
    VEXFS_RETURN_IF_ERROR(ed.Unlink(d2f, "child"));
    VEXFS_RETURN_IF_ERROR(ed.Rmdir(kRootIno, "d2f"));
    VEXFS_RETURN_IF_ERROR(ed.PutFile("d2f", "now a file", {}).status());
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "f2l"));
    return ed.Symlink(kRootIno, "f2l", "target", {}).status();
  }));
  EXPECT_EQ(DiffRows("base", kWorkingName),
            (std::vector<Row>{{"type-changed", "d2f", "", "file"},
                              {"removed", "d2f/child", "", "file"},
                              {"type-changed", "f2d", "", "dir"},
                              {"added", "f2d/inside", "", "file"},
                              {"type-changed", "f2l", "", "symlink"}}));
}

TEST_F(DiffTest, SymlinkTargetChangeIsModification) {
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Symlink(kRootIno, "l", "one", {}).status(); }));
  ASSERT_OK(Snap("base"));
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(kRootIno, "l"));
    return ed.Symlink(kRootIno, "l", "two", {}).status();
  }));
  EXPECT_EQ(DiffRows("base", kWorkingName),
            (std::vector<Row>{{"modified", "l", "", "symlink"}}));
}

TEST_F(DiffTest, EmptyFilesAreNotPairedAsRenames) {
  ASSERT_OK(Put("empty-a", ""));
  ASSERT_OK(Snap("base"));
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Rename(kRootIno, "empty-a", kRootIno, "empty-b"));
    return Status::Ok();
  }));
  EXPECT_EQ(DiffRows("base", kWorkingName),
            (std::vector<Row>{{"removed", "empty-a", "", "file"},
                              {"added", "empty-b", "", "file"}}));
}

TEST_F(DiffTest, RenameOfWholeDirectoryPairsEveryFile) {
  ASSERT_OK(Put("src/one", "1111"));
  ASSERT_OK(Put("src/two", "2222"));
  ASSERT_OK(Snap("base"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Rename(kRootIno, "src", kRootIno, "dst"); }));
  EXPECT_EQ(DiffRows("base", kWorkingName),
            (std::vector<Row>{{"added", "dst", "", "dir"},
                              {"renamed", "dst/one", "src/one", "file"},
                              {"renamed", "dst/two", "src/two", "file"},
                              {"removed", "src", "", "dir"}}));
}

TEST_F(DiffTest, UnknownSnapshotIsNotFound) {
  MakeBase();
  EXPECT_CODE(store().Diff("base", "missing"), StatusCode::kNotFound);
  EXPECT_CODE(store().Diff("missing", kWorkingName), StatusCode::kNotFound);
  EXPECT_CODE(store().Diff(std::string(64, 'a'), "base"), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vexfs
