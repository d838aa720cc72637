// Tests for the namespace operations of a working tree through TreeEditor:
// create, mkdir, symlink, hard links, unlink, rmdir, rename in all its POSIX cases,
// attributes, xattrs, error codes, and that a failed Edit keeps nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>

#include "test_util.h"
#include "vexfs/paths.h"
#include "vexfs/store.h"

namespace vexfs {
namespace {

using test::StoreTest;
using test::TreeDump;

class TreeEditorTest : public StoreTest {
 protected:
  // Names in directory `path`, sorted.
  std::vector<std::string> Names(std::string_view path) {
    std::vector<std::string> out;
    auto entries = tree().List(path);
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    if (entries.ok()) {
      for (const DirEntry& e : *entries) out.push_back(e.name);
    }
    return out;
  }
  bool Exists(std::string_view path) { return tree().Stat(path).ok(); }
};

using NameList = std::vector<std::string>;

TEST_F(TreeEditorTest, CreateMkdirSymlinkAndList) {
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.CreateFile(kRootIno, "f", {0640, 7, 8}).status());
    VEXFS_RETURN_IF_ERROR(ed.Mkdir(kRootIno, "d", {0750, 0, 0}).status());
    return ed.Symlink(kRootIno, "l", "d/target", {}).status();
  }));
  EXPECT_EQ(Names(""), (NameList{"d", "f", "l"}));
  ASSIGN_OR_FAIL(Attributes f, tree().Stat("f"));
  EXPECT_EQ(f.type, FileType::kRegular);
  EXPECT_EQ(f.mode, 0640u);
  EXPECT_EQ(f.uid, 7u);
  EXPECT_EQ(f.gid, 8u);
  EXPECT_EQ(f.size, 0u);
  EXPECT_EQ(f.nlink, 1u);
  EXPECT_NE(f.ino, kRootIno);
  ASSIGN_OR_FAIL(Attributes d, tree().Stat("d"));
  EXPECT_EQ(d.type, FileType::kDirectory);
  EXPECT_EQ(d.mode, 0750u);
  EXPECT_EQ(d.nlink, 2u);
  ASSIGN_OR_FAIL(Attributes l, tree().Stat("l"));
  EXPECT_EQ(l.type, FileType::kSymlink);
  EXPECT_EQ(l.size, 8u);  // length of "d/target"
  ASSIGN_OR_FAIL(std::string target, tree().ReadLink("l"));
  EXPECT_EQ(target, "d/target");
  ASSIGN_OR_FAIL(Attributes root, tree().Stat(""));
  EXPECT_EQ(root.ino, kRootIno);
  EXPECT_EQ(root.nlink, 3u);  // ".", its own entry, and "d/.."
  ASSIGN_OR_FAIL(Attributes root_slash, tree().Stat("/"));
  EXPECT_EQ(root_slash.ino, kRootIno);
}

TEST_F(TreeEditorTest, ModeKeepsOnlyPermissionBits) {
  ASSERT_OK(Edit([](TreeEditor& ed) {
    return ed.CreateFile(kRootIno, "f", {0170644, 0, 0}).status();
  }));
  ASSIGN_OR_FAIL(Attributes f, tree().Stat("f"));
  EXPECT_EQ(f.mode, 0644u);
  EXPECT_EQ(f.type, FileType::kRegular);
}

TEST_F(TreeEditorTest, LookupAndReadDir) {
  ASSERT_OK(Put("a/b/c.txt", "hello"));
  uint64_t a = Ino("a");
  ASSERT_OK(tree().View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(Attributes b, ed.Lookup(a, "b"));
    EXPECT_EQ(b.type, FileType::kDirectory);
    VEXFS_ASSIGN_OR_RETURN(auto entries, ed.ReadDir(b.ino));
    EXPECT_EQ(entries.size(), 1u);
    if (!entries.empty()) {
      EXPECT_EQ(entries[0].name, "c.txt");
      EXPECT_EQ(entries[0].attr.size, 5u);
    }
    VEXFS_ASSIGN_OR_RETURN(uint64_t c, ed.ResolvePath("/a/b/c.txt"));
    EXPECT_EQ(c, entries.empty() ? 0 : entries[0].attr.ino);
    EXPECT_CODE(ed.Lookup(a, "zz"), StatusCode::kNotFound);
    EXPECT_CODE(ed.Lookup(c, "x"), StatusCode::kNotDirectory);
    EXPECT_CODE(ed.ReadDir(c), StatusCode::kNotDirectory);
    EXPECT_CODE(ed.GetAttr(999999), StatusCode::kNotFound);
    return Status::Ok();
  }));
}

