// The GGUF sentence embedder over llama.cpp (see gguf_embedder.h for what the
// vectors are). The rule of this file: llama.cpp aborts the process on some
// misuse (GGML_ASSERT) rather than returning an error, so every call is kept
// inside the limits the context was created with: no llama_decode ever carries
// more than n_ubatch tokens or n_seq_max sequences, and every sequence is whole.
#include "index/embedders/gguf_embedder.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "common/sha256.h"
#include "kv/llama_runtime.h"
#include "llama.h"
#include "vexfs/kv/model_fingerprint.h"

namespace vexfs::index {
namespace {

// Texts beyond this many bytes are tokenised only up to it: the count of dropped
// tokens then becomes a lower bound, but a pathological input cannot make the
// tokenizer allocate without limit.
constexpr size_t kMaxTokenizeBytes = size_t{16} << 20;

struct ModelFree {
  void operator()(llama_model* m) const { llama_model_free(m); }
};
struct ContextFree {
  void operator()(llama_context* c) const { llama_free(c); }
};
using ModelPtr = std::unique_ptr<llama_model, ModelFree>;
using ContextPtr = std::unique_ptr<llama_context, ContextFree>;

// A llama_batch of fixed capacity, one sequence id per token.
class TokenBatch {
 public:
  explicit TokenBatch(int32_t capacity) : batch_(llama_batch_init(capacity, 0, 1)) {}
  ~TokenBatch() { llama_batch_free(batch_); }
  TokenBatch(const TokenBatch&) = delete;
  TokenBatch& operator=(const TokenBatch&) = delete;

  void Clear() { batch_.n_tokens = 0; }
  void AddSequence(const std::vector<llama_token>& tokens, llama_seq_id seq) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      const int32_t k = batch_.n_tokens++;
      batch_.token[k] = tokens[i];
      batch_.pos[k] = static_cast<llama_pos>(i);
      batch_.n_seq_id[k] = 1;
      batch_.seq_id[k][0] = seq;
      batch_.logits[k] = 1;  // pooling reads every token's output
    }
  }
  const llama_batch& get() const { return batch_; }

 private:
  llama_batch batch_;
};

std::string SanitizedName(std::string_view raw) {
  std::string name;
  for (char c : raw) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == ':' || c == '-';
    if (ok) {
      name.push_back(c);
    } else if (!name.empty() && name.back() != '-') {
      name.push_back('-');
    }
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  // "gguf-" + name + "-" + 8 hex must stay within the registry's 128 bytes.
  if (name.size() > 100) name.resize(100);
  return name;
}

std::string MetaString(const llama_model* model, const char* key) {
  char buf[256];
  const int32_t n = llama_model_meta_val_str(model, key, buf, sizeof(buf));
  return n > 0 ? std::string(buf, std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1))
               : std::string();
}

Result<GgufPooling> PoolingOf(llama_context* ctx, const std::string& path) {
  switch (llama_pooling_type(ctx)) {
    case LLAMA_POOLING_TYPE_MEAN: return GgufPooling::kMean;
    case LLAMA_POOLING_TYPE_CLS: return GgufPooling::kCls;
    case LLAMA_POOLING_TYPE_LAST: return GgufPooling::kLast;
    case LLAMA_POOLING_TYPE_RANK:
      return Status::InvalidArgument(path + ": has no pooling for sentence embeddings (it is a "
                                     "reranker: pooling type rank)");
    default:
      return Status::InvalidArgument(
          path + ": has no pooling for sentence embeddings (pooling type none: a generative "
                 "model, or an embedding model converted without its pooling); use a "
                 "sentence-embedding GGUF such as bge, e5, MiniLM, GTE or nomic-embed");
  }
}

void HashU64(Sha256& h, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  h.Update({b, 8});
}

void HashDigest(Sha256& h, const usxf::Digest& d) {
  h.Update({reinterpret_cast<const char*>(d.data()), d.size()});
}

