// Tests for the exec embedder when its process misbehaves: every wrong answer and
// every way of dying is a kIOError naming the command and the response line, the
// output stays untouched, the process is killed and reaped, and the next batch
// starts a fresh one. Also timeouts, SIGPIPE, process-group kills, the destructor
// and the "exec:" spec.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "exec_embedder_test_util.h"
#include "index/embedders/exec_embedder.h"
#include "index/embedders/factory.h"
#include "test_util.h"

namespace vexfs::index::exec_test {
namespace {

struct WrongAnswer {
  std::string args;                 // fake_embedder's mode
  std::vector<std::string_view> texts;
  std::string fragment;             // expected in the error message
};

TEST_F(ExecEmbedderTest, WrongAnswersAreErrorsNamingTheLine) {
  const std::vector<WrongAnswer> cases = {
      {"wrong-dim 4", {"a"}, "response line 1 of 1: vector has 5 values, not 4"},
      // JSON has no NaN or infinity; a number beyond double range fails to parse.
      {"nan 4", {"a", "b"}, "response line 1 of 2: not valid JSON (number overflow"},
      {"garbage 4", {"a"}, "response line 1 of 1: not valid JSON ("},
      {"garbage 4", {"a"}, "): 'this is not json'"},  // the message shows the line
      {"good 4", {"a", "__string__", "b"}, "response line 2 of 3: value 0 is not a number"},
      {"good 4", {"a", "b", "__novector__"}, "response line 3 of 3: object has no \"vector\""},
      {"good 4", {"a", "__wrongdim__"}, "response line 2 of 2: vector has 5 values, not 4"},
      {"good 4", {"__huge__"}, "value 0 (-1e+39) is not a finite 32-bit float"},
      {"good 4", {"a", "__garbage__"}, "response line 2 of 2: not valid JSON ("},
      {"good 4", {"a", "__long__"}, "response line 2 of 2 is longer than 16777216 bytes"},
  };
  for (const WrongAnswer& c : cases) {
    SCOPED_TRACE(c.args + " " + c.fragment);
    auto embedder = Started(c.args);
    ASSERT_NE(embedder, nullptr);
    ExpectFailure(embedder.get(), c.texts, c.fragment);
  }
}

TEST_F(ExecEmbedderTest, ProcessDyingMidBatchIsReportedWithItsStatus) {
  auto crash_after = Started("crash-after 2");
  ASSERT_NE(crash_after, nullptr);
  ExpectFailure(crash_after.get(), {"a", "b", "c", "d"},
                "embedder process exited (status 3) before response line 3 of 4");
  auto crash = Started("good 4");
  ASSERT_NE(crash, nullptr);
  ExpectFailure(crash.get(), {"a", "__crash__", "c"},
                "embedder process exited (status 3) before response line 2 of 3");
  // (The shell's stderr goes to /dev/null: it would print "Terminated".)
  auto forked = std::make_unique<ExecEmbedder>("exec 2>/dev/null; " + Fake("good 4"));
  ASSERT_OK(forked->Start());
  ExpectFailure(forked.get(), {"a", "__signal__"},  // the shell reports 128 + SIGTERM
                "embedder process exited (status 143) before response line 2 of 2");
  // Only a process the shell execs, rather than forks, shows its own signal.
  auto killed = std::make_unique<ExecEmbedder>("exec " + Fake("good 4"));
  ASSERT_OK(killed->Start());
  ExpectFailure(killed.get(), {"a", "__signal__"},
                "embedder process was killed by signal 15 before response line 2 of 2");
}

TEST_F(ExecEmbedderTest, OutputNobodyAskedForIsAnError) {
  auto embedder = Started("good 4");
  ASSERT_NE(embedder, nullptr);
  ExpectFailure(embedder.get(), {"__extra__"}, "wrote more than 1 response lines");
  // An answer that arrives after the batch would be taken for the next batch's.
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"__late_extra__"}, &out));
  std::this_thread::sleep_for(milliseconds(400));
  ExpectFailure(embedder.get(), {"a"}, "wrote output nobody asked for");
  out.clear();
  ASSERT_OK(embedder->Embed({"a"}, &out));
  EXPECT_EQ(out, Expected("a", 4));
}

