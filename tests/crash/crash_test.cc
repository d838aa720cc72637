// Crash tests: a writer process is SIGKILLed at random moments, again and again,
// on one store. After every kill the store must reopen, pass fsck, and hold
// exactly the state after the last acknowledged operation, or after the one
// operation that was in flight. Also: reader slots left by killed processes
// must not break the next open.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "crash/child_process.h"
#include "crash/workload.h"
#include "store/store_impl.h"
#include "vexfs/store.h"

namespace vexfs::crash {
namespace {

using std::chrono::milliseconds;

// About 70 s on two cores (about 100 s under ASan); VEXFS_CRASH_ITERATIONS
// scales it, VEXFS_CRASH_SEED picks another stream.
constexpr int kDefaultIterations = 200;
constexpr uint64_t kDefaultSeed = 20240611;
constexpr uint64_t kMapSize = uint64_t{4} << 30;

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// Kills land while the writer starts and opens the store, as well as mid-stream.
milliseconds KillDelay(Rng& rng) {
  if (rng.Percent(25)) return milliseconds(rng.Range(1, 20));
  return milliseconds(rng.Range(20, 300));
}

struct Ack {
  uint64_t seq = 0;
  std::string text;
};

// Complete "ack" lines only: a line cut short by the kill was not acknowledged.
std::vector<Ack> ParseAcks(const std::string& out) {
  std::vector<Ack> acks;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::istringstream line(out.substr(start, nl - start));
    std::string word;
    Ack ack;
    line >> word >> ack.seq;
    std::getline(line >> std::ws, ack.text);
    if (word == "ack") acks.push_back(ack);
  }
  return acks;
}

class CrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty()) << "cannot create a temporary directory";
    store_path_ = dir_.path() + "/store";
    StoreOptions options;
    options.map_size = kMapSize;
    auto store = Store::Create(store_path_, options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store->reset();
    StartHolder();
  }

  void TearDown() override {
    holder_.CloseStdin();
    holder_.Wait(milliseconds(10000));
    if (HasFailure()) {
      dir_.Keep();
      std::cerr << "store kept for inspection: " << store_path_ << "\n";
    }
  }

  // A process that keeps the store open for the whole test, so LMDB keeps its
  // lock table between writers: the slots and the writer mutex that killed
  // writers leave behind must be recovered, not wiped by a fresh lock file.
  void StartHolder() {
    std::string error;
    ASSERT_TRUE(holder_.Start({.argv = {VEXFS_CRASH_WRITER, "--hold", store_path_},
                               .pipe_stdin = true,
                               .stderr_path = dir_.path() + "/holder.err"},
                              &error))
        << error;
    ASSERT_TRUE(holder_.WaitForLine("ready", milliseconds(30000)))
        << "holder did not open the store: "
        << ReadFileOrEmpty(dir_.path() + "/holder.err");
  }

  // Runs the writer from `next_seq`, kills it after `delay`, and returns what it
  // printed. Fails the test unless SIGKILL is what ended it.
  std::string RunWriterAndKill(uint64_t seed, uint64_t next_seq, milliseconds delay) {
    ChildProcess writer;
    std::string error;
    std::string err_path = dir_.path() + "/writer.err";
    bool started = writer.Start({.argv = {VEXFS_CRASH_WRITER, store_path_,
                                          std::to_string(seed), std::to_string(next_seq)},
                                 .stderr_path = err_path},
                                &error);
    EXPECT_TRUE(started) << error;
    writer.ReadUntil(std::chrono::steady_clock::now() + delay);
    writer.Kill(SIGKILL);
    int status = writer.Wait(milliseconds(10000));
    std::string err = ReadFileOrEmpty(err_path);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the writer ended by itself: " << DescribeWaitStatus(status) << "\n"
        << err;
    // A writer that is dying anyway (a sanitizer report, say) may still be
    // killed by us; its stderr gives it away.
    EXPECT_EQ(err, "") << "the writer complained before it was killed";
    return writer.stdout_text();
  }

  TempDir dir_{"vexfs_crash_"};
  std::string store_path_;
  ChildProcess holder_;
};

// Opens the store as a fresh process would, checks fsck, and reads it whole.
Result<Model> ReopenCheckAndLoad(const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(auto store, Store::Open(path));
  VEXFS_ASSIGN_OR_RETURN(FsckReport report, store->Fsck());
  if (!report.ok()) {
    std::string text = "fsck found " + std::to_string(report.problems.size()) + " problems:";
    for (const std::string& p : report.problems) text += "\n  " + p;
    return Status::Corruption(text);
  }
  return Model::Load(store.get(), /*with_content=*/true);
}

// The test's side of the stream.
struct Progress {
  Model model{/*with_content=*/true};  // the store after `committed` operations
  uint64_t committed = 0;
  int in_flight_committed = 0;  // kills that fell between a commit and its ack
};

