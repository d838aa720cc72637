// `vexfs` file commands run as a process: init, cat, ls, stat, mkdir, rm, rmdir
// and mv, checked through their text and JSON output.
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

// Names of a `ls --json` listing, in output order.
std::vector<std::string> Paths(const json& listing) {
  std::vector<std::string> out;
  for (const json& e : listing) out.push_back(e.at("path").get<std::string>());
  return out;
}

TEST_F(CliTest, InitCreatesAnEmptyStoreAtPath) {
  std::string path = Local("fresh");
  ProcessResult r = VexfsRaw({"init", path});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find(path), std::string::npos) << r;
  EXPECT_NE(r.out.find("main"), std::string::npos) << r;
  EXPECT_TRUE(std::filesystem::exists(path + "/data.mdb"));
  set_store(path);
  EXPECT_EQ(VexfsJson({"ls"}), json::array());
  EXPECT_EQ(VexfsJson({"info"}).at("branch"), "main");
  ExpectFsckClean();
}

TEST_F(CliTest, InitUsesStoreOptionAndMapSize) {
  json created = VexfsJson({"init", "--map-size", "64M"});
  EXPECT_EQ(created.at("store"), store());
  EXPECT_EQ(created.at("branch"), "main");
  json info = VexfsJson({"info"});
  EXPECT_EQ(info.at("map_size"), uint64_t{64} << 20);
}

TEST_F(CliStoreTest, CatPrintsExactBytes) {
  using namespace std::string_literals;
  std::string data = "line one\n\0binary\xff\x01 tail"s;
  PutText("notes/a.bin", data);
  EXPECT_EQ(VexfsOk({"cat", "notes/a.bin"}), data);
  PutText("empty", "");
  EXPECT_EQ(VexfsOk({"cat", "empty"}), "");
}

TEST_F(CliStoreTest, CatAtSnapshotAndOnBranch) {
  PutText("plan.md", "v1");
  VexfsOk({"snapshot", "create", "s1"});
  VexfsOk({"branch", "side"});  // a copy of the working tree
  PutText("plan.md", "v2");
  VexfsOk({"put", "--branch", "side", "-", "plan.md"}, "side version");
  EXPECT_EQ(VexfsOk({"cat", "plan.md"}), "v2");
  EXPECT_EQ(VexfsOk({"cat", "--at", "s1", "plan.md"}), "v1");
  EXPECT_EQ(VexfsOk({"cat", "--branch", "side", "plan.md"}), "side version");
}

class CliLsTest : public CliStoreTest {
 protected:
  void SetUp() override {
    CliStoreTest::SetUp();
    PutText("b.txt", "bb");
    PutText("a/x.txt", "xxx");
    PutText("a/deep/y.txt", "y");
    VexfsOk({"mkdir", "empty"});
  }
};

TEST_F(CliLsTest, ListsRootSortedWithDirectoriesMarked) {
  EXPECT_EQ(VexfsOk({"ls"}), "a/\nb.txt\nempty/\n");
  EXPECT_EQ(VexfsOk({"ls", "a"}), "deep/\nx.txt\n");
  EXPECT_EQ(VexfsOk({"ls", "b.txt"}), "b.txt\n");
}

TEST_F(CliLsTest, RecursiveListsEverything) {
  EXPECT_EQ(VexfsOk({"ls", "-R"}), "a/\na/deep/\na/deep/y.txt\na/x.txt\nb.txt\nempty/\n");
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R"})),
            (std::vector<std::string>{"a", "a/deep", "a/deep/y.txt", "a/x.txt", "b.txt", "empty"}));
  EXPECT_EQ(Paths(VexfsJson({"ls", "--recursive", "a"})),
            (std::vector<std::string>{"a/deep", "a/deep/y.txt", "a/x.txt"}));
  // A root or directory written with slashes lists canonical paths.
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R", "/"})),
            (std::vector<std::string>{"a", "a/deep", "a/deep/y.txt", "a/x.txt", "b.txt", "empty"}));
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R", "/a/deep/"})),
            (std::vector<std::string>{"a/deep/y.txt"}));
  EXPECT_EQ(Paths(VexfsJson({"ls", "/b.txt"})), (std::vector<std::string>{"b.txt"}));
  EXPECT_EQ(VexfsOk({"ls", "-R", "/a/"}), "deep/\ndeep/y.txt\nx.txt\n");
}

TEST_F(CliLsTest, LongFormatShowsModeAndSize) {
  std::string out = VexfsOk({"ls", "-l", "a"});
  EXPECT_NE(out.find("drwxr-xr-x"), std::string::npos) << out;
  EXPECT_NE(out.find("-rw-r--r--          3 "), std::string::npos) << out;
  EXPECT_NE(out.find(" x.txt\n"), std::string::npos) << out;
}

