// Replaying what a fuzzer saved: every regular file of a regressions directory
// but its README, through the fuzz body's check, each failure a test failure
// naming the file. Shared by the *_fuzz_regression_test files.
#ifndef VEXFS_TESTS_FUZZ_SAVED_INPUTS_H_
#define VEXFS_TESTS_FUZZ_SAVED_INPUTS_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

namespace vexfs::fuzz {

// Runs `check` (which returns "" when every promise holds, else what broke) on
// each saved input of `dir`; returns how many there were and records that as the
// test's "replayed" property. A directory that cannot be read fails the test.
inline int ReplaySavedInputs(const std::string& dir,
                             const std::function<std::string(const std::string&)>& check) {
  int replayed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(check(bytes), "") << entry.path();
    ++replayed;
  }
  EXPECT_FALSE(ec) << dir << ": " << ec.message();
  ::testing::Test::RecordProperty("replayed", replayed);
  return replayed;
}

}  // namespace vexfs::fuzz

#endif  // VEXFS_TESTS_FUZZ_SAVED_INPUTS_H_
