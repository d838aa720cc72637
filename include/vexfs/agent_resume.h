// Resuming a moved agent: where its memory says to continue (the latest turn a
// KV cache covers, and which pending actions completed or are still open), and
// the restore of that cache into llama.cpp, continued without re-reading the
// prompt. docs/agent-bundle.md, "Resuming".
//
// Thread-safety: each call uses the Db and model it is given from the calling
// thread.
#ifndef VEXFS_AGENT_RESUME_H_
#define VEXFS_AGENT_RESUME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "vexfs/db.h"
#include "vexfs/graph.h"
#include "vexfs/kv/model.h"
#include "vexfs/kv/model_context.h"
#include "vexfs/kv/restore.h"
#include "vexfs/status.h"
#include "vexfs/usxf_keys.h"

#pragma GCC visibility push(default)

namespace vexfs::agent {

struct ResumePoint {
  GraphNode turn;            // the latest turn whose KV span names a cache
  std::string cache;         // that cache's identity
  std::string kv_path;       // its state file (KvStatePath)
  // Turns recorded after `turn`: not in the cache, to be read again.
  std::vector<GraphNode> uncovered_turns;
  std::vector<GraphNode> completed_actions;  // done or failed: never to be run again
  std::vector<GraphNode> open_actions;       // planned or started
};

// Reads the graph `read` names (a branch's working graph or a snapshot's).
// `cache` picks a cache by identity instead of the latest turn's. kNotFound
// when no turn names a KV cache (or none names `cache`), or when its state file
// is not in `kv_dir` ("" = the store's kv/).
Result<ResumePoint> FindResumePoint(Db& db, const GraphReadOptions& read, std::string_view cache = "",
                                    const std::string& kv_dir = "");

struct ResumeResult {
  uint32_t restored_tokens = 0;
  kv::Continuation continuation;
  // The continuation's tokens against the source's own, recorded in the state
  // when it was captured: equal over `compared` steps (0 when there is no record).
  uint32_t compared = 0;
  bool matches_source = false;
  int32_t first_divergence = -1;
  kv::RestoreTimings timings;
  double generate_seconds = 0;
};

// Verifies the state file (digests, and with a keyring a trusted signature),
// checks it belongs to `model` (kInvalidArgument naming each part of the
// identity or structure that differs: a cache for another model), restores it
// into a fresh context and generates `generate` tokens greedily from the carried
// logits, reading no prompt token again.
Result<ResumeResult> Resume(const ResumePoint& point, const kv::Model& model, const kv::RuntimeSettings& settings,
                            uint32_t generate, const usxf::Keyring* keyring);

}  // namespace vexfs::agent

#pragma GCC visibility pop

#endif  // VEXFS_AGENT_RESUME_H_
