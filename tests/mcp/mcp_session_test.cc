// The MCP server's own pieces, in process (and so under the sanitizers too):
// JSON-RPC classification, typed tool arguments, the edit diff, URI paths,
// base64, and whole sessions through ServeMcp over string streams: the
// lifecycle, protocol errors, structured results by protocol version, names that
// are not UTF-8, and a store left unchanged by bad calls.
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "mcp/json_rpc.h"
#include "mcp/resources.h"
#include "mcp/text_diff.h"
#include "mcp/tool_args.h"
#include "test_util.h"
#include "vexfs/index.h"
#include "vexfs/mcp.h"
#include "vexfs/store.h"

namespace vexfs::mcp {
namespace {

using nlohmann::json;

TEST(JsonRpcTest, ClassifiesMessagesAndNamesWhatIsWrong) {
  EXPECT_EQ(ParseRpcMessage(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").kind,
            RpcMessage::Kind::kRequest);
  EXPECT_EQ(ParseRpcMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").kind,
            RpcMessage::Kind::kNotification);
  EXPECT_EQ(ParseRpcMessage(R"({"jsonrpc":"2.0","id":"x","result":{}})").kind,
            RpcMessage::Kind::kResponse);
  struct Bad {
    const char* line;
    int code;
  };
  for (const Bad& bad : std::vector<Bad>{{"{", kParseError},
                                         {"[]", kInvalidRequest},
                                         {"3", kInvalidRequest},
                                         {R"({"id":1,"method":"ping"})", kInvalidRequest},
                                         {R"({"jsonrpc":"2.0","id":[1],"method":"ping"})", kInvalidRequest},
                                         {R"({"jsonrpc":"2.0","id":1,"method":7})", kInvalidRequest},
                                         {R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})", kInvalidRequest},
                                         {R"({"jsonrpc":"2.0","id":1})", kInvalidRequest}}) {
    RpcMessage m = ParseRpcMessage(bad.line);
    EXPECT_EQ(m.kind, RpcMessage::Kind::kInvalid) << bad.line;
    EXPECT_EQ(m.error_reply["error"]["code"], bad.code) << bad.line;
  }
}

TEST(ToolArgsTest, ReadsTypedArgumentsAndRefusesTheRest) {
  json args = {{"s", "text"}, {"b", true}, {"i", 3}, {"f", 3.0}, {"half", 3.5},
               {"big", 1e300}, {"neg", -1}, {"m", {{"k", "v"}}}, {"bad_map", {{"k", 1}}}};
  ToolArgs a(args);
  EXPECT_EQ(*a.String("s"), "text");
  EXPECT_CODE(a.String("missing"), StatusCode::kInvalidArgument);
  EXPECT_CODE(a.String("b"), StatusCode::kInvalidArgument);
  EXPECT_EQ(*a.Bool("b", false), true);
  EXPECT_EQ(*a.Int("i", 0, 0, 10), 3);
  EXPECT_EQ(*a.Int("f", 0, 0, 10), 3) << "3.0 is an integer to JSON Schema";
  EXPECT_CODE(a.Int("half", 0, 0, 10), StatusCode::kInvalidArgument);
  EXPECT_CODE(a.Int("big", 0, 0, INT64_MAX), StatusCode::kInvalidArgument);
  EXPECT_CODE(a.Int("neg", 0, 0, 10), StatusCode::kInvalidArgument);
  EXPECT_EQ(*a.Int("absent", 7, 0, 10), 7);
  EXPECT_EQ(a.StringMap("m")->at("k"), "v");
  EXPECT_CODE(a.StringMap("bad_map"), StatusCode::kInvalidArgument);
  EXPECT_OK(a.RefuseUnknown());
  ToolArgs b(json{{"path", "x"}, {"pth", "y"}});
  ASSERT_OK(b.String("path").status());
  Status unknown = b.RefuseUnknown();
  EXPECT_NE(unknown.message().find("unknown argument 'pth'"), std::string::npos) << unknown.ToString();
}

TEST(TextDiffTest, UnifiedDiffShowsTheChangedLinesWithContext) {
  EXPECT_EQ(UnifiedDiff("a.md", "same\n", "same\n"), "");
  std::string diff = UnifiedDiff("a.md", "one\ntwo\nthree\n", "one\n2\nthree\n");
  EXPECT_EQ(diff.rfind("--- a/a.md\n+++ b/a.md\n@@ -1,3 +1,3 @@\n", 0), 0u) << diff;
  EXPECT_NE(diff.find("\n-two\n+2\n"), std::string::npos) << diff;
}

TEST(UriPathTest, PercentEncodingRoundTripsAnyName) {
  std::string name = "notes/plan B (draft)%\xff.md";
  std::string encoded = EncodeUriPath(name);
  EXPECT_EQ(encoded, "notes/plan%20B%20%28draft%29%25%FF.md");
  EXPECT_EQ(*DecodeUriPath(encoded), name);
  EXPECT_CODE(DecodeUriPath("a%2"), StatusCode::kInvalidArgument);
  EXPECT_CODE(DecodeUriPath("a%zz"), StatusCode::kInvalidArgument);
}

TEST(Base64Test, RoundTripsAndRefusesWhatIsNotBase64) {
  for (std::string bytes : {std::string(), std::string("a"), std::string("ab"), std::string("abc"),
                            std::string("\0\xff\x01", 3)}) {
    EXPECT_EQ(*DecodeBase64(EncodeBase64(bytes)), bytes);
  }
  EXPECT_EQ(EncodeBase64("abcd"), "YWJjZA==");
  EXPECT_CODE(DecodeBase64("abc"), StatusCode::kInvalidArgument);
  EXPECT_CODE(DecodeBase64("!!!!"), StatusCode::kInvalidArgument);
}

// Whole sessions through ServeMcp.
class McpSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = test::CreateStoreOrDie(path());
    ASSERT_OK(Index::SetEmbedder(store.get(), "hash"));
  }
  std::string path() const { return dir_.Sub("store"); }