std::string Fingerprint(const kv::ModelFingerprints& fp, GgufPooling pooling,
                        uint32_t max_tokens) {
  Sha256 h;
  h.Update(kGgufAlgorithm);
  HashDigest(h, fp.weights);
  HashDigest(h, fp.hparams);
  HashDigest(h, fp.tokenizer);
  h.Update(GgufPoolingName(pooling));
  h.Update("|l2|truncate-keep-last|");
  HashU64(h, max_tokens);
  return std::string(kGgufAlgorithm) + ":" + h.Finish().ToHex();
}

class LlamaEmbedder : public GgufEmbedder {
 public:
  LlamaEmbedder(std::string path, ModelPtr model, ContextPtr ctx, GgufPooling pooling,
                uint32_t max_tokens, uint32_t batch_tokens, uint32_t threads)
      : path_(std::move(path)),
        model_(std::move(model)),
        ctx_(std::move(ctx)),
        vocab_(llama_model_get_vocab(model_.get())),
        pooling_(pooling),
        max_tokens_(max_tokens),
        batch_tokens_(batch_tokens),
        ubatch_tokens_(llama_n_ubatch(ctx_.get())),
        max_seqs_(std::min(llama_n_seq_max(ctx_.get()), kGgufMaxSequences)),
        threads_(threads),
        batch_(static_cast<int32_t>(ubatch_tokens_)) {
    keep_last_ = llama_vocab_get_add_eos(vocab_) || llama_vocab_get_add_sep(vocab_);
  }

  void SetInfo(const kv::ModelFingerprints& fp) {
    info_.fingerprint = Fingerprint(fp, pooling_, max_tokens_);
    std::string base = SanitizedName(MetaString(model_.get(), "general.name"));
    if (base.empty()) base = SanitizedName(std::filesystem::path(path_).stem().string());
    if (base.empty()) base = "model";
    const size_t hex = info_.fingerprint.size() - 64;  // the digest after "algorithm:"
    info_.name = "gguf-" + base + "-" + info_.fingerprint.substr(hex, 8);
    info_.dim = static_cast<uint32_t>(llama_model_n_embd_out(model_.get()));
    info_.metric = Metric::kInnerProduct;
    info_.sentence = true;
  }

  const ModelInfo& info() const override { return info_; }
  GgufPooling pooling() const override { return pooling_; }
  uint32_t max_tokens() const override { return max_tokens_; }
  uint32_t batch_tokens() const override { return batch_tokens_; }
  uint32_t threads() const override { return threads_; }
  const GgufEmbedderStats& stats() const override { return stats_; }

  Status Embed(const std::vector<std::string_view>& texts, std::vector<float>* out) override {
    std::vector<std::vector<llama_token>> tokens(texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      VEXFS_ASSIGN_OR_RETURN(tokens[i], Tokenize(texts[i]));
    }
    std::vector<float> vectors(texts.size() * info_.dim);
    for (size_t next = 0; next < texts.size();) {
      VEXFS_ASSIGN_OR_RETURN(next, DecodeFrom(tokens, next, vectors.data()));
    }
    stats_.texts += texts.size();
    out->insert(out->end(), vectors.begin(), vectors.end());
    return Status::Ok();
  }

