// Fixture and checks for end-to-end CLI tests (see cli_test_util.h).
#include "cli/cli_test_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace vexfs::cli_test {

const std::string& VexfsBinary() {
  static const std::string path = [] {
    const char* env = std::getenv("VEXFS_BIN");
    return std::string(env != nullptr ? env : "");
  }();
  return path;
}

std::string ReadLocalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteLocalFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

void CliTest::SetUp() {
  ASSERT_FALSE(VexfsBinary().empty()) << "VEXFS_BIN is not set";
  store_ = tmp_.Sub("store");
}

ProcessResult CliTest::VexfsRaw(const Args& args, const ProcessOptions& options) {
  Args argv{VexfsBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions opts = options;
  // Tests choose their store explicitly; an inherited one must not leak in.
  if (opts.env.count("VEXFS_STORE") == 0) opts.unset_env.push_back("VEXFS_STORE");
  return RunProcess(argv, opts);
}

ProcessResult CliTest::Vexfs(const Args& args, const std::string& stdin_data) {
  Args full{"--store", store_};
  full.insert(full.end(), args.begin(), args.end());
  ProcessOptions options;
  options.stdin_data = stdin_data;
  return VexfsRaw(full, options);
}

std::string CliTest::VexfsOk(const Args& args, const std::string& stdin_data) {
  ProcessResult r = Vexfs(args, stdin_data);
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "") << r;
  return r.out;
}

json CliTest::VexfsJson(const Args& args) {
  Args with_json = args;
  with_json.push_back("--json");
  ProcessResult r = Vexfs(with_json);
  EXPECT_EQ(r.exit_code, 0) << r;
  json value = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(value.is_discarded()) << "not JSON: " << r;
  return value;
}

std::string CliTest::TinyModel(int seed) {
  const std::string dir = VEXFS_KV_TEST_MODEL_DIR;
  ::mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/cli-tiny-seed" + std::to_string(seed) + ".gguf";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const std::string tmp = path + "." + std::to_string(::getpid());
    VexfsOk({"kv", "model-init", "--shape", "tiny", "--seed", std::to_string(seed), "--stdev", "0.2", "-o", tmp});
    ::rename(tmp.c_str(), path.c_str());
  }
  return path;
}

void CliTest::PutText(const std::string& path, const std::string& data) {
  VexfsOk({"put", "-", path}, data);
}

StoreState CliTest::CaptureState() {
  StoreState state = ReadStoreState(store_);
  EXPECT_EQ(state.error, "") << "cannot read the store " << store_;
  return state;
}

void CliTest::ExpectFsckClean() {
  EXPECT_EQ(FsckProblems(store_), std::vector<std::string>{}) << "in the store " << store_;
}

::testing::AssertionResult FailedWith(const ProcessResult& r, int code,
                                      std::initializer_list<std::string> needles) {
  auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure() << why << "\n" << r;
  };
  if (r.exit_code != code) return fail("expected exit code " + std::to_string(code));
  if (!r.out.empty()) return fail("expected nothing on stdout");
  if (r.err.rfind("vexfs: ", 0) != 0) return fail("stderr does not start with 'vexfs: '");
  if (r.err.empty() || r.err.back() != '\n' || r.err.find('\n') != r.err.size() - 1) {
    return fail("expected exactly one line on stderr");
  }
  for (const std::string& n : needles) {
    if (r.err.find(n) == std::string::npos) return fail("stderr does not mention '" + n + "'");
  }
  return ::testing::AssertionSuccess();
}

void CliStoreTest::SetUp() {
  CliTest::SetUp();
  if (HasFatalFailure()) return;
  VexfsOk({"init"});
}

}  // namespace vexfs::cli_test
