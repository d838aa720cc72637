// Fault injection: the fault child runs with fault_shim preloaded, which fails
// the Nth call of one kind of write or sync on the store's files, while it
// opens (or creates) a store and makes numbered puts. For every N up to the
// number of such calls a clean run makes, the child must fail with a clean
// message (no crash, abort or hang), and the store, reopened without the shim,
// must pass fsck and hold every acknowledged put byte for byte, with the one
// unacknowledged put either wholly present or wholly absent. A create that
// failed may leave no store at all, but never a broken one.
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crash/child_process.h"
#include "fault/fault_workload.h"
#include "vexfs/store.h"

#if defined(__SANITIZE_ADDRESS__)
#define VEXFS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VEXFS_UNDER_ASAN 1
#endif
#endif

namespace vexfs::fault {
namespace {

using std::chrono::milliseconds;
using crash::ChildProcess;
namespace fs = std::filesystem;

constexpr int kPuts = 6;
// Bounds the sweep per case; every N is tried when there are no more calls.
constexpr long kMaxRunsPerCase = 24;

struct FaultCase {
  const char* op;
  const char* error;
  bool sticky = false;  // the disk stays broken after the first failure
  bool create = false;  // the child creates the store rather than opening it
};

void PrintTo(const FaultCase& c, std::ostream* os) {
  *os << c.op << " " << c.error << (c.sticky ? " sticky" : "") << (c.create ? " create" : "");
}

std::string CaseName(const ::testing::TestParamInfo<FaultCase>& info) {
  return std::string(info.param.op) + "_" + info.param.error +
         (info.param.sticky ? "_sticky" : "") + (info.param.create ? "_create" : "");
}

// The status code name a failure with errno `error` must surface as.
std::string ExpectedCodeText(const std::string& error) {
  return error == "ENOSPC" ? "no space" : "I/O error";
}

// The shim's report: calls per kind and "injected".
std::map<std::string, long> ReadReport(const std::string& path) {
  std::map<std::string, long> out;
  std::istringstream in(crash::ReadFileOrEmpty(path));
  std::string key;
  long value;
  while (in >> key >> value) out[key] = value;
  return out;
}

int CountAcks(const std::string& out, std::string* problem) {
  std::istringstream in(out);
  std::string word;
  int seq;
  int acked = 0;
  while (in >> word >> seq) {
    if (word != "ack" || seq != acked) *problem = "unexpected output: " + out;
    ++acked;
  }
  return acked;
}

// N = 1..total when that is few enough, else an even spread that keeps 1, 2
// and total (the first write, the first sync, the very last call).
std::vector<long> FailurePoints(long total) {
  std::vector<long> out;
  if (total <= kMaxRunsPerCase) {
    for (long n = 1; n <= total; ++n) out.push_back(n);
    return out;
  }
  out = {1, 2};
  for (long i = 1; i < kMaxRunsPerCase - 2; ++i) {
    out.push_back(2 + i * (total - 2) / (kMaxRunsPerCase - 2));
  }
  out.push_back(total);
  return out;
}

// The environment that preloads the shim into a child working on `store`.
std::map<std::string, std::string> ShimEnvironment(const std::string& store) {
  std::map<std::string, std::string> env = {{"LD_PRELOAD", VEXFS_FAULT_SHIM},
                                            {"VEXFS_FAULT_DIR", store},
                                            {"VEXFS_FAULT_REPORT", store + ".report"}};
#ifdef VEXFS_UNDER_ASAN
  // The shim is not instrumented and comes before the ASan runtime in the
  // library order; its calls still reach ASan's interceptors through RTLD_NEXT.
  const char* asan = std::getenv("ASAN_OPTIONS");
  env["ASAN_OPTIONS"] = std::string(asan ? asan : "") + ":verify_asan_link_order=0";
#endif
  return env;
}

struct ChildRun {
  int status = 0;
  bool timed_out = false;
  int acked = 0;
  std::string ack_problem;
  std::string err;
  std::map<std::string, long> report;
};

class FaultInjectionTest : public ::testing::TestWithParam<FaultCase> {
 protected:
  static void SetUpTestSuite() {
    template_dir_ = new crash::TempDir("vexfs_fault_template_");
    auto store = Store::Create(template_dir_->path() + "/store");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
  }
  static void TearDownTestSuite() {
    delete template_dir_;
    template_dir_ = nullptr;
  }

