// `vexfs` when the store cannot do what is asked: a full store, a store on a
// read-only mount, and a flipped byte in the LMDB file.
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"

namespace vexfs::cli_test {
namespace {

constexpr int kCorrupt = 6;
constexpr int kNoSpace = 7;
constexpr int kReadOnly = 8;

// `source` bind-mounted read-only at `target` for the object's lifetime. Root
// ignores file modes, so only a read-only mount really stops writes.
class ReadOnlyMount {
 public:
  // False, with `error` set, if mounting is not permitted here.
  bool Mount(const std::string& source, const std::string& target, std::string* error) {
    std::filesystem::create_directories(target);
    if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      *error = std::string("bind mount: ") + std::strerror(errno);
      return false;
    }
    target_ = target;
    // A bind mount takes its read-only flag only from a remount.
    if (::mount(nullptr, target.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) !=
        0) {
      *error = std::string("remount read-only: ") + std::strerror(errno);
      return false;
    }
    return true;
  }
  ~ReadOnlyMount() {
    if (!target_.empty()) ::umount2(target_.c_str(), MNT_DETACH);
  }

 private:
  std::string target_;
};

TEST_F(CliTest, FullStoreFailsCleanlyAndKeepsEarlierData) {
  std::string small = store();
  VexfsOk({"init", "--map-size", "1M"});
  std::string early = vexfs::test::RandomBytes(11, 100000);
  PutText("early.bin", early);
  VexfsOk({"snapshot", "create", "s1"});

  WriteLocalFile(Local("big.bin"), vexfs::test::RandomBytes(12, 2 << 20));
  EXPECT_FAILS_UNCHANGED(Vexfs({"put", Local("big.bin"), "big.bin"}), kNoSpace, "full",
                         small, "big.bin");
  EXPECT_EQ(VexfsOk({"cat", "early.bin"}), early);
  EXPECT_EQ(VexfsOk({"cat", "--at", "s1", "early.bin"}), early);
  // A failed write leaves the store usable for what does fit.
  PutText("after.txt", "still works");
  EXPECT_EQ(VexfsOk({"cat", "after.txt"}), "still works");
  ExpectFsckClean();
}

TEST_F(CliStoreTest, ReadOnlyMountAllowsReadsRefusesWrites) {
  PutText("a.txt", "a");
  PutText("dir/b.txt", "b");
  VexfsOk({"snapshot", "create", "s1"});
  PutText("a.txt", "changed");
  StoreState writable = CaptureState();
  std::string diff = VexfsOk({"diff", "s1"});

  ReadOnlyMount mount;
  std::string error;
  std::string ro = Local("ro");
  if (!mount.Mount(store(), ro, &error)) GTEST_SKIP() << "cannot mount here: " << error;
  set_store(ro);

  EXPECT_EQ(CaptureState(), writable);
  EXPECT_EQ(VexfsOk({"cat", "a.txt"}), "changed");
  EXPECT_EQ(VexfsOk({"cat", "--at", "s1", "a.txt"}), "a");
  EXPECT_EQ(VexfsOk({"diff", "s1"}), diff);
  EXPECT_EQ(VexfsJson({"log"}).size(), 1u);
  EXPECT_EQ(VexfsJson({"info"}).at("branch"), "main");
  EXPECT_EQ(VexfsJson({"stat", "dir/b.txt"}).at("size"), 1);
  ExpectFsckClean();

  const std::vector<std::pair<Args, std::string>> writes = {
      {{"put", "-", "new.txt"}, "data"}, {{"mkdir", "d2"}, ""},
      {{"rm", "a.txt"}, ""},             {{"mv", "a.txt", "b.txt"}, ""},
      {{"snapshot", "create", "s2"}, ""}, {{"snapshot", "delete", "s1"}, ""},
      {{"tag", "t", "s1"}, ""},          {{"restore", "s1"}, ""},
      {{"branch", "b"}, ""},             {{"checkout", "main"}, ""},
      {{"gc"}, ""}};
  for (const auto& [args, input] : writes) {
    EXPECT_FAILS_UNCHANGED(Vexfs(args, input), kReadOnly, "read-only", ro);
  }
}

// Offsets of every occurrence of `needle` in `haystack`.
std::vector<size_t> FindAll(const std::string& haystack, const std::string& needle) {
  std::vector<size_t> at;
  for (size_t i = haystack.find(needle); i != std::string::npos;
       i = haystack.find(needle, i + 1)) {
    at.push_back(i);
  }
  return at;
}

void FlipByteAt(const std::string& path, size_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x20));
  ASSERT_TRUE(f.good()) << "cannot flip a byte of " << path;
}

TEST_F(CliStoreTest, FlippedByteIsReportedNeverReturned) {
  // Random bytes do not compress, so the marker lands verbatim in data.mdb.
  const std::string marker = "<<vexfs-cli-corruption-marker-7f3a9c>>";
  std::string data = vexfs::test::RandomBytes(21, 40000) + marker +
                     vexfs::test::RandomBytes(22, 40000);
  WriteLocalFile(Local("victim.bin"), data);
  VexfsOk({"put", Local("victim.bin"), "victim.bin"});
  PutText("healthy.txt", "fine");

  std::string db = store() + "/data.mdb";
  std::vector<size_t> at = FindAll(ReadLocalFile(db), marker);
  ASSERT_EQ(at.size(), 1u) << "the marker should be stored exactly once";
  FlipByteAt(db, at[0] + marker.size() / 2);

  EXPECT_TRUE(FailedWith(Vexfs({"cat", "victim.bin"}), kCorrupt, {"corrupt", store()}));
  EXPECT_TRUE(FailedWith(Vexfs({"get", "victim.bin", Local("copy.bin")}), kCorrupt,
                         {"corrupt"}));
  EXPECT_FALSE(std::filesystem::exists(Local("copy.bin"))) << "a partial copy was left";
  EXPECT_EQ(VexfsOk({"cat", "healthy.txt"}), "fine");

  ProcessResult fsck = Vexfs({"fsck"});
  EXPECT_EQ(fsck.exit_code, kCorrupt) << fsck;
  EXPECT_NE(fsck.out.find("problem: "), std::string::npos) << fsck;
  ProcessResult fsck_json = Vexfs({"fsck", "--json"});
  EXPECT_EQ(fsck_json.exit_code, kCorrupt) << fsck_json;
  json report = json::parse(fsck_json.out);
  EXPECT_EQ(report.at("ok"), false);
  EXPECT_FALSE(report.at("problems").empty());
}

}  // namespace
}  // namespace vexfs::cli_test