TEST_F(TreeEditorTest, ListNamesAgreesWithReadDir) {
  ASSERT_OK(Put("d/file", "x"));
  ASSERT_OK(Put("d/sub/inner", "y"));
  uint64_t d = Ino("d");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Symlink(d, "link", "file", {}).status());
    return ed.MakeSpecialFile(d, "pipe", FileType::kFifo, 0, {}).status();
  }));
  ASSERT_OK(tree().View([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(auto full, ed.ReadDir(d));
    VEXFS_ASSIGN_OR_RETURN(auto names, ed.ListNames(d));
    EXPECT_EQ(names.size(), 4u);
    EXPECT_EQ(names.size(), full.size());
    for (size_t i = 0; i < std::min(names.size(), full.size()); ++i) {
      EXPECT_EQ(names[i].name, full[i].name);
      EXPECT_EQ(names[i].ino, full[i].attr.ino) << names[i].name;
      EXPECT_EQ(names[i].type, full[i].attr.type) << names[i].name;
    }
    VEXFS_ASSIGN_OR_RETURN(uint64_t file, ed.ResolvePath("d/file"));
    EXPECT_CODE(ed.ListNames(file), StatusCode::kNotDirectory);
    EXPECT_CODE(ed.ListNames(999999), StatusCode::kNotFound);
    return Status::Ok();
  }));
}

TEST_F(TreeEditorTest, CreateOverExistingNameFails) {
  ASSERT_OK(Put("x", "data"));
  ASSERT_OK(Edit([](TreeEditor& ed) {
    EXPECT_CODE(ed.CreateFile(kRootIno, "x", {}), StatusCode::kAlreadyExists);
    EXPECT_CODE(ed.Mkdir(kRootIno, "x", {}), StatusCode::kAlreadyExists);
    EXPECT_CODE(ed.Symlink(kRootIno, "x", "t", {}), StatusCode::kAlreadyExists);
    return Status::Ok();
  }));
  EXPECT_EQ(Content("x"), "data");
}

TEST_F(TreeEditorTest, BadNamesAreRefused) {
  ASSERT_OK(Edit([](TreeEditor& ed) {
    for (std::string bad : {std::string(""), std::string("."), std::string(".."),
                            std::string("a/b"), std::string("nul\0x", 5)}) {
      EXPECT_CODE(ed.CreateFile(kRootIno, bad, {}), StatusCode::kInvalidArgument) << bad;
      EXPECT_CODE(ed.Mkdir(kRootIno, bad, {}), StatusCode::kInvalidArgument) << bad;
    }
    EXPECT_CODE(ed.CreateFile(kRootIno, std::string(256, 'n'), {}), StatusCode::kNameTooLong);
    EXPECT_OK(ed.CreateFile(kRootIno, std::string(255, 'n'), {}));
    return Status::Ok();
  }));
  EXPECT_EQ(Names(""), (NameList{std::string(255, 'n')}));
}

TEST_F(TreeEditorTest, TheMountsViewsNameIsReservedAtTheRootOnly) {
  ASSERT_OK(Put("f", "x"));
  ASSERT_OK(Put("d/g", "y"));
  uint64_t f = Ino("f"), d = Ino("d");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    const std::string reserved(kReservedRootName);
    EXPECT_CODE(ed.CreateFile(kRootIno, reserved, {}), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Mkdir(kRootIno, reserved, {}), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Symlink(kRootIno, reserved, "f", {}), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Link(f, kRootIno, reserved), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Rename(kRootIno, "f", kRootIno, reserved), StatusCode::kInvalidArgument);
    Status refused = ed.Rename(d, "g", kRootIno, reserved);
    EXPECT_CODE(refused, StatusCode::kInvalidArgument);
    EXPECT_NE(refused.message().find("reserved"), std::string::npos) << refused.ToString();
    // Below the root it is an ordinary name.
    EXPECT_OK(ed.Mkdir(d, reserved, {}));
    return Status::Ok();
  }));
  EXPECT_EQ(Names(""), (NameList{"d", "f"}));
  EXPECT_EQ(Names("d"), (NameList{".vexfs", "g"}));
  EXPECT_CODE(Put(".vexfs", "through the path API too"), StatusCode::kInvalidArgument);
}