  // A fresh copy of the freshly created store, without LMDB's lock file, so the
  // child is its first opener every time and each run makes the same calls.
  // When the child creates the store, just a path where none exists yet.
  std::string FreshStore(const std::string& name) {
    fs::path dst = fs::canonical(dir_.path()) / name;
    if (GetParam().create) return dst.string();
    fs::create_directories(dst);
    for (const char* file : {"VEXFS", "data.mdb"}) {
      fs::copy_file(fs::path(template_dir_->path()) / "store" / file, dst / file);
    }
    return fs::canonical(dst).string();
  }

  // Runs the child on `store` with the shim failing call `after` (0: none).
  ChildRun RunChild(const std::string& store, long after) {
    const FaultCase& c = GetParam();
    std::string err = store + ".err";
    ChildProcess::Options options;
    options.argv = {VEXFS_FAULT_CHILD, store, std::to_string(kPuts)};
    if (c.create) options.argv.insert(options.argv.begin() + 1, "--create");
    options.env = ShimEnvironment(store);
    options.env["VEXFS_FAULT_OP"] = c.op;
    options.env["VEXFS_FAULT_AFTER"] = std::to_string(after);
    options.env["VEXFS_FAULT_ERRNO"] = c.error;
    options.env["VEXFS_FAULT_STICKY"] = c.sticky ? "1" : "0";
    options.stderr_path = err;
    ChildProcess child;
    std::string error;
    ChildRun run;
    EXPECT_TRUE(child.Start(options, &error)) << error;
    run.status = child.Wait(milliseconds(60000), &run.timed_out);
    run.acked = CountAcks(child.stdout_text(), &run.ack_problem);
    run.err = crash::ReadFileOrEmpty(err);
    run.report = ReadReport(store + ".report");
    return run;
  }

