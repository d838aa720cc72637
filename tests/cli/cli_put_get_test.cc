// `vexfs put` and `vexfs get` run as processes: files, whole directory trees with
// symlinks, empty and binary files, stdin, and byte-for-byte round trips.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "cli/cli_test_util.h"
#include "vexfs/store.h"

namespace vexfs::cli_test {
namespace {

namespace fs = std::filesystem;

// A local tree as relative path -> "dir", "file:<bytes>" or "link:<target>".
std::map<std::string, std::string> DumpLocal(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string rel = e.path().lexically_relative(root).generic_string();
    if (e.is_symlink()) {
      out[rel] = "link:" + fs::read_symlink(e.path()).string();
    } else if (e.is_directory()) {
      out[rel] = "dir";
    } else {
      out[rel] = "file:" + ReadLocalFile(e.path().string());
    }
  }
  return out;
}

class CliPutGetTest : public CliStoreTest {
 protected:
  // src/{notes.md, empty, blob.bin, nested/a/b/deep.txt, nested/empty-dir/,
  // "with space/é ü.txt", link -> notes.md, dangling -> missing}
  std::string MakeLocalTree() {
    std::string src = Local("src");
    fs::create_directories(src + "/nested/a/b");
    fs::create_directories(src + "/nested/empty-dir");
    fs::create_directories(src + "/with space");
    WriteLocalFile(src + "/with space/\u00e9 \u00fc.txt", "unicode name");
    WriteLocalFile(src + "/notes.md", "# notes\nremember this\n");
    WriteLocalFile(src + "/empty", "");
    WriteLocalFile(src + "/blob.bin", vexfs::test::RandomBytes(7, 300000));
    WriteLocalFile(src + "/nested/a/b/deep.txt", "deep");
    fs::create_symlink("notes.md", src + "/link");
    fs::create_symlink("missing", src + "/dangling");
    return src;
  }
};

TEST_F(CliPutGetTest, PutFileAndCatItBack) {
  std::string data = vexfs::test::RandomBytes(1, 100000);
  WriteLocalFile(Local("f.bin"), data);
  std::string out = VexfsOk({"put", Local("f.bin"), "store/f.bin"});
  EXPECT_EQ(out, "put 1 file(s), 97.7 KiB\n");
  EXPECT_EQ(VexfsOk({"cat", "store/f.bin"}), data);
  EXPECT_EQ(VexfsJson({"stat", "store/f.bin"}).at("size"), data.size());
}

TEST_F(CliPutGetTest, PutDirectoryRecursively) {
  std::string src = MakeLocalTree();
  json totals = VexfsJson({"put", src, "mem"});
  EXPECT_EQ(totals.at("files"), 7);  // 5 files and 2 symlinks
  EXPECT_EQ(totals.at("dirs"), 6);   // mem, nested, a, b, empty-dir, "with space"
  EXPECT_EQ(VexfsOk({"cat", "mem/nested/a/b/deep.txt"}), "deep");
  EXPECT_EQ(VexfsOk({"cat", "mem/empty"}), "");
  EXPECT_EQ(VexfsOk({"cat", "mem/with space/\u00e9 \u00fc.txt"}), "unicode name");
  EXPECT_EQ(VexfsOk({"cat", "mem/blob.bin"}), ReadLocalFile(src + "/blob.bin"));
  EXPECT_EQ(VexfsJson({"stat", "mem/link"}).at("type"), "symlink");
  EXPECT_EQ(VexfsJson({"stat", "mem/nested/empty-dir"}).at("type"), "dir");
  ExpectFsckClean();
}

TEST_F(CliPutGetTest, PutDirectoryIntoRoot) {
  std::string src = MakeLocalTree();
  VexfsOk({"put", src, "/"});
  EXPECT_EQ(VexfsOk({"cat", "notes.md"}), "# notes\nremember this\n");
  EXPECT_EQ(VexfsOk({"ls", "nested"}), "a/\nempty-dir/\n");
}

TEST_F(CliPutGetTest, PutIntoExistingDirectoryOrTrailingSlash) {
  WriteLocalFile(Local("report.txt"), "r");
  VexfsOk({"mkdir", "docs"});
  VexfsOk({"put", Local("report.txt"), "docs"});
  VexfsOk({"put", Local("report.txt"), "new-dir/"});  // created on the way
  VexfsOk({"put", Local("report.txt"), "/abs/"});
  EXPECT_EQ(VexfsOk({"cat", "docs/report.txt"}), "r");
  EXPECT_EQ(VexfsOk({"cat", "new-dir/report.txt"}), "r");
  EXPECT_EQ(VexfsOk({"cat", "abs/report.txt"}), "r");
}

TEST_F(CliPutGetTest, PutReplacesExistingFile) {
  PutText("f.txt", "a much longer first version");
  PutText("f.txt", "short");
  EXPECT_EQ(VexfsOk({"cat", "f.txt"}), "short");
}

TEST_F(CliPutGetTest, PutFromStdin) {
  std::string data = vexfs::test::RandomBytes(3, 200000);
  std::string out = VexfsOk({"put", "-", "in/stdin.bin"}, data);
  EXPECT_NE(out.find("put 1 file(s)"), std::string::npos) << out;
  EXPECT_EQ(VexfsOk({"cat", "in/stdin.bin"}), data);
  VexfsOk({"put", "-", "empty.txt"});  // empty stdin: an empty file
  EXPECT_EQ(VexfsJson({"stat", "empty.txt"}).at("size"), 0);
}

TEST_F(CliPutGetTest, GetFileToStdoutAndToLocalPath) {
  std::string data = vexfs::test::RandomBytes(9, 150000);
  PutText("f.bin", data);
  EXPECT_EQ(VexfsOk({"get", "f.bin"}), data);
  EXPECT_EQ(VexfsOk({"get", "f.bin", "-"}), data);
  EXPECT_EQ(VexfsOk({"get", "f.bin", Local("out.bin")}), "");
  EXPECT_EQ(ReadLocalFile(Local("out.bin")), data);
}

TEST_F(CliPutGetTest, GetKeepsPermissionBitsAndLandsInsideADirectory) {
  std::string src = Local("modes");
  fs::create_directories(src + "/shared");
  WriteLocalFile(src + "/run.sh", "#!/bin/sh\necho hi\n");
  ASSERT_EQ(::chmod((src + "/run.sh").c_str(), 0755), 0);
  ASSERT_EQ(::chmod((src + "/shared").c_str(), 01777), 0);
  VexfsOk({"put", src, "m"});
  std::string listing = VexfsOk({"ls", "-l", "m"});
  EXPECT_NE(listing.find("-rwxr-xr-x"), std::string::npos) << listing;
  EXPECT_NE(listing.find("drwxrwxrwt"), std::string::npos) << listing;
  VexfsOk({"get", "m", Local("back")});
  struct stat st {};
  ASSERT_EQ(::stat(Local("back/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat(Local("back/shared").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  // A file given an existing directory, or a path ending in '/', goes inside.
  fs::create_directories(Local("into"));
  VexfsOk({"get", "m/run.sh", Local("into")});
  EXPECT_EQ(ReadLocalFile(Local("into/run.sh")), "#!/bin/sh\necho hi\n");
  ASSERT_EQ(::stat(Local("into/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  fs::remove(Local("into/run.sh"));
  VexfsOk({"get", "m/run.sh", Local("into") + "/"});
  EXPECT_TRUE(fs::exists(Local("into/run.sh")));
  EXPECT_TRUE(FailedWith(Vexfs({"get", "m/run.sh", Local("missing") + "/"}), 3,
                         {"missing", "does not exist"}));
  EXPECT_TRUE(FailedWith(Vexfs({"get", "m/run.sh", Local("nodir/x")}), 3,
                         {"nodir/x", "No such file or directory"}));
}

TEST_F(CliPutGetTest, GetKeepsSetuidOnlyOnWhatTheCallerOwnsAndCanBeRepeated) {
  WriteLocalFile(Local("tool"), "#!/bin/sh\n");
  ASSERT_EQ(::chmod(Local("tool").c_str(), 06755), 0);
  VexfsOk({"put", Local("tool"), "mine"});
  VexfsOk({"put", Local("tool"), "theirs"});
  EXPECT_EQ(VexfsOk({"ls", "-l", "mine"}).substr(0, 10), "-rwsr-sr-x");
  {
    // Another user's file, as a mount's chown would leave it.
    auto opened = Store::Open(store());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto tree = (*opened)->Tree();
    ASSERT_TRUE(tree.ok());
    Status st = (*tree)->Edit([](TreeEditor& ed) -> Status {
      VEXFS_ASSIGN_OR_RETURN(uint64_t ino, ed.ResolvePath("theirs"));
      TreeEditor::AttrChange owner, mode;
      owner.uid = owner.gid = 4321;
      mode.mode = 06755;
      VEXFS_RETURN_IF_ERROR(ed.SetAttr(ino, owner).status());
      return ed.SetAttr(ino, mode).status();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_EQ(VexfsJson({"stat", "theirs"}).at("mode"), 06755);
  VexfsOk({"get", "mine", Local("mine.out")});
  VexfsOk({"get", "theirs", Local("theirs.out")});
  struct stat st {};
  ASSERT_EQ(::stat(Local("mine.out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, ::geteuid() == 0 && ::getegid() == 0 ? 06755u : 0755u);
  ASSERT_EQ(::stat(Local("theirs.out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u) << "a setuid file of another owner, made the caller's";
  // A read-only copy is replaced by the next get, not refused.
  VexfsOk({"put", "-", "ro.txt"}, "v1");
  VexfsOk({"mkdir", "x"});
  VexfsOk({"get", "ro.txt", Local("ro.txt")});
  ASSERT_EQ(::chmod(Local("ro.txt").c_str(), 0444), 0);
  VexfsOk({"put", "-", "ro.txt"}, "v2");
  VexfsOk({"get", "ro.txt", Local("ro.txt")});
  EXPECT_EQ(ReadLocalFile(Local("ro.txt")), "v2");
  // A local directory that was there keeps its mode; a put to the root keeps the root's.
  fs::create_directories(Local("kept"));
  ASSERT_EQ(::chmod(Local("kept").c_str(), 0700), 0);
  VexfsOk({"get", "x", Local("kept")});
  ASSERT_EQ(::stat(Local("kept").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  fs::create_directories(Local("private"));
  ASSERT_EQ(::chmod(Local("private").c_str(), 0700), 0);
  VexfsOk({"put", Local("private"), "/"});
  EXPECT_EQ(VexfsJson({"stat", "/"}).at("mode"), 0755);
  EXPECT_TRUE(FailedWith(Vexfs({"get", "mine", Local("mine.out") + "/"}), 4,
                         {"is not a directory"}));
}

TEST_F(CliPutGetTest, SymlinksShowTheirTargetAndAreNotPrintedAsContent) {
  PutText("target.txt", "real");
  fs::create_symlink("target.txt", Local("lnk"));
  VexfsOk({"put", Local("lnk"), "lnk"});
  EXPECT_TRUE(FailedWith(Vexfs({"cat", "lnk"}), 4, {"symlink to 'target.txt'"}));
  EXPECT_TRUE(FailedWith(Vexfs({"get", "lnk"}), 4, {"symlink", "give a local path"}));
  VexfsOk({"get", "lnk", Local("copied-link")});
  EXPECT_EQ(fs::read_symlink(Local("copied-link")), "target.txt");
  EXPECT_NE(VexfsOk({"ls", "-l"}).find("lnk -> target.txt"), std::string::npos);
  EXPECT_EQ(VexfsJson({"stat", "lnk"}).at("target"), "target.txt");
  EXPECT_EQ(VexfsJson({"ls"}).at(0).at("target"), "target.txt");
  EXPECT_NE(VexfsOk({"stat", "lnk"}).find("target: target.txt\n"), std::string::npos);
}

TEST_F(CliPutGetTest, CatAndGetToStdoutGiveJsonWhenAsked) {
  PutText("notes.md", "caf\u00e9\n");
  json text = VexfsJson({"cat", "notes.md"});
  EXPECT_EQ(text, (json{{"path", "notes.md"}, {"size", 6}, {"encoding", "utf8"},
                        {"content", "caf\u00e9\n"}}));
  VexfsOk({"put", "-", "bin"}, std::string("\xff\x00\x01", 3));
  json bytes = VexfsJson({"get", "bin", "-"});
  EXPECT_EQ(bytes.at("encoding"), "base64");
  EXPECT_EQ(bytes.at("content"), "/wAB");
  json copied = VexfsJson({"get", "notes.md", Local("n.md")});
  EXPECT_EQ(copied.at("files"), 1);
  EXPECT_EQ(ReadLocalFile(Local("n.md")), "caf\u00e9\n");
}

TEST_F(CliPutGetTest, DirectoryRoundTripsByteForByte) {
  std::string src = MakeLocalTree();
  VexfsOk({"put", src, "mem"});
  VexfsOk({"get", "mem", Local("copy")});
  EXPECT_EQ(DumpLocal(Local("copy")), DumpLocal(src));
}

TEST_F(CliPutGetTest, GetFromSnapshot) {
  PutText("d/f.txt", "old");
  VexfsOk({"snapshot", "create", "s1"});
  PutText("d/f.txt", "new");
  VexfsOk({"get", "--at", "s1", "d", Local("old")});
  EXPECT_EQ(ReadLocalFile(Local("old") + "/f.txt"), "old");
  EXPECT_EQ(VexfsOk({"get", "--at", "s1", "d/f.txt"}), "old");
}

TEST_F(CliPutGetTest, SpecialFilesTravelAsNodes) {
  std::string src = Local("special");
  fs::create_directories(src);
  WriteLocalFile(src + "/a.txt", "a");
  ASSERT_EQ(::mkfifo((src + "/pipe").c_str(), 0640), 0);
  bool root = ::geteuid() == 0;
  const dev_t tty = ::makedev(136, 3);
  if (root) {
    ASSERT_EQ(::mknod((src + "/tty").c_str(), S_IFCHR | 0620, tty), 0);
  }
  json totals = VexfsJson({"put", src, "sp"});
  EXPECT_EQ(totals.at("files"), root ? 3 : 2);
  json pipe = VexfsJson({"stat", "sp/pipe"});
  EXPECT_EQ(pipe.at("type"), "fifo");
  EXPECT_EQ(pipe.at("mode"), 0640);
  EXPECT_EQ(pipe.at("size"), 0);
  EXPECT_EQ(VexfsOk({"ls", "-l", "sp/pipe"}).substr(0, 10), "prw-r-----");
  // A node has no bytes to print.
  EXPECT_TRUE(FailedWith(Vexfs({"get", "sp/pipe"}), 4 /* invalid */, {"fifo", "local path"}));
  VexfsOk({"get", "sp", Local("back")});
  struct stat st {};
  ASSERT_EQ(::lstat(Local("back/pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(ReadLocalFile(Local("back/a.txt")), "a");
  if (root) {
    EXPECT_EQ(VexfsJson({"stat", "sp/tty"}).at("rdev"), tty);
    ASSERT_EQ(::lstat(Local("back/tty").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(st.st_rdev, tty);
  }
  ExpectFsckClean();
}

}  // namespace
}  // namespace vexfs::cli_test
