// The GGUF embedder: a user's sentence-embedding model (bge, e5, MiniLM, GTE,
// nomic-embed, ...) in a llama.cpp GGUF file, run on the CPU through llama.cpp's
// public API (docs/gguf.md). It is the only embedder that knows meaning beyond
// words, and the only one whose quality depends on a file VexFS cannot check.
//
// What the vectors are: the file's own tokenizer, truncation to the model's
// context, the pooling the file declares (mean, CLS or last token; files without
// one are refused), then L2 normalisation, so the inner product is a cosine.
// Several texts share one llama_decode (one sequence each); the results equal
// one-text-at-a-time results within float rounding (docs/gguf.md gives the bound).
//
// It shares llama.cpp's process-wide runtime and GGUF fingerprints with the
// KV-cache adapter (src/kv/llama_runtime.h, src/kv/model_fingerprint.h); it may
// not touch the adapter's sessions or state.
//
// Thread-safety: like every Embedder, used by one thread at a time.
#ifndef VEXFS_INDEX_EMBEDDERS_GGUF_EMBEDDER_H_
#define VEXFS_INDEX_EMBEDDERS_GGUF_EMBEDDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "index/embedders/embedder.h"

namespace vexfs::index {

inline constexpr std::string_view kGgufSpecPrefix = "gguf:";

// Part of every fingerprint: changing how texts become vectors (truncation rule,
// normalisation, empty-text token) must change this, so old vectors are not mixed in.
inline constexpr std::string_view kGgufAlgorithm = "vexfs-gguf-embed-v1";

// A text never gets more tokens than this unless ctx= asks for more; it bounds
// the attention work and memory of one llama_decode for long-context models.
inline constexpr uint32_t kGgufDefaultMaxTokens = 2048;
// Packing budget of one llama_decode. Texts in a decode attend only to themselves,
// but the CPU kernels still visit the masked pairs, so packing pays for short
// texts (queries) and not for passages of hundreds of tokens (docs/gguf.md).
inline constexpr uint32_t kGgufDefaultBatchTokens = 256;
// Texts per llama_decode at most (llama.cpp allows 256 sequences).
inline constexpr uint32_t kGgufMaxSequences = 64;

struct GgufEmbedderOptions {
  std::string path;
  uint32_t threads = 0;       // 0: std::thread::hardware_concurrency()
  uint32_t batch_tokens = 0;  // texts join one llama_decode while their tokens fit
                              // this; 0: kGgufDefaultBatchTokens. A longer text
                              // gets a decode of its own.
  uint32_t max_tokens = 0;    // tokens per text; 0: kGgufDefaultMaxTokens. Always
                              // capped by the model's training context.
};

// Parses what follows "gguf:": "PATH" or "PATH#KEY=N,KEY=N" with keys threads
// (1-256), batch (16-65536) and ctx (8-65536). Options follow the last '#'; a path
// that itself contains '#' is written with a trailing '#' (no options).
// kInvalidArgument naming the problem.
Result<GgufEmbedderOptions> ParseGgufSpec(std::string_view spec);

enum class GgufPooling : uint8_t { kMean, kCls, kLast };
const char* GgufPoolingName(GgufPooling p);  // "mean", "cls", "last"

// Counters since the embedder was opened, for tests and the benchmark.
struct GgufEmbedderStats {
  uint64_t texts = 0;
  uint64_t decodes = 0;          // llama_decode calls
  uint64_t truncated_texts = 0;  // texts longer than max_tokens()
  uint64_t dropped_tokens = 0;   // tokens cut from them
};

class GgufEmbedder : public Embedder {
 public:
  virtual GgufPooling pooling() const = 0;
  virtual uint32_t max_tokens() const = 0;   // per text, after capping
  virtual uint32_t batch_tokens() const = 0;  // the packing budget
  virtual uint32_t threads() const = 0;
  virtual const GgufEmbedderStats& stats() const = 0;
};

// Loads options.path. Every failure names the path:
//   kNotFound         the file does not exist
//   kCorruption       not a readable GGUF, truncated, or llama.cpp cannot load it
//   kInvalidArgument  no sentence pooling (a generative model, or pooling "none"
//                     or "rank"), or an encoder-decoder model
//   kIOError          llama.cpp could not create a context (memory)
// ModelInfo: name "gguf-<general.name or file stem>-<8 hex of the fingerprint>"
// (so that another file or setting is another model rather than a registry
// conflict), dim = the model's output width, metric inner product, fingerprint
// "<kGgufAlgorithm>:<SHA-256 of weights, hyperparameters, tokenizer, pooling,
// normalisation and max_tokens>". threads and batch do not change it.
// Texts longer than max_tokens() are truncated (never an error); the first
// truncation is reported on stderr, all are counted in stats().
Result<std::unique_ptr<GgufEmbedder>> OpenGgufEmbedder(const GgufEmbedderOptions& options);

}  // namespace vexfs::index

#endif  // VEXFS_INDEX_EMBEDDERS_GGUF_EMBEDDER_H_