  // Runs one session over `lines`; returns the replies in order.
  std::vector<json> Run(const std::vector<std::string>& lines, bool read_only = false,
                        const std::string& branch = "") {
    std::string input;
    for (const std::string& l : lines) input += l + "\n";
    std::istringstream in(input);
    std::ostringstream out, log;
    McpOptions options{path(), branch, read_only};
    EXPECT_OK(ServeMcp(options, in, out, log));
    std::vector<json> replies;
    std::istringstream reply_lines(out.str());
    for (std::string line; std::getline(reply_lines, line);) replies.push_back(json::parse(line));
    return replies;
  }

  static std::string Init(const std::string& version = "2025-06-18") {
    return json{{"jsonrpc", "2.0"}, {"id", "init"}, {"method", "initialize"},
                {"params", {{"protocolVersion", version}, {"capabilities", json::object()},
                            {"clientInfo", {{"name", "t"}, {"version", "0"}}}}}}
        .dump();
  }
  static std::string Call(int id, const std::string& tool, json args) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                {"params", {{"name", tool}, {"arguments", std::move(args)}}}}
        .dump();
  }

  test::TempDir dir_;
};

TEST_F(McpSessionTest, StructuredResultsOnlyWhereTheProtocolHasThem) {
  auto old = Run({Init("2024-11-05"), Call(1, "list_directory", json::object())});
  ASSERT_EQ(old.size(), 2u);
  EXPECT_EQ(old[0]["result"]["protocolVersion"], "2024-11-05");
  EXPECT_FALSE(old[1]["result"].contains("structuredContent"));
  EXPECT_EQ(json::parse(old[1]["result"]["content"][0]["text"].get<std::string>())["path"], "");
  auto now = Run({Init(), Call(1, "list_directory", json::object())});
  EXPECT_EQ(now[1]["result"]["structuredContent"]["entries"], json::array());
}