TEST_F(TreeEditorTest, PathsWithDotDotAreRefused) {
  ASSERT_OK(Put("a/f", "x"));
  EXPECT_CODE(tree().Stat("a/../a/f"), StatusCode::kInvalidArgument);
  EXPECT_CODE(tree().Stat("../etc/passwd"), StatusCode::kInvalidArgument);
  EXPECT_CODE(tree().Read("a/./f", 0, 1), StatusCode::kInvalidArgument);
  EXPECT_CODE(Put("../escape", "x"), StatusCode::kInvalidArgument);
}

TEST_F(TreeEditorTest, SymlinkEdgeCases) {
  ASSERT_OK(Put("f", "data"));
  uint64_t f = Ino("f");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Symlink(kRootIno, "empty", "", {}), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Symlink(kRootIno, "long", std::string(4097, 't'), {}),
                StatusCode::kNameTooLong);
    EXPECT_OK(ed.Symlink(kRootIno, "max", std::string(4096, 't'), {}));
    EXPECT_CODE(ed.ReadLink(f), StatusCode::kInvalidArgument);
    return Status::Ok();
  }));
  ASSIGN_OR_FAIL(std::string target, tree().ReadLink("max"));
  EXPECT_EQ(target, std::string(4096, 't'));
  EXPECT_FALSE(tree().Read("max", 0, 10).ok());  // not a regular file
  EXPECT_CODE(tree().ReadLink("missing"), StatusCode::kNotFound);
}

TEST_F(TreeEditorTest, HardLinksShareContent) {
  ASSERT_OK(Put("a", "one"));
  ASSERT_OK(Put("dir/keep", ""));
  uint64_t a = Ino("a");
  uint64_t dir = Ino("dir");
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(Attributes linked, ed.Link(a, dir, "b"));
    EXPECT_EQ(linked.ino, a);
    EXPECT_EQ(linked.nlink, 2u);
    return ed.Write(a, 0, "two");
  }));
  EXPECT_EQ(Content("dir/b"), "two");
  ASSIGN_OR_FAIL(Attributes b, tree().Stat("dir/b"));
  EXPECT_EQ(b.ino, a);
  EXPECT_EQ(b.nlink, 2u);
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Unlink(kRootIno, "a"); }));
  EXPECT_FALSE(Exists("a"));
  ASSIGN_OR_FAIL(Attributes left, tree().Stat("dir/b"));
  EXPECT_EQ(left.nlink, 1u);
  EXPECT_EQ(Content("dir/b"), "two");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Unlink(dir, "b"); }));
  ASSERT_OK(tree().View([&](TreeEditor& ed) {
    EXPECT_CODE(ed.GetAttr(a), StatusCode::kNotFound);  // gone with its last link
    return Status::Ok();
  }));
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, LinkErrors) {
  ASSERT_OK(Put("f", "x"));
  ASSERT_OK(Put("g", "y"));
  ASSERT_OK(Put("d/z", "z"));
  uint64_t f = Ino("f"), d = Ino("d");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Link(d, kRootIno, "d2"), StatusCode::kNotSupported);
    EXPECT_CODE(ed.Link(f, kRootIno, "g"), StatusCode::kAlreadyExists);
    EXPECT_CODE(ed.Link(f, f, "x"), StatusCode::kNotDirectory);
    EXPECT_CODE(ed.Link(f, kRootIno, "a/b"), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Link(987654, kRootIno, "n"), StatusCode::kNotFound);
    return Status::Ok();
  }));
  EXPECT_EQ(Content("g"), "y");
}