// --- Restarts --------------------------------------------------------------------

TEST_F(ExecEmbedderTest, StartsLazilyAndKeepsOneProcessAcrossBatches) {
  test::TempDir dir;
  ExecEmbedder embedder(Fake("--starts " + dir.Sub("starts") + " good 4"));
  EXPECT_TRUE(Starts(dir.Sub("starts")).empty());
  for (int i = 0; i < 5; ++i) {
    std::vector<float> out;
    ASSERT_OK(embedder.Embed({"batch", "of two"}, &out));
    EXPECT_EQ(out.size(), 8u);
  }
  EXPECT_EQ(embedder.info().name, "fake-good");
  EXPECT_EQ(Starts(dir.Sub("starts")).size(), 1u);
}

TEST_F(ExecEmbedderTest, RestartsAfterAnError) {
  test::TempDir dir;
  auto embedder = Started("--starts " + dir.Sub("starts") + " good 4");
  ASSERT_NE(embedder, nullptr);
  ExpectFailure(embedder.get(), {"__garbage__"}, "not valid JSON");
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"abc"}, &out));
  EXPECT_EQ(out, Expected("abc", 4));
  std::vector<pid_t> starts = Starts(dir.Sub("starts"));
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_TRUE(ProcessEnded(starts[0]));
}

TEST_F(ExecEmbedderTest, RestartsWhenTheProcessEndedBetweenBatches) {
  test::TempDir dir;
  auto embedder = Started("--starts " + dir.Sub("starts") + " crash-after 2");
  ASSERT_NE(embedder, nullptr);
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"a", "b"}, &out));
  ASSERT_TRUE(WaitForAChildToExit());
  out.clear();
  ASSERT_OK(embedder->Embed({"xyz"}, &out));
  EXPECT_EQ(out, Expected("xyz", 4));
  EXPECT_EQ(Starts(dir.Sub("starts")).size(), 2u);
}

TEST_F(ExecEmbedderTest, RestartedProcessReportingAnotherModelIsAnError) {
  test::TempDir dir;
  auto embedder = Started("--starts " + dir.Sub("starts") + " fickle");
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->info().name, "fickle-1");
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"a"}, &out));
  ASSERT_TRUE(WaitForAChildToExit());
  ExpectFailure(embedder.get(), {"b"}, "restarted process reports model 'fickle-2'");
  EXPECT_EQ(embedder->info().name, "fickle-1");
}

// --- Timeouts and signals --------------------------------------------------------

TEST_F(ExecEmbedderTest, TimesOutWhenTheProcessStopsAnswering) {
  auto embedder = Started("hang", milliseconds(300));
  ASSERT_NE(embedder, nullptr);
  Clock::time_point start = Clock::now();
  ExpectFailure(embedder.get(), {"a"}, "timed out after 300 ms waiting for response line 1 of 1");
  auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, milliseconds(300));
  EXPECT_LT(elapsed, milliseconds(3000));
}

TEST_F(ExecEmbedderTest, TimesOutWhenTheProcessStopsReading) {
  // 1 MiB of requests: writes block once the pipe is full, and must still time out.
  auto embedder = Started("hang", milliseconds(300));
  ASSERT_NE(embedder, nullptr);
  std::string text(4096, 'x');
  std::vector<std::string_view> texts(256, text);
  Clock::time_point start = Clock::now();
  ExpectFailure(embedder.get(), texts, "timed out after 300 ms");
  EXPECT_LT(Clock::now() - start, milliseconds(3000));
}

TEST_F(ExecEmbedderTest, TimeoutMidBatchThenRestart) {
  auto embedder = Started("good 4", milliseconds(300));
  ASSERT_NE(embedder, nullptr);
  ExpectFailure(embedder.get(), {"a", "__hang__", "b"}, "waiting for response line 2 of 3");
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"b"}, &out));
  EXPECT_EQ(out, Expected("b", 4));
}

