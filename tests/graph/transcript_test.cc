// Transcripts in and out of the graph, in OpenAI's and Anthropic's forms:
// import then export gives back equal messages, importing twice adds nothing,
// the graph gets the turns, calls, results and links the mapping promises, and
// bad lines are refused by number with nothing written.
#include "vexfs/transcript.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace vexfs {
namespace {

using nlohmann::json;

constexpr char kOpenAi[] = R"({"role":"system","content":"You are terse."}
{"role":"user","name":"ada","content":"What is in /etc/hosts?","timestamp":"2026-03-01T10:00:00Z"}
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"/etc/hosts\"}"}},{"id":"call_2","type":"function","function":{"name":"stat","arguments":"{}"}}],"timestamp":"2026-03-01T10:00:01.250+01:00"}
{"role":"tool","tool_call_id":"call_1","content":"127.0.0.1 localhost"}
{"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"size 20"}]}

{"role":"assistant","content":"It maps localhost.","extra":{"kept":true}}
{"role":"tool","tool_call_id":"call_1","content":"again","tool_calls":[{"id":"call_3","type":"function","function":{"name":"x","arguments":""}}]}
)";

constexpr char kAnthropic[] = R"({"role":"user","content":"List the files."}
{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"tu_1","name":"ls","input":{"dir":"/"}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":"bin etc"},{"type":"text","text":"thanks","$part":7}]}
{"role":"assistant","content":[{"type":"text","text":"bin and etc."}],"timestamp":"2026-03-01T10:00:00Z"}
)";

std::vector<json> Lines(const std::string& text) {
  std::vector<json> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (!line.empty()) out.push_back(json::parse(line));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

class TranscriptTest : public test::StoreTest {
 protected:
  void SetUp() override {
    test::StoreTest::SetUp();
    graph_ = std::move(Graph::Attach(&store())).value();
  }

  uint64_t Import(const std::string& text, TranscriptFormat format, const std::string& thread) {
    auto batch = TranscriptToBatch(text, format, thread);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) return 0;
    auto written = graph_->Apply(*batch);
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    return written.ok() ? written->records_changed : 0;
  }

  std::unique_ptr<Graph> graph_;
};

TEST_F(TranscriptTest, OpenAiRoundTripsAndImportingTwiceAddsNothing) {
  EXPECT_GT(Import(kOpenAi, TranscriptFormat::kOpenAI, "chat"), 0u);
  EXPECT_EQ(Import(kOpenAi, TranscriptFormat::kOpenAI, "chat"), 0u);
  auto out = ExportTranscript(*graph_, "chat", TranscriptFormat::kOpenAI);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Lines(*out), Lines(kOpenAi));

  auto turns = graph_->Nodes({.kind = "turn", .thread = "chat"});
  ASSERT_TRUE(turns.ok());
  EXPECT_EQ(turns->size(), 4u);
  auto calls = graph_->Nodes({.kind = "tool_call", .thread = "chat"});
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 3u);
  auto results = graph_->Nodes({.kind = "tool_result", .thread = "chat"});
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(results->size(), 3u);
  // The speaker's name is kept; the timestamp is the valid time.
  bool ada = false;
  for (const GraphNode& t : *turns) {
    if (t.source == "ada") {
      ada = true;
      EXPECT_EQ(t.times.valid_from, 1772359200LL * 1000000000);
    }
  }
  EXPECT_TRUE(ada);
  // call_1 returned twice, call_2 once; call_3 was never answered.
  size_t returned = 0;
  for (const GraphNode& call : *calls) {
    auto hood = graph_->Neighbors({.start = call.id, .edge_kinds = {"returned"}, .direction = GraphDirection::kOut});
    ASSERT_TRUE(hood.ok());
    returned += hood->nodes.size() - 1;
  }
  EXPECT_EQ(returned, 3u);
}