TEST_F(TreeEditorTest, UnlinkErrors) {
  ASSERT_OK(Put("d/f", "x"));
  uint64_t f = Ino("d/f");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Unlink(kRootIno, "missing"), StatusCode::kNotFound);
    EXPECT_CODE(ed.Unlink(kRootIno, "d"), StatusCode::kIsDirectory);
    EXPECT_CODE(ed.Unlink(f, "x"), StatusCode::kNotDirectory);
    return Status::Ok();
  }));
  EXPECT_TRUE(Exists("d/f"));
}

TEST_F(TreeEditorTest, RmdirOnlyRemovesEmptyDirectories) {
  ASSERT_OK(Put("full/f", "x"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Mkdir(kRootIno, "empty", {}).status(); }));
  ASSIGN_OR_FAIL(Attributes root, tree().Stat(""));
  EXPECT_EQ(root.nlink, 4u);
  ASSERT_OK(Edit([](TreeEditor& ed) {
    EXPECT_CODE(ed.Rmdir(kRootIno, "full"), StatusCode::kNotEmpty);
    EXPECT_CODE(ed.Rmdir(kRootIno, "missing"), StatusCode::kNotFound);
    return Status::Ok();
  }));
  uint64_t full = Ino("full");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Rmdir(full, "f"), StatusCode::kNotDirectory);
    return ed.Rmdir(kRootIno, "empty");
  }));
  EXPECT_EQ(Names(""), (NameList{"full"}));
  ASSIGN_OR_FAIL(Attributes after, tree().Stat(""));
  EXPECT_EQ(after.nlink, 3u);
  // Emptied, the directory can go.
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.Unlink(full, "f"));
    return ed.Rmdir(kRootIno, "full");
  }));
  EXPECT_TRUE(Names("").empty());
}

TEST_F(TreeEditorTest, RenameFileOverExistingFile) {
  ASSERT_OK(Put("src", "new"));
  ASSERT_OK(Put("dst", "old content"));
  uint64_t src = Ino("src");
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Rename(kRootIno, "src", kRootIno, "dst"); }));
  EXPECT_EQ(Names(""), (NameList{"dst"}));
  EXPECT_EQ(Content("dst"), "new");
  EXPECT_EQ(Ino("dst"), src);
}

TEST_F(TreeEditorTest, RenameAcrossDirectoriesUpdatesLinkCounts) {
  ASSERT_OK(Put("a/moved/inner.txt", "inner"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Mkdir(kRootIno, "b", {}).status(); }));
  uint64_t a = Ino("a"), b = Ino("b");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Rename(a, "moved", b, "here"); }));
  EXPECT_TRUE(Names("a").empty());
  EXPECT_EQ(Names("b"), (NameList{"here"}));
  EXPECT_EQ(Content("b/here/inner.txt"), "inner");
  ASSIGN_OR_FAIL(Attributes sa, tree().Stat("a"));
  ASSIGN_OR_FAIL(Attributes sb, tree().Stat("b"));
  EXPECT_EQ(sa.nlink, 2u);
  EXPECT_EQ(sb.nlink, 3u);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, RenameDirectoryOverEmptyDirectory) {
  ASSERT_OK(Put("src/f", "f"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Mkdir(kRootIno, "dst", {}).status(); }));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Rename(kRootIno, "src", kRootIno, "dst"); }));
  EXPECT_EQ(Names(""), (NameList{"dst"}));
  EXPECT_EQ(Content("dst/f"), "f");
  ASSIGN_OR_FAIL(Attributes root, tree().Stat(""));
  EXPECT_EQ(root.nlink, 3u);
}

TEST_F(TreeEditorTest, RenameRefusesToReplaceNonEmptyDirectory) {
  ASSERT_OK(Put("src/f", "f"));
  ASSERT_OK(Put("dst/g", "g"));
  ASSERT_OK(Edit([](TreeEditor& ed) {
    EXPECT_CODE(ed.Rename(kRootIno, "src", kRootIno, "dst"), StatusCode::kNotEmpty);
    return Status::Ok();
  }));
  EXPECT_EQ(Content("src/f"), "f");
  EXPECT_EQ(Content("dst/g"), "g");
}