TEST_F(McpSessionTest, BadCallsChangeNothingAndTheSessionGoesOn) {
  auto replies = Run({Init(), Call(1, "write_file", {{"path", "a.md"}, {"content", "kept"}}),
                      Call(2, "write_file", {{"path", "a.md"}, {"content", 5}}),
                      Call(3, "write_file", {{"path", "../a.md"}, {"content", "x"}}),
                      Call(4, "edit_file", {{"path", "a.md"}, {"old_text", ""}, {"new_text", "x"}}),
                      Call(5, "delete", {{"path", ""}}),
                      Call(6, "move", {{"from", "a.md"}, {"to", "missing/dir/b.md"}}),
                      Call(7, "read_file", {{"path", "a.md"}})});
  ASSERT_EQ(replies.size(), 8u);
  for (int id = 2; id <= 6; ++id) {
    EXPECT_TRUE(replies[id]["result"]["isError"].get<bool>()) << replies[id].dump();
  }
  EXPECT_EQ(replies[7]["result"]["structuredContent"]["content"], "kept");
  auto store = test::OpenStoreOrDie(path());
  ASSIGN_OR_FAIL(auto tree, store->Tree());
  ASSIGN_OR_FAIL(auto entries, tree->List(""));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "a.md");
}

TEST_F(McpSessionTest, NamesThatAreNotUtf8AreRepliedNotFatal) {
  {
    auto store = test::OpenStoreOrDie(path());
    ASSERT_OK(test::PutFile(store->Tree()->get(), "caf\xe9.txt", "latin-1 name"));
  }
  auto replies = Run({Init(), Call(1, "list_directory", json::object()),
                      json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "resources/list"}}.dump()});
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_FALSE(replies[1]["result"]["isError"].get<bool>()) << replies[1].dump();
  EXPECT_EQ(replies[2]["result"]["resources"][0]["uri"], "vexfs://files/caf%E9.txt");
}

TEST_F(McpSessionTest, AReadOnlySessionWithholdsWritingTools) {
  auto replies = Run({Init(), json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}}.dump(),
                      Call(2, "write_file", {{"path", "a"}, {"content", "b"}})},
                     /*read_only=*/true);
  for (const json& tool : replies[1]["result"]["tools"]) {
    EXPECT_TRUE(tool["annotations"]["readOnlyHint"].get<bool>()) << tool["name"];
  }
  EXPECT_EQ(replies[2]["error"]["code"], kInvalidParams);
  EXPECT_NE(replies[2]["error"]["message"].get<std::string>().find("read-only"), std::string::npos);
}

TEST_F(McpSessionTest, ABranchMadeFromHereCopiesTheServedBranch) {
  {
    auto store = test::OpenStoreOrDie(path());
    ASSERT_OK(test::PutFile(store->Tree()->get(), "plan.md", "main's plan"));
    ASSERT_OK(store->CreateBranch("agent", std::nullopt));
  }
  auto replies = Run({Init(), Call(1, "write_file", {{"path", "plan.md"}, {"content", "agent's"}}),
                      Call(2, "branch_create", {{"name", "fork"}})},
                     /*read_only=*/false, "agent");
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_FALSE(replies[2]["result"]["isError"].get<bool>()) << replies[2].dump();
  auto store = test::OpenStoreOrDie(path());
  ASSIGN_OR_FAIL(auto fork, store->Tree("fork"));
  ASSIGN_OR_FAIL(std::string plan, fork->ReadAll("plan.md"));
  EXPECT_EQ(plan, "agent's") << "the fork copied the checked-out branch, not the served one";
  ASSIGN_OR_FAIL(std::string current, store->CurrentBranch());
  EXPECT_EQ(current, "main");
}

TEST_F(McpSessionTest, AMissingStoreOrBranchIsAnErrorBeforeAnySession) {
  std::istringstream in;
  std::ostringstream out, log;
  EXPECT_CODE(ServeMcp({dir_.Sub("nothing-here"), "", false}, in, out, log), StatusCode::kNotFound);
  EXPECT_CODE(ServeMcp({path(), "no-such-branch", false}, in, out, log), StatusCode::kNotFound);
  EXPECT_EQ(out.str(), "");
}

TEST_F(McpSessionTest, AClientThatIsGoneEndsTheSessionWithAnError) {
  std::istringstream in(Init() + "\n" + Init() + "\n");
  std::ostringstream out, log;
  out.setstate(std::ios::badbit);  // as a closed pipe leaves the stream
  EXPECT_CODE(ServeMcp({path(), "", false}, in, out, log), StatusCode::kIOError);
}

}  // namespace
}  // namespace vexfs::mcp