 private:
  Result<std::vector<llama_token>> Tokenize(std::string_view text) {
    if (text.size() > kMaxTokenizeBytes) {
      size_t cut = kMaxTokenizeBytes;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      text = text.substr(0, cut);  // at a UTF-8 character boundary
    }
    std::vector<llama_token> tokens(text.size() + 8);
    int32_t n = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
      n = llama_tokenize(vocab_, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                         static_cast<int32_t>(tokens.size()), /*add_special=*/true,
                         /*parse_special=*/false);
      if (n >= 0) break;
      tokens.resize(static_cast<size_t>(-static_cast<int64_t>(n)));
    }
    if (n < 0) return Status::Corruption(path_ + ": llama.cpp could not tokenize a text");
    tokens.resize(static_cast<size_t>(n));
    if (tokens.empty()) tokens.push_back(FallbackToken());
    Truncate(&tokens);
    return tokens;
  }

  // A text that tokenizes to nothing (an empty text, for a model that adds no
  // special tokens) still needs a sequence of its own to get a vector.
  llama_token FallbackToken() const {
    for (llama_token t : {llama_vocab_bos(vocab_), llama_vocab_eos(vocab_), llama_vocab_sep(vocab_)}) {
      if (t != LLAMA_TOKEN_NULL) return t;
    }
    return 0;
  }

  // Keeps the first max_tokens_ tokens, or the first max_tokens_ - 1 and the
  // trailing separator when the tokenizer appends one (as BERT's [SEP]): the
  // models were trained on inputs that end with it.
  void Truncate(std::vector<llama_token>* tokens) {
    if (tokens->size() <= max_tokens_) return;
    const size_t dropped = tokens->size() - max_tokens_;
    if (stats_.truncated_texts == 0) {
      std::fprintf(stderr,
                   "vexfs: warning: %s: a text of %zu tokens was truncated to the model's "
                   "context of %u tokens (%zu dropped); later truncations by this embedder "
                   "are not reported\n",
                   path_.c_str(), tokens->size(), max_tokens_, dropped);
    }
    ++stats_.truncated_texts;
    stats_.dropped_tokens += dropped;
    const llama_token last = tokens->back();
    tokens->resize(max_tokens_);
    if (keep_last_) tokens->back() = last;
  }

  // Decodes the texts from `first` that fit the packing budget (always at least
  // one: a text of up to max_tokens_ fits the context), writes their vectors and
  // returns the index of the first text not yet embedded.
  Result<size_t> DecodeFrom(const std::vector<std::vector<llama_token>>& tokens, size_t first,
                            float* vectors) {
    batch_.Clear();
    size_t end = first, used = 0;
    while (end < tokens.size() && end - first < max_seqs_ &&
           used + tokens[end].size() <= (end == first ? ubatch_tokens_ : batch_tokens_)) {
      batch_.AddSequence(tokens[end], static_cast<llama_seq_id>(end - first));
      used += tokens[end].size();
      ++end;
    }
    if (end == first) {  // cannot happen (max_tokens_ <= n_ubatch); llama.cpp would abort
      return Status::IOError(path_ + ": a text does not fit the embedding context");
    }
    if (llama_memory_t mem = llama_get_memory(ctx_.get())) llama_memory_clear(mem, true);
    const int32_t rc = llama_decode(ctx_.get(), batch_.get());
    ++stats_.decodes;
    if (rc != 0) {
      return Status::IOError(path_ + ": llama_decode failed (code " + std::to_string(rc) +
                             "; VEXFS_LLAMA_LOG=1 shows why)");
    }
    for (size_t i = first; i < end; ++i) {
      VEXFS_RETURN_IF_ERROR(ReadPooled(static_cast<llama_seq_id>(i - first),
                                       vectors + i * info_.dim));
    }
    return end;
  }

  Status ReadPooled(llama_seq_id seq, float* v) {
    const float* pooled = llama_get_embeddings_seq(ctx_.get(), seq);
    if (pooled == nullptr) return Status::IOError(path_ + ": llama.cpp returned no embedding");
    double sum = 0;
    for (uint32_t d = 0; d < info_.dim; ++d) sum += double{pooled[d]} * pooled[d];
    if (!(sum > 0) || !std::isfinite(sum)) {
      return Status::Corruption(path_ + ": the model produced a zero or non-finite embedding");
    }
    const double scale = 1.0 / std::sqrt(sum);
    for (uint32_t d = 0; d < info_.dim; ++d) v[d] = static_cast<float>(pooled[d] * scale);
    return Status::Ok();
  }

  std::string path_;
  ModelPtr model_;
  ContextPtr ctx_;
  const llama_vocab* vocab_;
  GgufPooling pooling_;
  uint32_t max_tokens_;
  uint32_t batch_tokens_;   // packing budget: texts join a decode while they fit it
  uint32_t ubatch_tokens_;  // what the context accepts: >= max_tokens_ and batch_tokens_
  uint32_t max_seqs_;
  uint32_t threads_;
  bool keep_last_ = false;
  TokenBatch batch_;
  ModelInfo info_;
  GgufEmbedderStats stats_;
};