TEST_F(TreeEditorTest, RenameRefusesTypeMismatch) {
  ASSERT_OK(Put("file", "f"));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Mkdir(kRootIno, "dir", {}).status(); }));
  ASSERT_OK(Edit([](TreeEditor& ed) {
    EXPECT_CODE(ed.Rename(kRootIno, "file", kRootIno, "dir"), StatusCode::kIsDirectory);
    EXPECT_CODE(ed.Rename(kRootIno, "dir", kRootIno, "file"), StatusCode::kNotDirectory);
    return Status::Ok();
  }));
  EXPECT_EQ(Names(""), (NameList{"dir", "file"}));
}

TEST_F(TreeEditorTest, ExchangeSwapsTwoFiles) {
  ASSERT_OK(Put("one", "1"));
  ASSERT_OK(Put("two", "22"));
  uint64_t one = Ino("one"), two = Ino("two");
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Exchange(kRootIno, "one", kRootIno, "two"); }));
  EXPECT_EQ(Content("one"), "22");
  EXPECT_EQ(Content("two"), "1");
  EXPECT_EQ(Ino("one"), two);
  EXPECT_EQ(Ino("two"), one);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, ExchangeOfAFileAndADirectoryMovesLinksAndParents) {
  ASSERT_OK(Put("a/sub/inner.txt", "inner"));
  ASSERT_OK(Put("b/file", "file"));
  uint64_t a = Ino("a"), b = Ino("b"), sub = Ino("a/sub");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Exchange(a, "sub", b, "file"); }));
  EXPECT_EQ(Content("a/sub"), "file");
  EXPECT_EQ(Content("b/file/inner.txt"), "inner");
  ASSIGN_OR_FAIL(Attributes sa, tree().Stat("a"));
  ASSIGN_OR_FAIL(Attributes sb, tree().Stat("b"));
  EXPECT_EQ(sa.nlink, 2u);  // lost its subdirectory
  EXPECT_EQ(sb.nlink, 3u);  // gained one
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(std::string path, ed.PathOf(sub));
    EXPECT_EQ(path, "b/file");  // the directory's parent moved with it
    return Status::Ok();
  }));
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, ExchangeRefusesMissingEntriesAndLoops) {
  ASSERT_OK(Put("a/b/c/f", "x"));
  ASSERT_OK(Put("g", "g"));
  uint64_t a = Ino("a"), c = Ino("a/b/c");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Exchange(kRootIno, "g", kRootIno, "missing"), StatusCode::kNotFound);
    EXPECT_CODE(ed.Exchange(kRootIno, "missing", kRootIno, "g"), StatusCode::kNotFound);
    EXPECT_CODE(ed.Exchange(kRootIno, "a", c, "f"), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Exchange(c, "f", kRootIno, "a"), StatusCode::kInvalidArgument);
    EXPECT_OK(ed.Exchange(a, "b", a, "b"));  // an entry with itself: nothing to do
    return Status::Ok();
  }));
  EXPECT_EQ(Content("a/b/c/f"), "x");
  EXPECT_EQ(Content("g"), "g");
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, RenameDirectoryIntoItsOwnSubtreeIsRefused) {
  ASSERT_OK(Put("a/b/c/f", "x"));
  uint64_t a = Ino("a"), c = Ino("a/b/c");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Rename(kRootIno, "a", c, "a2"), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.Rename(kRootIno, "a", a, "self"), StatusCode::kInvalidArgument);
    return Status::Ok();
  }));
  EXPECT_EQ(Content("a/b/c/f"), "x");
  EXPECT_EQ(Names(""), (NameList{"a"}));
}

TEST_F(TreeEditorTest, RenameNoReplace) {
  ASSERT_OK(Put("a", "A"));
  ASSERT_OK(Put("b", "B"));
  ASSERT_OK(Edit([](TreeEditor& ed) {
    EXPECT_CODE(ed.Rename(kRootIno, "a", kRootIno, "b", TreeEditor::kRenameNoReplace),
                StatusCode::kAlreadyExists);
    return Status::Ok();
  }));
  EXPECT_EQ(Content("a"), "A");
  EXPECT_EQ(Content("b"), "B");
  ASSERT_OK(Edit([](TreeEditor& ed) {
    return ed.Rename(kRootIno, "a", kRootIno, "c", TreeEditor::kRenameNoReplace);
  }));
  EXPECT_EQ(Names(""), (NameList{"b", "c"}));
}