// Sets `acked` to the model after the acks in `out`, which must be the stream's
// next operations, and `next` to the number of the operation left in flight.
void ReplayAcks(uint64_t seed, const std::string& out, const Progress& p, Model* acked,
                uint64_t* next) {
  *acked = p.model;
  *next = p.committed;
  for (const Ack& ack : ParseAcks(out)) {
    ASSERT_EQ(ack.seq, *next) << "acks out of order";
    Op op = acked->Generate(seed, *next);
    ASSERT_EQ(ack.text, op.Describe()) << "writer and test disagree on op " << *next;
    acked->Apply(seed, op);
    ++*next;
  }
}

// Moves `p` to the state the store at `path` is in, which must be `acked`, or
// `acked` followed by operation `next`, and nothing else.
void AdvanceToStore(uint64_t seed, const std::string& path, Model acked, uint64_t next,
                    Progress* p) {
  auto got = ReopenCheckAndLoad(path);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::string vs_acked = Compare(acked, *got);
  if (vs_acked.empty()) {
    p->model = std::move(acked);
    p->committed = next;
    return;
  }
  Op in_flight = acked.Generate(seed, next);
  Model plus = std::move(acked);
  plus.Apply(seed, in_flight);
  std::string vs_plus = Compare(plus, *got);
  ASSERT_TRUE(vs_plus.empty())
      << "the store matches neither the state after the last acked op " << next - 1
      << " nor after op " << next << " (" << in_flight.Describe() << ") in flight\n"
      << "against the acked state:\n" << vs_acked << "against the in-flight state:\n"
      << vs_plus;
  p->model = std::move(plus);
  p->committed = next + 1;
  p->in_flight_committed++;
}

TEST_F(CrashTest, KilledWriterLeavesExactlyAckedStateOrOneMore) {
  const uint64_t seed = EnvNumber("VEXFS_CRASH_SEED", kDefaultSeed);
  const int iterations =
      static_cast<int>(EnvNumber("VEXFS_CRASH_ITERATIONS", kDefaultIterations));
  Rng delays(seed ^ 0xC0FFEEull);
  Progress p;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", iteration " + std::to_string(i) +
                 ", writer started at op " + std::to_string(p.committed));
    std::string out = RunWriterAndKill(seed, p.committed, KillDelay(delays));
    ASSERT_FALSE(HasFailure());
    Model acked(/*with_content=*/true);
    uint64_t next = 0;
    ASSERT_NO_FATAL_FAILURE(ReplayAcks(seed, out, p, &acked, &next));
    ASSERT_NO_FATAL_FAILURE(AdvanceToStore(seed, store_path_, std::move(acked), next, &p));
  }
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::steady_clock::now() - started);
  std::cout << "crash test: seed " << seed << ", " << iterations << " kills, " << p.committed
            << " operations committed, " << p.in_flight_committed
            << " kills after an unacknowledged commit, " << p.model.snapshots().size()
            << " live snapshots, " << seconds.count() << " s\n";
  // A writer that keeps dying at the same spot would pass every check above.
  EXPECT_GT(p.committed, static_cast<uint64_t>(iterations))
      << "the writer made too little progress";
}

TEST_F(CrashTest, StaleReaderSlotsOfKilledProcessesDoNotBreakOpen) {
  // 1000 slots of a dead process plus 1000 of ours exceed LMDB's 1024 unless the
  // open reclaims the dead ones; the holder keeps LMDB from simply resetting them.
  constexpr int kReaders = 1000;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    ChildProcess readers;
    std::string error;
    std::string err_path = dir_.path() + "/readers.err";
    ASSERT_TRUE(readers.Start({.argv = {VEXFS_CRASH_WRITER, "--hold-readers", store_path_,
                                        std::to_string(kReaders)},
                               .stderr_path = err_path},
                              &error))
        << error;
    ASSERT_TRUE(readers.WaitForLine("ready", milliseconds(30000)))
        << ReadFileOrEmpty(err_path);
    readers.Kill(SIGKILL);
    readers.Wait(milliseconds(10000));

    auto store = Store::Open(store_path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::vector<internal::Txn> txns(kReaders);
    for (auto& txn : txns) {
      Status st = internal::ImplOf(store->get())->BeginTxn(&txn, /*write=*/false);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    txns.clear();
    auto tree = (*store)->Tree("");
    ASSERT_TRUE(tree.ok());
    std::string name = "after-kill-" + std::to_string(round);
    Status put = (*tree)->Edit([&](TreeEditor& ed) {
      return ed.PutFile(name, std::string(100000, 'x'), {}).status();
    });
    ASSERT_TRUE(put.ok()) << put.ToString();
    auto fsck = (*store)->Fsck();
    ASSERT_TRUE(fsck.ok() && fsck->ok());
    auto back = (*tree)->ReadAll(name);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, std::string(100000, 'x'));
  }
}

}  // namespace
}  // namespace vexfs::crash