Result<ModelPtr> LoadModel(const std::string& path) {
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;
  ModelPtr model(llama_model_load_from_file(path.c_str(), params));
  if (!model) {
    return Status::Corruption(path + ": llama.cpp could not load the model (missing or "
                              "malformed tensors or metadata; VEXFS_LLAMA_LOG=1 shows why)");
  }
  if (llama_model_has_encoder(model.get()) && llama_model_has_decoder(model.get())) {
    return Status::InvalidArgument(path + ": is an encoder-decoder model; sentence embedding "
                                          "needs an encoder-only or decoder-only model");
  }
  return model;
}

// Context sized so that the longest allowed text fits one llama_decode, as
// non-causal attention cannot split a sequence across micro-batches. Flash
// attention stays on llama.cpp's default (auto: on for the CPU): without it the
// masked attention between packed texts costs quadratically (docs/gguf.md).
Result<ContextPtr> CreateContext(llama_model* model, const std::string& path, uint32_t max_tokens,
                                 uint32_t batch_tokens, uint32_t threads) {
  llama_context_params p = llama_context_default_params();
  p.n_ctx = p.n_batch = p.n_ubatch = std::max(batch_tokens, max_tokens);
  p.n_seq_max = kGgufMaxSequences;
  p.kv_unified = true;  // decoder models: one batch's texts share the cleared cache
  p.n_threads = p.n_threads_batch = static_cast<int32_t>(threads);
  p.embeddings = true;
  p.pooling_type = LLAMA_POOLING_TYPE_UNSPECIFIED;  // the model's own
  p.no_perf = true;
  ContextPtr ctx(llama_init_from_model(model, p));
  if (!ctx) {
    return Status::IOError(path + ": llama.cpp could not create an embedding context of " +
                           std::to_string(p.n_ctx) + " tokens (VEXFS_LLAMA_LOG=1 shows why)");
  }
  return ctx;
}

uint32_t DefaultThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace

Result<std::unique_ptr<GgufEmbedder>> OpenGgufEmbedder(const GgufEmbedderOptions& options) {
  const std::string& path = options.path;
  VEXFS_RETURN_IF_ERROR(kv::EnsureLlamaRuntime());
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path + ": no such model file");
  // Fingerprinting first proves the file is a whole GGUF before llama.cpp reads it.
  VEXFS_ASSIGN_OR_RETURN(kv::ModelFingerprints fp, kv::FingerprintGguf(path));
  VEXFS_ASSIGN_OR_RETURN(ModelPtr model, LoadModel(path));
  const uint32_t n_ctx_train =
      static_cast<uint32_t>(std::max<int32_t>(8, llama_model_n_ctx_train(model.get())));
  const uint32_t max_tokens =
      std::min(options.max_tokens ? options.max_tokens : kGgufDefaultMaxTokens, n_ctx_train);
  const uint32_t batch_tokens = options.batch_tokens ? options.batch_tokens : kGgufDefaultBatchTokens;
  const uint32_t threads = options.threads ? options.threads : DefaultThreads();
  VEXFS_ASSIGN_OR_RETURN(ContextPtr ctx,
                         CreateContext(model.get(), path, max_tokens, batch_tokens, threads));
  VEXFS_ASSIGN_OR_RETURN(GgufPooling pooling, PoolingOf(ctx.get(), path));
  auto embedder = std::make_unique<LlamaEmbedder>(path, std::move(model), std::move(ctx), pooling,
                                                  max_tokens, batch_tokens, threads);
  embedder->SetInfo(fp);
  return std::unique_ptr<GgufEmbedder>(std::move(embedder));
}

}  // namespace vexfs::index
