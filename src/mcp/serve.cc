// ServeMcp: opens the store and runs one session over a pair of streams.
#include <istream>
#include <ostream>

#include "mcp/session.h"
#include "vexfs/mcp.h"

namespace vexfs {
namespace {

// The largest message read: a 16 MiB write as base64 in JSON, with room to spare.
constexpr size_t kMaxMessageBytes = size_t{64} << 20;

// Reads one line (without its newline) into *line. False at the end of the
// input. Bytes past kMaxMessageBytes are consumed, not kept, and *too_long says so.
bool ReadLine(std::istream& in, std::string* line, bool* too_long) {
  line->clear();
  *too_long = false;
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (;;) {
    int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) return any;
    any = true;
    if (c == '\n') return true;
    if (line->size() < kMaxMessageBytes) {
      line->push_back(static_cast<char>(c));
    } else {
      *too_long = true;
    }
  }
}

Result<std::string> ServedBranch(Store& store, const std::string& asked) {
  std::string branch = asked;
  if (branch.empty()) {
    VEXFS_ASSIGN_OR_RETURN(branch, store.CurrentBranch());
  }
  auto branches = store.ListBranches();
  VEXFS_RETURN_IF_ERROR(branches.status());
  for (const BranchInfo& b : *branches) {
    if (b.name == branch) return branch;
  }
  return Status::NotFound("branch '" + branch + "' does not exist");
}

}  // namespace

Status ServeMcp(const McpOptions& options, std::istream& in, std::ostream& out,
                std::ostream& log) {
  DbOptions db_options = DefaultDbOptions();
  db_options.read_only = options.read_only;
  VEXFS_ASSIGN_OR_RETURN(auto db, Db::Open(options.store, db_options));
  VEXFS_ASSIGN_OR_RETURN(std::string branch, ServedBranch(db->store(), options.branch));
  mcp::ServedStore served(std::move(db), branch);
  mcp::McpSession session(&served, &log);
  std::string line;
  bool too_long = false;
  while (ReadLine(in, &line, &too_long)) {
    std::optional<nlohmann::json> reply;
    if (too_long) {
      reply = mcp::RpcError(nullptr, mcp::kInvalidRequest,
                            "the message is larger than " + std::to_string(kMaxMessageBytes >> 20) +
                                " MiB");
    } else if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;  // blank lines between messages carry nothing
    } else {
      reply = session.Handle(line);
    }
    if (!reply) continue;
    out << reply->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.flush();
    if (!out) return Status::IOError("cannot write to the MCP client");
  }
  return Status::Ok();
}

}  // namespace vexfs