  crash::TempDir dir_{"vexfs_fault_"};
  static inline crash::TempDir* template_dir_ = nullptr;
};

// Reopens `path` without the shim and checks what `acked` puts promised. With
// `maybe_no_store` (a create that failed), finding no store is fine too.
void ExpectPutsSurvived(const std::string& path, int acked, bool maybe_no_store) {
  auto store = Store::Open(path);
  if (maybe_no_store && store.status().IsNotFound()) return;
  ASSERT_TRUE(store.ok()) << "reopen: " << store.status().ToString();
  auto fsck = (*store)->Fsck();
  ASSERT_TRUE(fsck.ok()) << fsck.status().ToString();
  EXPECT_TRUE(fsck->ok()) << "fsck: " << fsck->problems.size() << " problems, first: "
                          << fsck->problems.front();
  auto tree = (*store)->Tree("");
  ASSERT_TRUE(tree.ok());
  for (int i = 0; i < acked; ++i) {
    auto data = (*tree)->ReadAll(FaultPath(i));
    ASSERT_TRUE(data.ok()) << "acked put " << i << " lost: " << data.status().ToString();
    EXPECT_TRUE(*data == FaultData(i)) << "acked put " << i << " has wrong bytes";
  }
  bool in_flight_present = false;
  if (acked < kPuts) {
    auto data = (*tree)->ReadAll(FaultPath(acked));
    in_flight_present = data.ok();
    EXPECT_TRUE(data.ok() ? *data == FaultData(acked) : data.status().IsNotFound())
        << "unacknowledged put " << acked << " is torn: " << data.status().ToString();
  }
  for (int i = acked + 1; i < kPuts; ++i) {
    EXPECT_TRUE((*tree)->Stat(FaultPath(i)).status().IsNotFound()) << "put " << i;
  }
  auto latest = (*tree)->ReadAll(kLatestPath);
  int last = in_flight_present ? acked : acked - 1;
  if (last < 0) {
    EXPECT_TRUE(latest.status().IsNotFound()) << latest.status().ToString();
  } else {
    ASSERT_TRUE(latest.ok()) << latest.status().ToString();
    EXPECT_TRUE(*latest == LatestData(last)) << "'latest' does not belong to put " << last;
  }
  // The store stays usable after the failure.
  Status put = (*tree)->Edit([](TreeEditor& ed) {
    return ed.PutFile("after-fault", "still writable", {}).status();
  });
  EXPECT_TRUE(put.ok()) << put.ToString();
}

TEST_P(FaultInjectionTest, ChildFailsCleanlyAndAckedPutsSurvive) {
  const FaultCase& c = GetParam();
  ChildRun clean = RunChild(FreshStore("calibrate"), 0);
  ASSERT_TRUE(WIFEXITED(clean.status) && WEXITSTATUS(clean.status) == 0)
      << "a run without faults failed: " << crash::DescribeWaitStatus(clean.status) << "\n"
      << clean.err;
  ASSERT_EQ(clean.acked, kPuts);
  ASSERT_TRUE(clean.report.count("injected")) << "the shim was not loaded";
  long total = clean.report[c.op];
  if (total == 0) {
    GTEST_SKIP() << "LMDB makes no " << c.op << " calls on store files in this setup, "
                 << "so there is nothing to fail";
  }
  std::vector<long> points = FailurePoints(total);
  std::cout << c.op << ": " << total << " calls in a clean run; failing each of "
            << points.size() << " of them in turn\n";
  for (long n : points) {
    SCOPED_TRACE(std::string(c.op) + " call " + std::to_string(n) + " of " +
                 std::to_string(total) + " fails with " + c.error);
    std::string store = FreshStore("run" + std::to_string(n));
    ChildRun run = RunChild(store, n);
    ASSERT_FALSE(run.timed_out) << "the child hung";
    ASSERT_TRUE(WIFEXITED(run.status))
        << "the child crashed: " << crash::DescribeWaitStatus(run.status) << "\n" << run.err;
    EXPECT_EQ(run.report["injected"] > 0, true) << "the fault was never injected";
    EXPECT_EQ(WEXITSTATUS(run.status), 1)
        << "an injected failure did not surface as an error\n" << run.err;
    EXPECT_NE(run.err.find(ExpectedCodeText(c.error)), std::string::npos)
        << "expected a '" << ExpectedCodeText(c.error) << "' message, got: " << run.err;
    // Exactly the child's own one-line message: a sanitizer report also exits 1.
    EXPECT_TRUE(run.err.rfind("vexfs_fault_child: ", 0) == 0 &&
                std::count(run.err.begin(), run.err.end(), '\n') == 1)
        << run.err;
    EXPECT_EQ(run.ack_problem, "");
    ExpectPutsSurvived(store, run.acked, c.create && run.acked == 0);
    if (HasFailure()) return;
  }
}

// Every kind and errno, on opening an existing store and on creating one; and
// disks that stay full, for the calls that carry the pages.
std::vector<FaultCase> AllCases() {
  std::vector<FaultCase> out;
  for (const char* op : {"pwrite", "pwritev", "write", "writev", "fdatasync", "fsync",
                         "msync", "ftruncate"}) {
    for (const char* error : {"EIO", "ENOSPC"}) {
      out.push_back({op, error, false, false});
      out.push_back({op, error, false, true});
    }
  }
  out.push_back({"pwrite", "ENOSPC", true, false});
  out.push_back({"writev", "ENOSPC", true, false});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, FaultInjectionTest, ::testing::ValuesIn(AllCases()),
                         CaseName);

// Guards the sweep above against silently testing nothing: the calls LMDB
// commits through (page writes and the data sync) must pass through the shim,
// and failing the first sync must fail the first put.
TEST(FaultShimTest, SeesLmdbCommitWritesAndSyncs) {
  crash::TempDir dir("vexfs_fault_shim_");
  std::string store = dir.path() + "/store";
  ASSERT_TRUE(Store::Create(store).ok());
  store = fs::canonical(store).string();
  auto run = [&](const std::string& fail_op) {
    ChildProcess::Options options;
    options.argv = {VEXFS_FAULT_CHILD, store, "3"};
    options.env = ShimEnvironment(store);
    options.env["VEXFS_FAULT_OP"] = fail_op;
    options.env["VEXFS_FAULT_AFTER"] = "1";
    ChildProcess child;
    std::string error;
    EXPECT_TRUE(child.Start(options, &error)) << error;
    int status = child.Wait(milliseconds(60000));
    return std::make_pair(status, child.stdout_text());
  };
  auto [status, out] = run("none");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << crash::DescribeWaitStatus(status);
  auto report = ReadReport(store + ".report");
  EXPECT_GE(report["pwrite"] + report["pwritev"] + report["writev"], 3) << "page writes";
  EXPECT_GE(report["fdatasync"] + report["fsync"], 3) << "commit syncs";
  auto [failed, failed_out] = run("fdatasync");
  EXPECT_TRUE(WIFEXITED(failed) && WEXITSTATUS(failed) == 1) << crash::DescribeWaitStatus(failed);
  EXPECT_EQ(failed_out, "") << "a put was acknowledged although its sync failed";
  EXPECT_EQ(ReadReport(store + ".report")["injected"], 1);
}

}  // namespace
}  // namespace vexfs::fault