TEST_F(TranscriptTest, BlankLinesShiftNoKeyAndAPartialImportIsRefused) {
  std::string spaced = std::string("\n\n") + kOpenAi;
  EXPECT_GT(Import(kOpenAi, TranscriptFormat::kOpenAI, "chat"), 0u);
  EXPECT_EQ(Import(spaced, TranscriptFormat::kOpenAI, "chat"), 0u) << "the same messages, moved down two lines";
  // Only the last message, into the same thread: it would be message 1.
  auto batch = TranscriptToBatch("{\"role\":\"user\",\"content\":\"new\"}\n", TranscriptFormat::kOpenAI, "chat");
  ASSERT_TRUE(batch.ok());
  auto refused = graph_->Apply(*batch);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("already names a different turn"), std::string::npos)
      << refused.status().ToString();
}

TEST_F(TranscriptTest, AnthropicRoundTrips) {
  EXPECT_GT(Import(kAnthropic, TranscriptFormat::kAnthropic, "a"), 0u);
  EXPECT_EQ(Import(kAnthropic, TranscriptFormat::kAnthropic, "a"), 0u);
  auto out = ExportTranscript(*graph_, "a", TranscriptFormat::kAnthropic);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Lines(*out), Lines(kAnthropic));
  auto calls = graph_->Nodes({.kind = "tool_call", .thread = "a"});
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 1u);
  auto hood = graph_->Neighbors({.start = calls->front().id, .edge_kinds = {"returned"}});
  ASSERT_TRUE(hood.ok());
  ASSERT_EQ(hood->nodes.size(), 2u);
  EXPECT_EQ(hood->nodes[1].text, "bin etc");
  auto wrong = ExportTranscript(*graph_, "a", TranscriptFormat::kOpenAI);
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(TranscriptTest, BadLinesAreRefusedByNumberAndWriteNothing) {
  struct Case {
    std::string text;
    TranscriptFormat format;
    const char* says;
  };
  std::vector<Case> cases = {
      {"{\"role\":\"user\",\"content\":\"hi\"}\nnot json\n", TranscriptFormat::kOpenAI, "line 2: not a JSON object"},
      {"{\"role\":\"tool\",\"tool_call_id\":\"nope\",\"content\":\"x\"}\n", TranscriptFormat::kOpenAI,
       "line 1: a tool result for call 'nope', which no earlier message made"},
      {"{\"content\":\"no role\"}\n", TranscriptFormat::kOpenAI, "line 1: a message needs a role"},
      {"{\"role\":\"user\",\"content\":\"x\",\"timestamp\":\"yesterday\"}\n", TranscriptFormat::kOpenAI,
       "line 1: timestamp 'yesterday' is not RFC 3339"},
      {"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"x\",\"function\":\"oops\"}]}\n",
       TranscriptFormat::kOpenAI, "line 1: a malformed message"},
      {"{\"role\":\"user\",\"content\":[{\"type\":5,\"text\":\"x\"}]}\n",
       TranscriptFormat::kAnthropic, "line 1: a malformed message"},
      {"{\"role\":\"user\",\"content\":\"x\",\"timestamp\":\"9999-12-31T23:59:59Z\"}\n",
       TranscriptFormat::kOpenAI, "line 1: timestamp"},
      {"{\"role\":\"user\",\"content\":\"x\",\"timestamp\":\"2026-02-30T00:00:00Z\"}\n",
       TranscriptFormat::kOpenAI, "line 1: timestamp"},
      {"{\"role\":\"user\",\"content\":\"x\"}\n{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
       "\"tool_use_id\":\"t9\",\"content\":\"x\"}]}\n",
       TranscriptFormat::kAnthropic, "line 2: a tool result for call 't9'"},
  };
  for (const Case& c : cases) {
    auto batch = TranscriptToBatch(c.text, c.format, "t");
    ASSERT_FALSE(batch.ok()) << c.says;
    EXPECT_NE(batch.status().message().find(c.says), std::string::npos) << batch.status().ToString();
  }
  auto no_thread = TranscriptToBatch(kOpenAi, TranscriptFormat::kOpenAI, "");
  EXPECT_EQ(no_thread.status().code(), StatusCode::kInvalidArgument);
  auto stats = graph_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->nodes, 0u);
}

}  // namespace
}  // namespace vexfs
