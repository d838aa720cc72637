// A gtest fixture for end-to-end tests of the `vexfs` binary: a fresh temporary
// directory with a store in it, runners that pass `--store`, JSON parsing, local
// file helpers, and the checks every failing command must pass (one "vexfs: "
// line on stderr, a documented exit code, nothing on stdout, the store unchanged).
#ifndef VEXFS_TESTS_CLI_CLI_TEST_UTIL_H_
#define VEXFS_TESTS_CLI_CLI_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "cli/process_runner.h"
#include "cli/store_state.h"
#include "test_util.h"

namespace vexfs::cli_test {

using Args = std::vector<std::string>;
using nlohmann::json;

// The built binary, from $VEXFS_BIN.
const std::string& VexfsBinary();

// Reads or writes a whole local file; a missing file reads as "".
std::string ReadLocalFile(const std::string& path);
void WriteLocalFile(const std::string& path, const std::string& data);

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override;

  // Runs `vexfs --store <store> args...`.
  ProcessResult Vexfs(const Args& args, const std::string& stdin_data = "");
  // Runs `vexfs args...` with `options` and no implied --store.
  ProcessResult VexfsRaw(const Args& args, const ProcessOptions& options = {});
  // Runs the command, expects exit 0 and an empty stderr, returns stdout.
  std::string VexfsOk(const Args& args, const std::string& stdin_data = "");
  // Runs the command with `--json` after it, expects success and one JSON value.
  json VexfsJson(const Args& args);

  // A tiny random-weight model made through `kv model-init`, shared by the
  // tests of this build (VEXFS_KV_TEST_MODEL_DIR).
  std::string TinyModel(int seed);

  // Stores `data` at store path `path` through `vexfs put - path`.
  void PutText(const std::string& path, const std::string& data);

  // The store's whole state (store_state.h); a store that cannot be read fails
  // the test.
  StoreState CaptureState();
  // Fsck finds no problems in the store.
  void ExpectFsckClean();

  // `path` under this test's temporary directory (not created).
  std::string Local(const std::string& name) const { return tmp_.Sub(name); }
  const std::string& store() const { return store_; }
  // Points the runners at another store (e.g. a read-only mount of this one).
  void set_store(const std::string& store) { store_ = store; }

 private:
  vexfs::test::TempDir tmp_;
  std::string store_;
};

// The command failed as documented: exit `code`, nothing on stdout, exactly one
// stderr line "vexfs: ..." containing every string in `needles`.
::testing::AssertionResult FailedWith(const ProcessResult& r, int code,
                                      std::initializer_list<std::string> needles = {});

// A fixture whose store is initialised in SetUp().
class CliStoreTest : public CliTest {
 protected:
  void SetUp() override;
};

// Runs `expr` (a failing vexfs command) and checks that it failed as documented
// and left the store exactly as it was, with fsck still clean.
#define EXPECT_FAILS_UNCHANGED(expr, code, ...)            \
  do {                                                    \
    ::vexfs::cli_test::StoreState before_ = CaptureState(); \
    ProcessResult r_ = (expr);                            \
    EXPECT_TRUE(FailedWith(r_, code, {__VA_ARGS__}));     \
    EXPECT_EQ(before_, CaptureState());                   \
    ExpectFsckClean();                                    \
  } while (0)

}  // namespace vexfs::cli_test

#endif  // VEXFS_TESTS_CLI_CLI_TEST_UTIL_H_