// POSIX: renaming one hard link onto another link of the same file does nothing.
TEST_F(TreeEditorTest, RenameBetweenHardLinksIsNoOp) {
  ASSERT_OK(Put("a", "same"));
  uint64_t a = Ino("a");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Link(a, kRootIno, "b").status(); }));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Rename(kRootIno, "a", kRootIno, "b"); }));
  EXPECT_EQ(Names(""), (NameList{"a", "b"}));
  ASSIGN_OR_FAIL(Attributes b, tree().Stat("b"));
  EXPECT_EQ(b.ino, a);
  EXPECT_EQ(b.nlink, 2u);
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, RenameOverHardLinkOfAnotherFileDropsOneLink) {
  ASSERT_OK(Put("x", "X"));
  ASSERT_OK(Put("y", "Y"));
  uint64_t y = Ino("y");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.Link(y, kRootIno, "y2").status(); }));
  ASSERT_OK(Edit([](TreeEditor& ed) { return ed.Rename(kRootIno, "x", kRootIno, "y"); }));
  EXPECT_EQ(Content("y"), "X");
  ASSIGN_OR_FAIL(Attributes y2, tree().Stat("y2"));
  EXPECT_EQ(y2.ino, y);
  EXPECT_EQ(y2.nlink, 1u);
  EXPECT_EQ(Content("y2"), "Y");
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, RenameToSameNameAndMissingSource) {
  ASSERT_OK(Put("a", "A"));
  ASSERT_OK(Edit([](TreeEditor& ed) {
    EXPECT_OK(ed.Rename(kRootIno, "a", kRootIno, "a"));
    EXPECT_CODE(ed.Rename(kRootIno, "nope", kRootIno, "b"), StatusCode::kNotFound);
    EXPECT_CODE(ed.Rename(kRootIno, "a", kRootIno, ".."), StatusCode::kInvalidArgument);
    return Status::Ok();
  }));
  EXPECT_EQ(Content("a"), "A");
}

TEST_F(TreeEditorTest, PathErrors) {
  ASSERT_OK(Put("f", "data"));
  ASSERT_OK(Put("d/g", "g"));
  EXPECT_CODE(tree().Stat("missing"), StatusCode::kNotFound);
  EXPECT_CODE(tree().Stat("d/missing"), StatusCode::kNotFound);
  EXPECT_CODE(tree().Stat("f/x"), StatusCode::kNotDirectory);
  EXPECT_CODE(tree().List("f"), StatusCode::kNotDirectory);
  EXPECT_CODE(tree().Read("d", 0, 10), StatusCode::kIsDirectory);
  EXPECT_CODE(tree().ReadAll("d"), StatusCode::kIsDirectory);
  EXPECT_CODE(tree().Read("missing", 0, 1), StatusCode::kNotFound);
  EXPECT_CODE(tree().Xattrs("missing"), StatusCode::kNotFound);
  EXPECT_CODE(Put("f/sub", "x"), StatusCode::kNotDirectory);
  EXPECT_CODE(Put("d", "x"), StatusCode::kIsDirectory);
  EXPECT_CODE(Put("", "x"), StatusCode::kIsDirectory);
  uint64_t d = Ino("d"), f = Ino("f");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_CODE(ed.Write(d, 0, "x"), StatusCode::kIsDirectory);
    EXPECT_CODE(ed.Truncate(d, 0), StatusCode::kIsDirectory);
    EXPECT_CODE(ed.ReplaceContent(d, "x"), StatusCode::kIsDirectory);
    EXPECT_CODE(ed.Read(d, 0, 1), StatusCode::kIsDirectory);
    EXPECT_CODE(ed.Mkdir(f, "sub", {}), StatusCode::kNotDirectory);
    EXPECT_CODE(ed.CreateFile(f, "sub", {}), StatusCode::kNotDirectory);
    EXPECT_CODE(ed.CreateFile(424242, "x", {}), StatusCode::kNotFound);
    EXPECT_CODE(ed.Write(424242, 0, "x"), StatusCode::kNotFound);
    EXPECT_CODE(ed.MakeDirs("f/sub", {}), StatusCode::kNotDirectory);
    return Status::Ok();
  }));
}

