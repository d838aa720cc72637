// Round trips through the MCP server against the two other ways to make the same
// call: the library in process (the floor: what MCP adds is the difference) and
// the CLI run once per call (what an agent without MCP pays). For `search` (k 10,
// the default mode and embedder, snippets) and `write_file` (a 2 KiB note, a new
// file each time), p50 and p99 of each, in one run on one store.
//
//   mcp_bench --vexfs BUILD/tools/vexfs/vexfs [--files N] [--calls C] [--cli-calls K] [--dir D]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "bench_util.h"
#include "vexfs/index.h"
#include "vexfs/local_files.h"
#include "vexfs/store.h"

extern char** environ;

namespace vexfs::bench {
namespace {

using nlohmann::json;

struct Options {
  std::string vexfs;
  std::string dir = "/tmp/vexfs-bench";
  size_t files = 1000;
  size_t calls = 300;
  size_t cli_calls = 30;
};

// A `vexfs mcp` child: requests on its stdin, one reply line each on its stdout.
class McpChild {
 public:
  McpChild(const std::string& vexfs, const std::string& store) {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) Die("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    std::vector<std::string> argv = {vexfs, "--store", store, "mcp"};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    if (posix_spawn(&pid_, vexfs.c_str(), &actions, nullptr, args.data(), environ) != 0) {
      Die("spawn vexfs mcp");
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    in_ = ::fdopen(to_child[1], "w");
    out_ = ::fdopen(from_child[0], "r");
  }
  ~McpChild() {
    std::fclose(in_);  // EOF ends the session
    std::fclose(out_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  json Request(const std::string& method, json params) {
    json request{{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", std::move(params)}};
    std::string line = request.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), in_) != line.size() || std::fflush(in_) != 0) {
      Die("write to vexfs mcp");
    }
    char* buf = nullptr;
    size_t cap = 0;
    ssize_t n = ::getline(&buf, &cap, out_);
    if (n <= 0) Die("read from vexfs mcp");
    json reply = json::parse(std::string(buf, static_cast<size_t>(n)));
    std::free(buf);
    if (reply.contains("error")) Die("vexfs mcp: " + reply["error"].dump());
    return reply["result"];
  }

  json Call(const std::string& tool, json args) {
    json result = Request("tools/call", {{"name", tool}, {"arguments", std::move(args)}});
    if (result["isError"].get<bool>()) Die("tool " + tool + ": " + result["content"].dump());
    return result;
  }

 private:
  static void Die(const std::string& what) {
    std::cerr << "error: " << what << "\n";
    std::exit(1);
  }

  pid_t pid_ = 0;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
  int id_ = 0;
};

std::string Query(size_t i) {
  // Words of the notes' vocabulary (bench_util's TextContent), so every search
  // finds and ranks passages.
  static const char* kQueries[] = {"agent memory plan", "retry failed tool call",
                                   "search index vector", "user asked summary",
                                   "model token cache"};
  return kQueries[i % 5];
}

struct Latencies {
  std::vector<double> library, mcp, cli;
};

json Row(const char* call, const Latencies& l) {
  auto stats = [](const std::vector<double>& s) {
    return json{{"p50_ms", Median(s) * 1e3}, {"p99_ms", Percentile(s, 0.99) * 1e3}};
  };
  return {{"call", call}, {"library", stats(l.library)}, {"mcp", stats(l.mcp)}, {"cli", stats(l.cli)}};
}

void Run(const Options& o) {
  std::string store_path = FreshDir(o.dir, "mcp") + "/store";
  Progress("making a store of " + std::to_string(o.files) + " text files");
  auto store = CheckValue(Store::Create(store_path), "create store");
  CheckValue(Index::Open(store.get()), "open index");  // registers the index, as `vexfs init` does
  for (size_t i = 0; i < o.files; ++i) {
    CheckValue(PutBytes(*store, "notes/" + std::to_string(i) + ".md", TextContent(i, 2048)), "put");
  }
  auto index = CheckValue(Index::Open(store.get()), "open index");
  Check(index->Wait(), "index");

  Latencies search, write;
  McpChild mcp(o.vexfs, store_path);
  mcp.Request("initialize", {{"protocolVersion", "2025-11-25"},
                             {"capabilities", json::object()},
                             {"clientInfo", {{"name", "mcp_bench"}, {"version", "1"}}}});
  mcp.Call("search", {{"query", Query(0)}});  // loads the embedder and the catalog
  SearchRequest request;
  request.k = 10;
  Progress("search: " + std::to_string(o.calls) + " calls each through the library and MCP");
  for (size_t i = 0; i < o.calls; ++i) {
    request.query = Query(i);
    double t = NowSeconds();
    SearchResult found = CheckValue(index->Search(request), "search");
    search.library.push_back(NowSeconds() - t);
    t = NowSeconds();
    json reply = mcp.Call("search", {{"query", Query(i)}});
    search.mcp.push_back(NowSeconds() - t);
    if (found.hits.size() != request.k || reply["structuredContent"]["hits"].size() != request.k) {
      std::cerr << "error: a search found fewer than " << request.k << " hits\n";
      std::exit(1);
    }
  }
  Progress("write: " + std::to_string(o.calls) + " notes each through the library and MCP");
  for (size_t i = 0; i < o.calls; ++i) {
    std::string note = TextContent(100000 + i, 2048);
    double t = NowSeconds();
    CheckValue(PutBytes(*store, "lib/" + std::to_string(i) + ".md", note), "put");
    write.library.push_back(NowSeconds() - t);
    t = NowSeconds();
    mcp.Call("write_file", {{"path", "mcp/" + std::to_string(i) + ".md"}, {"content", note}});
    write.mcp.push_back(NowSeconds() - t);
  }
  Check(index->Wait(), "index");
  Progress("the CLI once per call: " + std::to_string(o.cli_calls) + " searches and writes");
  std::string note_file = o.dir + "/mcp/note.md";
  WriteFile(note_file, TextContent(7, 2048), false);
  for (size_t i = 0; i < o.cli_calls; ++i) {
    search.cli.push_back(TimeProcess({o.vexfs, "--store", store_path, "--json", "search", Query(i)}));
    write.cli.push_back(
        TimeProcess({o.vexfs, "--store", store_path, "put", note_file, "cli/" + std::to_string(i) + ".md"}));
  }

  Table table({"call", "library p50", "library p99", "MCP p50", "MCP p99", "MCP - library (p50)",
               "CLI per call p50", "CLI p99"});
  for (const auto& [name, l] : {std::pair{"search (k 10)", &search}, std::pair{"write_file (2 KiB)", &write}}) {
    table.AddRow({name, Millis(Median(l->library)), Millis(Percentile(l->library, 0.99)),
                  Millis(Median(l->mcp)), Millis(Percentile(l->mcp, 0.99)),
                  Millis(Median(l->mcp) - Median(l->library)), Millis(Median(l->cli)),
                  Millis(Percentile(l->cli, 0.99))});
  }
  std::cout << table.Text();
  Emit({{"bench", "mcp"}, {"files", o.files}, {"calls", o.calls}, {"cli_calls", o.cli_calls},
        {"results", {Row("search", search), Row("write_file", write)}}},
       table.Markdown(), "");
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  vexfs::bench::Options o;
  CLI::App app{"MCP round trips against the library and the CLI"};
  app.add_option("--vexfs", o.vexfs, "The vexfs binary")->required();
  app.add_option("--dir", o.dir, "Scratch directory");
  app.add_option("--files", o.files, "Text files in the store");
  app.add_option("--calls", o.calls, "Calls per measure through the library and MCP");
  app.add_option("--cli-calls", o.cli_calls, "CLI processes per measure");
  CLI11_PARSE(app, argc, argv);
  vexfs::bench::Run(o);
  return 0;
}
