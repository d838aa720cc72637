// The exec embedder: any program that turns text into vectors, run as a helper
// process speaking JSON lines. Spec: "exec:COMMAND".
//
// Protocol (version 1)
// --------------------
// Process. COMMAND is run as `/bin/sh -c COMMAND`, in a process group of its own.
//   Its stdin and stdout are pipes to VexFS; its stderr is VexFS's stderr (use it
//   for diagnostics: stdout carries only protocol lines). It is started when the
//   embedder is created (the handshake must succeed before a store can record the
//   model) and kept running across batches. Errors report how the process
//   ended; a shell that forks COMMAND reports death by signal N as exit status
//   128+N, so "exec PROGRAM ARGS" makes PROGRAM itself the child.
// Lines. Every message either way is one JSON value (RFC 8259, UTF-8) on one line
//   ending in "\n" (a "\r" before it is tolerated; newlines inside texts are
//   escaped by JSON). Responses must come in request order, one per request; the
//   process may read ahead and answer in bursts, and must flush stdout once it
//   has answered everything it has read. A response line may be up to 16 MiB.
// Handshake. VexFS writes {"op":"info"}; the process answers one object:
//     {"model":"NAME","dim":N,"metric":"ip"|"l2","fingerprint":"..."}
//   model        required; 1-128 characters of [A-Za-z0-9._:-]. Becomes the model
//                name a store records (vectors of different models never mix).
//   dim          required; an integer, 1 to kMaxExecDim.
//   metric       optional, default "ip" (inner product; return unit vectors for
//                cosine similarity); "l2" for Euclidean distance.
//   kind         optional, default "words"; "sentence" declares a sentence model,
//                which makes hybrid search the store's default mode.
//   fingerprint  optional non-empty string identifying weights and settings; a
//                change tells the store that the model changed. Default:
//                "exec:" + COMMAND + ":" + NAME + ":" + dim.
//   Other fields are ignored, so later versions may add some.
// Embedding. For a batch of texts VexFS writes one request line per text,
//     {"text":"..."}
//   (bytes that are not valid UTF-8 are replaced by U+FFFD), and reads exactly one
//   response line per text: {"vector":[x1,...,xdim]} or a bare [x1,...,xdim].
//   Every x is a JSON number (integer or not) whose value fits a 32-bit float:
//   JSON cannot say NaN or infinity, a number beyond double range (1e999) is
//   refused by the JSON parser, and one beyond float range (1e39) by VexFS.
//   There must be exactly dim of them. Output after the last response of a
//   batch, or output while no batch is in progress, is an error.
// End. When VexFS is done it closes the process's stdin; the process should exit
//   then. VexFS waits up to kExitGrace (1 s), then sends SIGKILL to the process
//   group (ending helpers the process left behind) and reaps the process.
//
// Errors. Every error is kIOError, whether the process failed (could not start,
// timed out, exited, crashed) or answered wrongly (a line that is not JSON, not
// the expected shape, a wrong length, a value that is not a finite float): both
// are faults of the embedder, not of the caller's input. Messages name the
// command and the 1-based response line within the batch ("embedder command
// 'x': response line 2 of 5: vector has 3 values, not 4"; "embedder command 'x':
// embedder process exited (status 3) before response line 3 of 4"; "... was
// killed by signal 11 before ..."; "... timed out after 30000 ms waiting for
// response line 1 of 8"; "... handshake: ..."). On any error the
// batch's output is discarded (Embed leaves `out` as it was) and the process is
// killed (SIGKILL to its group, then reaped), so a later batch starts afresh.
// Restart. A process that has ended between batches (or was killed after an
// error) is started again, once, by the next Embed(), which handshakes again; if
// the new process reports a different model, name, dim, metric or fingerprint,
// that is an error.
// Timeouts. Each exchange (the handshake, or one whole batch: writing all
// requests and reading all responses) must finish within the embedder's timeout,
// 30 s by default; otherwise the process is killed and the error says "timed out
// after N ms".
//
// Thread-safety: one thread at a time, like every Embedder.
#ifndef VEXFS_INDEX_EMBEDDERS_EXEC_EMBEDDER_H_
#define VEXFS_INDEX_EMBEDDERS_EXEC_EMBEDDER_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "index/embedders/child_process.h"
#include "index/embedders/embedder.h"

namespace vexfs::index {

inline constexpr std::string_view kExecSpecPrefix = "exec:";
inline constexpr uint32_t kMaxExecDim = 65536;
inline constexpr size_t kMaxExecModelName = 128;

class ExecEmbedder : public Embedder {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{30000};

  // Starts nothing: call Start() before info() or Embed(). `timeout` bounds each
  // exchange with the process (see "Timeouts" above).
  explicit ExecEmbedder(std::string command, std::chrono::milliseconds timeout = kDefaultTimeout);

  // Starts the process and performs the handshake; info() is valid afterwards.
  // kIOError naming the command if the process cannot start or its answer is
  // not a valid handshake.
  Status Start();

  const ModelInfo& info() const override { return info_; }
  // See "Embedding", "Errors" and "Restart" above. An empty batch does nothing.
  Status Embed(const std::vector<std::string_view>& texts, std::vector<float>* out) override;

 private:
  // Restarts the process if it ended since the last batch.
  Status EnsureRunning();
  // Starts a process and handshakes; the reported model must match info_ once
  // info_ is set.
  Status Launch();
  Result<ModelInfo> Handshake();
  // Runs the batch's exchange and decodes it into `vectors` (texts.size() * dim).
  Status EmbedBatch(const std::vector<std::string_view>& texts, std::vector<float>* vectors);
  // Kills the process and returns `error` with the command named.
  Status Fail(const Status& error);

  const std::string command_;
  const std::chrono::milliseconds timeout_;
  ModelInfo info_;                       // dim 0 until the first handshake
  std::unique_ptr<ChildProcess> child_;  // null while no process runs
};

// The factory's entry point: an ExecEmbedder for `command`, already started.
Result<std::unique_ptr<Embedder>> MakeExecEmbedder(
    std::string command, std::chrono::milliseconds timeout = ExecEmbedder::kDefaultTimeout);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_EXEC_EMBEDDER_H_