TEST_F(CliLsTest, JsonHasAttributes) {
  json listing = VexfsJson({"ls"});
  ASSERT_EQ(listing.size(), 3u);
  const json& b = listing[1];
  EXPECT_EQ(b.at("name"), "b.txt");
  EXPECT_EQ(b.at("type"), "file");
  EXPECT_EQ(b.at("size"), 2);
  EXPECT_EQ(b.at("mode"), 0644);
  EXPECT_EQ(listing[0].at("type"), "dir");
}

TEST_F(CliLsTest, AtSnapshotShowsOldTree) {
  VexfsOk({"snapshot", "create", "s1"});
  VexfsOk({"rm", "-r", "a"});
  EXPECT_EQ(VexfsOk({"ls"}), "b.txt\nempty/\n");
  EXPECT_EQ(VexfsOk({"ls", "--at", "s1"}), "a/\nb.txt\nempty/\n");
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R", "--at", "s1", "a"})),
            (std::vector<std::string>{"a/deep", "a/deep/y.txt", "a/x.txt"}));
}

TEST_F(CliStoreTest, StatShowsTypeModeAndSize) {
  PutText("dir/f.txt", "12345");
  std::string text = VexfsOk({"stat", "dir/f.txt"});
  EXPECT_NE(text.find("type:  file"), std::string::npos) << text;
  EXPECT_NE(text.find("size:  5"), std::string::npos) << text;
  EXPECT_NE(text.find("-rw-r--r-- (0644)"), std::string::npos) << text;

  json file = VexfsJson({"stat", "dir/f.txt"});
  EXPECT_EQ(file.at("type"), "file");
  EXPECT_EQ(file.at("size"), 5);
  EXPECT_EQ(file.at("mode"), 0644);
  EXPECT_EQ(file.at("path"), "dir/f.txt");
  EXPECT_TRUE(file.at("xattrs").is_object());

  json dir = VexfsJson({"stat", "dir"});
  EXPECT_EQ(dir.at("type"), "dir");
  EXPECT_EQ(dir.at("mode"), 0755);
}

TEST_F(CliStoreTest, StatOfSymlinkAndExecutable) {
  std::string local = Local("tool.sh");
  WriteLocalFile(local, "#!/bin/sh\n");
  ASSERT_EQ(::chmod(local.c_str(), 0750), 0);
  std::filesystem::create_symlink("tool.sh", Local("link"));
  VexfsOk({"put", local, "bin/tool.sh"});
  VexfsOk({"put", Local("link"), "bin/link"});
  EXPECT_EQ(VexfsJson({"stat", "bin/tool.sh"}).at("mode"), 0750);
  json link = VexfsJson({"stat", "bin/link"});
  EXPECT_EQ(link.at("type"), "symlink");
  EXPECT_EQ(link.at("size"), std::string("tool.sh").size());
}

TEST_F(CliStoreTest, MkdirAndMkdirParents) {
  VexfsOk({"mkdir", "one", "two"});
  VexfsOk({"mkdir", "-p", "a/b/c"});
  VexfsOk({"mkdir", "-p", "a/b"});  // present already: not an error with -p
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R"})),
            (std::vector<std::string>{"a", "a/b", "a/b/c", "one", "two"}));
  EXPECT_EQ(VexfsJson({"stat", "a/b/c"}).at("type"), "dir");
}

TEST_F(CliStoreTest, RmFilesAndRecursiveDirectories) {
  PutText("keep.txt", "k");
  PutText("f1", "1");
  PutText("f2", "2");
  PutText("tree/sub/deep.txt", "d");
  VexfsOk({"rm", "f1", "f2"});
  VexfsOk({"rm", "-r", "tree"});
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R"})), (std::vector<std::string>{"keep.txt"}));
}

TEST_F(CliStoreTest, RmdirRemovesEmptyDirectory) {
  VexfsOk({"mkdir", "-p", "d/e"});
  VexfsOk({"rmdir", "d/e"});
  VexfsOk({"rmdir", "d"});
  EXPECT_EQ(VexfsJson({"ls"}), json::array());
}

TEST_F(CliStoreTest, MvRenamesMovesIntoDirectoryAndReplaces) {
  PutText("a.txt", "A");
  PutText("b.txt", "B");
  PutText("old/n.txt", "N");
  VexfsOk({"mkdir", "dest"});
  VexfsOk({"mv", "a.txt", "renamed.txt"});   // rename
  VexfsOk({"mv", "renamed.txt", "dest"});    // into a directory
  VexfsOk({"mv", "b.txt", "dest/renamed.txt"});  // over a file
  VexfsOk({"mv", "old", "new"});             // a directory
  EXPECT_EQ(Paths(VexfsJson({"ls", "-R"})),
            (std::vector<std::string>{"dest", "dest/renamed.txt", "new", "new/n.txt"}));
  EXPECT_EQ(VexfsOk({"cat", "dest/renamed.txt"}), "B");
  EXPECT_EQ(VexfsOk({"cat", "new/n.txt"}), "N");
  ExpectFsckClean();
}

}  // namespace
}  // namespace vexfs::cli_test
