// Tests for the exec embedder against tests/index/fake_embedder.cc, when the
// process behaves: the handshake and its checks, exact vectors through JSON
// escaping, batching and ordering. Misbehaving processes, restarts, timeouts and
// process lifetime are in exec_embedder_failure_test.cc.
#include "index/embedders/exec_embedder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "exec_embedder_test_util.h"
#include "test_util.h"

namespace vexfs::index::exec_test {
namespace {

// --- Handshake ---------------------------------------------------------------

TEST_F(ExecEmbedderTest, HandshakeReportsTheModel) {
  auto embedder = Started("good 8");
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->info().name, "fake-good");
  EXPECT_EQ(embedder->info().dim, 8u);
  EXPECT_EQ(embedder->info().metric, Metric::kInnerProduct);
  EXPECT_EQ(embedder->info().fingerprint, "exec:" + Fake("good 8") + ":fake-good:8");
}

TEST_F(ExecEmbedderTest, HandshakeTakesOptionalFieldsAndIgnoresUnknownOnes) {
  auto embedder = Started(
      R"(handshake '{"model":"m.v1:x-y_Z","dim":4,"metric":"l2","fingerprint":"w-123","new":1}')");
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->info().name, "m.v1:x-y_Z");
  EXPECT_EQ(embedder->info().dim, 4u);
  EXPECT_EQ(embedder->info().metric, Metric::kL2);
  EXPECT_EQ(embedder->info().fingerprint, "w-123");
}

TEST_F(ExecEmbedderTest, HandshakeRejectsBadAnswers) {
  const std::string long_name(kMaxExecModelName + 1, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not valid JSON"},
      {"[1,2]", "answer is not a JSON object: '[1,2]'"},
      {R"({"dim":4})", "answer has no string \"model\""},
      {R"({"model":7,"dim":4})", "no string \"model\""},
      {R"({"model":"","dim":4})", "is not 1-128 characters"},
      {R"({"model":"has space","dim":4})",
       "model name 'has space' is not 1-128 characters of [A-Za-z0-9._:-]"},
      {R"({"model":"a/b","dim":4})", "is not 1-128 characters"},
      {R"({"model":")" + long_name + R"(","dim":4})", "is not 1-128 characters"},
      {R"({"model":"m"})", "\"dim\" must be an integer from 1 to 65536"},
      {R"({"model":"m","dim":0})", "\"dim\" must be"},
      {R"({"model":"m","dim":-4})", "\"dim\" must be"},
      {R"({"model":"m","dim":4.5})", "\"dim\" must be"},
      {R"({"model":"m","dim":"4"})", "\"dim\" must be"},
      {R"({"model":"m","dim":65537})", "\"dim\" must be"},
      {R"({"model":"m","dim":4,"metric":"cosine"})", "\"metric\" must be \"ip\" or \"l2\""},
      {R"({"model":"m","dim":4,"fingerprint":5})", "\"fingerprint\" must be a non-empty"},
      {R"({"model":"m","dim":4,"fingerprint":""})", "\"fingerprint\" must be a non-empty"},
  };
  for (const auto& [line, fragment] : cases) {
    ExecEmbedder embedder(Fake("handshake '" + line + "'"));
    Status s = embedder.Start();
    EXPECT_EQ(s.code(), StatusCode::kIOError) << line << " gave " << s.ToString();
    EXPECT_NE(s.message().find("': handshake: "), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find(fragment), std::string::npos) << line << " gave " << s.ToString();
    ExpectNoChildren();
  }
}

TEST_F(ExecEmbedderTest, ProcessExitingBeforeTheHandshakeIsReported) {
  ExecEmbedder embedder(Fake("exit-now"));
  Status s = embedder.Start();
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find("handshake: embedder process exited (status 7)"), std::string::npos)
      << s.ToString();
}

TEST_F(ExecEmbedderTest, MissingProgramIsReportedWithTheShellsStatus) {
  ExecEmbedder embedder("/nonexistent/vexfs-embedder 2>/dev/null");
  Status s = embedder.Start();
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find("exited (status 127)"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("/nonexistent/vexfs-embedder"), std::string::npos) << s.ToString();
}

TEST_F(ExecEmbedderTest, SlowStartWithinTheTimeoutSucceeds) {
  auto embedder = Started("slow-start 200", milliseconds(5000));
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->info().dim, 4u);
}