TEST_F(TreeEditorTest, MakeDirsAndPutFileCreateParents) {
  ASSERT_OK(Edit([](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(uint64_t deep, ed.MakeDirs("x/y/z", {}));
    VEXFS_ASSIGN_OR_RETURN(uint64_t again, ed.MakeDirs("/x/y/z/", {}));
    EXPECT_EQ(deep, again);
    VEXFS_ASSIGN_OR_RETURN(Attributes f, ed.PutFile("x/y/file", "abc", {0600, 0, 0}));
    EXPECT_EQ(f.size, 3u);
    EXPECT_EQ(f.mode, 0600u);
    return ed.PutFile("x/y/file", "replaced", {}).status();  // overwrites in place
  }));
  EXPECT_EQ(Names("x/y"), (NameList{"file", "z"}));
  EXPECT_EQ(Content("x/y/file"), "replaced");
}

TEST_F(TreeEditorTest, SetAttrChangesOnlyWhatIsGiven) {
  ASSERT_OK(Put("f", "x"));
  uint64_t f = Ino("f");
  ASSIGN_OR_FAIL(Attributes before, tree().Stat("f"));
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    TreeEditor::AttrChange change;
    change.mode = 0100600;
    change.mtime = 1234567890;
    VEXFS_ASSIGN_OR_RETURN(Attributes a, ed.SetAttr(f, change));
    EXPECT_EQ(a.mode, 0600u);
    TreeEditor::AttrChange owner;
    owner.uid = 1000;
    owner.gid = 2000;
    owner.atime = 42;
    return ed.SetAttr(f, owner).status();
  }));
  ASSIGN_OR_FAIL(Attributes after, tree().Stat("f"));
  EXPECT_EQ(after.mode, 0600u);
  EXPECT_EQ(after.mtime, 1234567890);
  EXPECT_EQ(after.atime, 42);
  EXPECT_EQ(after.uid, 1000u);
  EXPECT_EQ(after.gid, 2000u);
  EXPECT_EQ(after.size, before.size);
  EXPECT_EQ(after.type, FileType::kRegular);
  EXPECT_EQ(Content("f"), "x");
}

TEST_F(TreeEditorTest, XattrsSetGetListRemove) {
  ASSERT_OK(Put("d/f", "x"));
  uint64_t f = Ino("d/f"), d = Ino("d");
  const std::string binary("v\0\xff", 3);
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(f, "user.a", "1"));
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(f, "user.b", binary));
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(f, "user.a", "2"));  // overwrite
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(f, "user.empty", ""));
    return ed.SetXattr(d, "user.dir", "on a directory");
  }));
  ASSIGN_OR_FAIL(XattrMap xf, tree().Xattrs("d/f"));
  EXPECT_EQ(xf, (XattrMap{{"user.a", "2"}, {"user.b", binary}, {"user.empty", ""}}));
  ASSIGN_OR_FAIL(XattrMap xd, tree().Xattrs("d"));
  EXPECT_EQ(xd, (XattrMap{{"user.dir", "on a directory"}}));
  ASSERT_OK(Edit([&](TreeEditor& ed) -> Status {
    VEXFS_ASSIGN_OR_RETURN(std::string b, ed.GetXattr(f, "user.b"));
    EXPECT_EQ(b, binary);
    VEXFS_ASSIGN_OR_RETURN(XattrMap listed, ed.ListXattrs(f));
    EXPECT_EQ(listed.size(), 3u);
    VEXFS_RETURN_IF_ERROR(ed.RemoveXattr(f, "user.a"));
    EXPECT_CODE(ed.GetXattr(f, "user.a"), StatusCode::kNotFound);
    EXPECT_CODE(ed.RemoveXattr(f, "user.a"), StatusCode::kNotFound);
    EXPECT_CODE(ed.GetXattr(f, "user.never"), StatusCode::kNotFound);
    return Status::Ok();
  }));
  ASSIGN_OR_FAIL(XattrMap left, tree().Xattrs("d/f"));
  EXPECT_EQ(left, (XattrMap{{"user.b", binary}, {"user.empty", ""}}));
}

