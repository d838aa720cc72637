// Local files in and out of a store (src/front_end_shared/local_put.cc and
// local_get.cc): a tree survives the round trip, and refusals name the path.
#include "vexfs/local_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace vexfs {
namespace {

namespace fs = std::filesystem;

class LocalFilesTest : public test::StoreTest {
 protected:
  std::string Local(const std::string& name) { return dir_.Sub(name); }
};

TEST_F(LocalFilesTest, ATreeGoesInAndComesBackTheSame) {
  const std::string src = Local("src");
  fs::create_directories(src + "/sub/deeper");
  std::ofstream(src + "/a.txt") << "alpha";
  std::ofstream(src + "/sub/deeper/b.bin") << std::string(100000, 'b');
  ASSERT_EQ(::symlink("../a.txt", (src + "/sub/link").c_str()), 0);
  ASSERT_EQ(::mkfifo((src + "/pipe").c_str(), 0640), 0);
  ASSERT_EQ(::chmod((src + "/a.txt").c_str(), 0600), 0);

  ASSIGN_OR_FAIL(PutReport put, PutLocalPath(store(), src, "imported"));
  EXPECT_EQ(put.files, 4u);  // two files, a link, a FIFO
  EXPECT_EQ(put.bytes, 100005u);
  EXPECT_EQ(Content("imported/a.txt"), "alpha");

  const std::string back = Local("back");
  ASSIGN_OR_FAIL(auto view, store().Tree());
  ASSIGN_OR_FAIL(uint64_t copied, GetToLocalPath(*view, "imported", back));
  EXPECT_GT(copied, 0u);
  std::ifstream in(back + "/sub/deeper/b.bin");
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), std::string(100000, 'b'));
  EXPECT_EQ(fs::read_symlink(back + "/sub/link"), "../a.txt");
  EXPECT_TRUE(fs::is_fifo(back + "/pipe"));
  struct stat st {};
  ASSERT_EQ(::stat((back + "/a.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << "permission bits travel both ways";
}

TEST_F(LocalFilesTest, MissingSourcesAndNonFilesAreRefusedByName) {
  auto missing = PutLocalPath(store(), Local("nothing-here"), "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nothing-here"), std::string::npos);

  ASSERT_OK(PutBytes(store(), "d/file.txt", "bytes").status());
  ASSIGN_OR_FAIL(auto view, store().Tree());
  ASSIGN_OR_FAIL(Attributes dir, view->Stat("d"));
  EXPECT_CODE(RequireRegularFile(*view, "d", dir), StatusCode::kIsDirectory);
  std::ostringstream out;
  EXPECT_CODE(CopyFileTo(*view, "d", out), StatusCode::kIsDirectory);
  ASSERT_OK(CopyFileTo(*view, "d/file.txt", out));
  EXPECT_EQ(out.str(), "bytes");
}

TEST_F(LocalFilesTest, LocalFilesAreReplacedAtomically) {
  const std::string path = Local("state.json");
  ASSERT_OK(WriteLocalFileAtomically(path, "one"));
  ASSERT_OK(WriteLocalFileAtomically(path, "two"));
  ASSIGN_OR_FAIL(std::string read, ReadLocalFile(path));
  EXPECT_EQ(read, "two");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_CODE(ReadLocalFile(Local("absent")).status(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vexfs