TEST_F(ExecEmbedderTest, SlowStartBeyondTheTimeoutFailsInBoundedTime) {
  ExecEmbedder embedder(Fake("slow-start 20000"), milliseconds(300));
  Clock::time_point start = Clock::now();
  Status s = embedder.Start();
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find("handshake: timed out after 300 ms"), std::string::npos)
      << s.ToString();
  EXPECT_GE(elapsed, milliseconds(300));
  EXPECT_LT(elapsed, milliseconds(3000));
}

// --- Embedding ----------------------------------------------------------------

TEST_F(ExecEmbedderTest, EmbedsExactVectorsThroughJsonEscaping) {
  auto embedder = Started("good 4");
  ASSERT_NE(embedder, nullptr);
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"abc", "", "a\"b\\c\nd\t", "\xc3\xa9", "\xff"}, &out));
  std::vector<float> want = {3, 97, 98, 99,     // plain
                             0, 0, 0, 0,        // empty
                             8, 97, 34, 98,     // quote, backslash, newline escaped
                             2, 195, 169, 195,  // UTF-8 bytes pass unchanged
                             3, 239, 191, 189};  // invalid UTF-8 becomes U+FFFD
  EXPECT_EQ(out, want);
}

TEST_F(ExecEmbedderTest, BatchEqualsSingleCallsAndKeepsOrder) {
  auto embedder = Started("good 16");
  ASSERT_NE(embedder, nullptr);
  std::vector<std::string> texts;
  for (int i = 0; i < 50; ++i) texts.push_back("text number " + std::to_string(i * 7919));
  std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<float> batch, singles, want;
  ASSERT_OK(embedder->Embed(views, &batch));
  for (std::string_view text : views) {
    ASSERT_OK(embedder->Embed({text}, &singles));
    std::vector<float> v = Expected(text, 16);
    want.insert(want.end(), v.begin(), v.end());
  }
  EXPECT_EQ(batch, singles);
  EXPECT_EQ(batch, want);
}

TEST_F(ExecEmbedderTest, AppendsAfterWhatOutAlreadyHolds) {
  auto embedder = Started("good 4");
  ASSERT_NE(embedder, nullptr);
  std::vector<float> out = {1.5f, 2.5f};
  ASSERT_OK(embedder->Embed({"ab"}, &out));
  EXPECT_EQ(out, (std::vector<float>{1.5f, 2.5f, 2, 97, 98, 97}));
}

TEST_F(ExecEmbedderTest, AcceptsBareArrays) {
  auto embedder = Started("bare 4");
  ASSERT_NE(embedder, nullptr);
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"xy", "z"}, &out));
  EXPECT_EQ(out, (std::vector<float>{2, 120, 121, 120, 1, 122, 122, 122}));
}

TEST_F(ExecEmbedderTest, ToleratesCrlfLineEnds) {
  auto embedder = Started("good 4");
  ASSERT_NE(embedder, nullptr);
  std::vector<float> out;
  ASSERT_OK(embedder->Embed({"__crlf__", "q"}, &out));
  std::vector<float> want = Expected("__crlf__", 4), q = Expected("q", 4);
  want.insert(want.end(), q.begin(), q.end());
  EXPECT_EQ(out, want);
}

TEST_F(ExecEmbedderTest, EmptyBatchDoesNothing) {
  auto embedder = Started("good 4");
  ASSERT_NE(embedder, nullptr);
  std::vector<float> out = {7.0f};
  ASSERT_OK(embedder->Embed({}, &out));
  EXPECT_EQ(out, std::vector<float>{7.0f});
}

TEST_F(ExecEmbedderTest, LargeBatchDoesNotDeadlockOnFullPipes) {
  // ~330 KB of requests and ~800 KB of answers: far beyond both pipe buffers, so
  // writing everything before reading anything would block forever.
  auto embedder = Started("good 64", milliseconds(60000));
  ASSERT_NE(embedder, nullptr);
  std::vector<std::string> texts;
  for (int i = 0; i < 3000; ++i) texts.push_back(std::string(100, static_cast<char>('a' + i % 26)));
  std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<float> out;
  ASSERT_OK(embedder->Embed(views, &out));
  ASSERT_EQ(out.size(), 3000u * 64);
  for (size_t i : {size_t{0}, size_t{1234}, size_t{2999}}) {
    std::vector<float> got(out.begin() + i * 64, out.begin() + (i + 1) * 64);
    EXPECT_EQ(got, Expected(views[i], 64)) << "text " << i;
  }
}

}  // namespace
}  // namespace vexfs::index::exec_test