TEST_F(ExecEmbedderTest, ProcessClosingItsInputDoesNotRaiseSigpipe) {
  // With SIGPIPE at its default action, a SIGPIPE that got through would end
  // this test program.
  struct sigaction action {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &action), 0);
  ASSERT_EQ(action.sa_handler, SIG_DFL);
  ExecEmbedder embedder(
      R"(read line; echo '{"model":"m","dim":4}'; exec 0<&-; sleep 0.5; exit 5)");
  ASSERT_OK(embedder.Start());
  std::string text(4096, 'x');
  std::vector<std::string_view> texts(256, text);
  ExpectFailure(&embedder, texts,
                "embedder process exited (status 5) before reading all its input");
  sigset_t pending, mask;
  sigpending(&pending);
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE)) << "a SIGPIPE was left pending";
  EXPECT_FALSE(sigismember(&mask, SIGPIPE)) << "SIGPIPE was left blocked";
}

TEST_F(ExecEmbedderTest, KillEndsTheWholeProcessGroup) {
  // The shell forks both sides of the pipe; killing the shell alone would leave
  // the hanging fake (and cat) running.
  test::TempDir dir;
  auto embedder = std::make_unique<ExecEmbedder>(
      Fake("--starts " + dir.Sub("starts") + " hang") + " | cat", milliseconds(300));
  ASSERT_OK(embedder->Start());
  ExpectFailure(embedder.get(), {"a"}, "timed out after 300 ms");
  std::vector<pid_t> starts = Starts(dir.Sub("starts"));
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_TRUE(ProcessEnded(starts[0])) << "the fake embedder survived its shell";
}

// --- End of life --------------------------------------------------------------

TEST_F(ExecEmbedderTest, DestructorLetsAWellBehavedProcessExitAtOnce) {
  test::TempDir dir;
  auto embedder = Started("--starts " + dir.Sub("starts") + " good 4");
  ASSERT_NE(embedder, nullptr);
  Clock::time_point start = Clock::now();
  embedder.reset();
  EXPECT_LT(Clock::now() - start, milliseconds(900)) << "it waited for the grace period";
  ASSERT_EQ(Starts(dir.Sub("starts")).size(), 1u);
  EXPECT_TRUE(ProcessEnded(Starts(dir.Sub("starts"))[0]));
}

TEST_F(ExecEmbedderTest, DestructorKillsAProcessThatIgnoresEndOfInput) {
  auto embedder = Started("hang");
  ASSERT_NE(embedder, nullptr);
  Clock::time_point start = Clock::now();
  embedder.reset();
  auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, ChildProcess::kExitGrace);
  EXPECT_LT(elapsed, ChildProcess::kExitGrace + milliseconds(2000));
}

// --- The "exec:" spec -----------------------------------------------------------

TEST_F(ExecEmbedderTest, FactoryStartsExecSpecs) {
  ASSIGN_OR_FAIL(auto embedder, MakeEmbedder("exec:" + Fake("good 6")));
  EXPECT_EQ(embedder->info().name, "fake-good");
  EXPECT_EQ(embedder->info().dim, 6u);
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"hi"}, &out));
  EXPECT_EQ(out, Expected("hi", 6));
}

TEST_F(ExecEmbedderTest, FactoryRejectsBadExecSpecs) {
  for (std::string_view spec : {"exec:", "exec:   "}) {
    auto made = MakeEmbedder(spec);
    EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument) << spec;
    EXPECT_NE(made.status().message().find("needs a command"), std::string::npos)
        << made.status().ToString();
  }
  auto failed = MakeEmbedder("exec:" + Fake("exit-now"));
  EXPECT_EQ(failed.status().code(), StatusCode::kIOError);
  EXPECT_NE(failed.status().message().find("exited (status 7)"), std::string::npos)
      << failed.status().ToString();
  auto unknown = MakeEmbedder("execute");
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("exec:COMMAND"), std::string::npos);
}

}  // namespace
}  // namespace vexfs::index::exec_test