TEST_F(TreeEditorTest, XattrLimits) {
  ASSERT_OK(Put("f", "x"));
  uint64_t f = Ino("f");
  ASSERT_OK(Edit([&](TreeEditor& ed) {
    EXPECT_OK(ed.SetXattr(f, "user.max", std::string(64 * 1024, 'v')));
    EXPECT_CODE(ed.SetXattr(f, "user.big", std::string(64 * 1024 + 1, 'v')),
                StatusCode::kFileTooLarge);
    EXPECT_CODE(ed.SetXattr(f, "", "v"), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.SetXattr(f, std::string("a\0b", 3), "v"), StatusCode::kInvalidArgument);
    EXPECT_CODE(ed.SetXattr(f, std::string(256, 'n'), "v"), StatusCode::kNameTooLong);
    EXPECT_CODE(ed.SetXattr(777777, "user.x", "v"), StatusCode::kNotFound);
    return Status::Ok();
  }));
  ASSIGN_OR_FAIL(XattrMap x, tree().Xattrs("f"));
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x["user.max"].size(), 64u * 1024);
}

// The callback fails after many changes: every one of them must be rolled back,
// including objects already written to the object table.
TEST_F(TreeEditorTest, FailedEditLeavesNothingBehind) {
  ASSERT_OK(Put("keep/existing", "original"));
  uint64_t existing = Ino("keep/existing");
  ASSIGN_OR_FAIL(TreeDump before, test::DumpTree(&tree()));
  ASSIGN_OR_FAIL(StoreStats stats_before, store().Stats());
  std::string big = test::RandomBytes(1, 300000);
  uint64_t keep = Ino("keep");
  Status st = Edit([&](TreeEditor& ed) -> Status {
    VEXFS_RETURN_IF_ERROR(ed.PutFile("new/dir/file", big, {}).status());
    VEXFS_RETURN_IF_ERROR(ed.Write(existing, 3, "CHANGED"));
    VEXFS_RETURN_IF_ERROR(ed.SetXattr(existing, "user.x", "y"));
    VEXFS_RETURN_IF_ERROR(ed.Rename(keep, "existing", kRootIno, "moved"));
    VEXFS_RETURN_IF_ERROR(ed.Mkdir(kRootIno, "another", {}).status());
    return Status::Busy("callback gave up");
  });
  EXPECT_EQ(st.code(), StatusCode::kBusy);
  EXPECT_EQ(st.message(), "callback gave up");
  ASSIGN_OR_FAIL(TreeDump after, test::DumpTree(&tree()));
  EXPECT_EQ(after, before);
  ASSIGN_OR_FAIL(XattrMap x, tree().Xattrs("keep/existing"));
  EXPECT_TRUE(x.empty());
  ASSIGN_OR_FAIL(StoreStats stats_after, store().Stats());
  EXPECT_EQ(stats_after.objects, stats_before.objects);
  // The inode numbers handed out in the failed edit are not a problem later.
  ASSERT_OK(Put("new/dir/file", "works"));
  EXPECT_EQ(Content("new/dir/file"), "works");
  EXPECT_TRUE(test::FsckClean(store()));
}

TEST_F(TreeEditorTest, ViewCannotWrite) {
  Status st = tree().View([](TreeEditor& ed) { return ed.CreateFile(kRootIno, "x", {}).status(); });
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(Exists("x"));
}

TEST_F(TreeEditorTest, UnknownBranchTree) {
  EXPECT_CODE(store().Tree("nope"), StatusCode::kNotFound);
}

TEST_F(TreeEditorTest, ChangesSurviveReopen) {
  ASSERT_OK(Put("a/b", "persisted"));
  uint64_t ab = Ino("a/b");
  ASSERT_OK(Edit([&](TreeEditor& ed) { return ed.SetXattr(ab, "user.k", "v"); }));
  Reopen();
  EXPECT_EQ(Content("a/b"), "persisted");
  ASSIGN_OR_FAIL(XattrMap x, tree().Xattrs("a/b"));
  EXPECT_EQ(x, (XattrMap{{"user.k", "v"}}));
}

}  // namespace
}  // namespace vexfs
