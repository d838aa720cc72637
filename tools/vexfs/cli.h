// Shared plumbing of the vexfs command line: global options, opening the store,
// turning a Status into an exit code and a one-line error, JSON and text output.
#ifndef VEXFS_TOOLS_CLI_H_
#define VEXFS_TOOLS_CLI_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vexfs/db.h"
#include "vexfs/json.h"
#include "vexfs/status.h"
#include "vexfs/store.h"

namespace vexfs::kv {
struct VerifiedStream;
}
namespace vexfs::usxf {
class Keyring;
}

namespace vexfs::cli {

// Exit codes; docs/cli.md lists them. Scripts may branch on them.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,       // I/O error or anything not listed below
  kExitUsage = 2,         // bad command line
  kExitNotFound = 3,      // store, path, snapshot or branch missing
  kExitInvalid = 4,       // malformed name or path, wrong kind of object
  kExitConflict = 5,      // already exists, directory not empty
  kExitCorrupt = 6,       // corruption detected (also: fsck found problems)
  kExitNoSpace = 7,       // store or disk full
  kExitReadOnly = 8,      // store is read-only
  kExitBusy = 9,          // store busy
  kExitUntrusted = 10,    // a signature is missing, untrusted or does not verify
};

struct GlobalOptions {
  std::string store;  // --store, else $VEXFS_STORE, else "."
  bool json = false;  // --json: machine-readable output on stdout
};

// State every command shares; commands set `exit_code`.
struct Context {
  GlobalOptions global;
  int exit_code = kExitOk;
  std::string opened_store;  // set by OpenDb() once a store is open

  // The store path the user asked for.
  std::string StorePath() const;
  // Opens the store through vexfs::Db, or prints the error and returns null
  // (exit_code set). No background indexing: a command ends before it would
  // help; whoever searches next (or a mount, an MCP server) indexes the work.
  std::unique_ptr<Db> OpenDb(bool read_only = false);
  // Prints "vexfs: <message>" to stderr and records the matching exit code.
  // Failures of a whole store (corruption, read-only, full, busy) name the store.
  int Fail(const Status& status);
  int Fail(int code, const std::string& message);
  // Prints a JSON value on one line to stdout.
  void PrintJson(const nlohmann::json& value) const;
};

int ExitCodeFor(const Status& status);

// A store opened for a read command, with the tree it reads (Store::OpenView).
// The view points into the store, so both travel together. `view` is null when
// opening either failed; the error has then been reported through `ctx`.
struct OpenedView {
  std::unique_ptr<Db> db;
  std::unique_ptr<TreeView> view;
};
OpenedView OpenViewOrFail(Context& ctx, const std::string& at, const std::string& branch);

// Writes the regular file `path` of `view` to stdout: its bytes, or with --json
// one document with its path, size and content (vexfs::FileContentJson). What
// `cat` and `get PATH -` print (cmd_files.cc).
Status PrintFileContent(const Context& ctx, TreeView& view, const std::string& path);

// Progress on stderr, only when it is a terminal: "\r<label> <done>/<total>".
class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();
  void Update(uint64_t done, uint64_t total);

 private:
  std::string label_;
  bool enabled_;
  bool shown_ = false;
};

// The keyring directory a command uses: --keyring, else $VEXFS_KEYRING, else "".
std::string KeyringDir(const std::string& given);

// Formatting helpers.
std::string FormatBytes(uint64_t bytes);
std::string ModeString(const Attributes& a);  // "drwxr-xr-x"

// Registration of command groups (one file each).
void AddFileCommands(CLI::App& app, Context& ctx);     // cmd_files.cc
void AddPutGetCommands(CLI::App& app, Context& ctx);   // cmd_put_get.cc
void AddVersionCommands(CLI::App& app, Context& ctx);  // cmd_versions.cc
void AddKvCommands(CLI::App& app, Context& ctx);       // cmd_kv.cc

// Plugs the KV runtime into `kv serve` (cmd_kv_net.cc). `add_options` adds its
// options to serve (--model, --generate); `start` runs once parsed, before
// listening (loads the model), is given serve's keyring (null without one), and
// returns the callback run on every verified stream, whose error is sent to the
// sender as the verdict. Either may be empty.
struct KvServeHook {
  std::function<void(CLI::App& serve)> add_options;
  std::function<Result<std::function<Status(const kv::VerifiedStream&)>>(
      std::shared_ptr<const usxf::Keyring> keyring)>
      start;
};
// Every hook's callback sees every verified stream, in order, and takes the
// kinds it knows (a KV state, an agent bundle), leaving the others alone.
void AddKvNetCommands(CLI::App& kv, Context& ctx, std::vector<KvServeHook> hooks = {});  // cmd_kv_net.cc
// `kv serve --import`: each verified agent bundle is imported into the store
// (cmd_agent.cc).
KvServeHook ImportBundlesOnArrival(Context& ctx);
void AddKvInspectCommands(CLI::App& kv, Context& ctx);  // cmd_kv_inspect.cc
void AddKvHfCommands(CLI::App& kv, Context& ctx);       // cmd_kv_hf.cc
void AddMaintenanceCommands(CLI::App& app, Context& ctx);  // cmd_maintenance.cc
void AddSearchCommands(CLI::App& app, Context& ctx);       // cmd_search.cc
void AddMountCommands(CLI::App& app, Context& ctx);        // cmd_mount.cc
void AddUsxfCommands(CLI::App& app, Context& ctx);         // cmd_usxf.cc
void AddMcpCommands(CLI::App& app, Context& ctx);          // cmd_mcp.cc
void AddGraphCommands(CLI::App& app, Context& ctx);        // cmd_graph.cc
void AddGraphReadCommands(CLI::App& graph, Context& ctx);  // cmd_graph_read.cc
void AddGraphSearch(CLI::App& graph, Context& ctx);        // cmd_search.cc
void AddAgentCommands(CLI::App& app, Context& ctx);        // cmd_agent.cc
void AddAgentResume(CLI::App& agent, Context& ctx);        // cmd_agent_resume.cc

}  // namespace vexfs::cli

#endif  // VEXFS_TOOLS_CLI_H_
