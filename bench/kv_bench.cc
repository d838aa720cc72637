// Restoring a captured KV cache against re-reading the prompt (re-prefill), side
// by side in one process with llama.cpp: for each prompt length, the source
// prefills and captures into a USXF state file; a fresh context restores it
// (read + verify + rebuild + llama_state_seq_set_data) and another fresh context
// prefills the same tokens. Also: capture and restore throughput against memcpy
// of the same bytes, and bytes per token for every cache type.
// Model: a random-weight Qwen2.5-0.5B-shaped model (docs/kv.md); the compute per
// token is that of the real model, whose weights cannot be fetched here.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

#include "bench_util.h"
#include "vexfs/kv/capture.h"
#include "vexfs/kv/model_init.h"
#include "vexfs/kv/restore.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::bench {
namespace {

struct Options {
  std::string model;           // reused when it exists, else built here
  std::string dir = "/dev/shm/vexfs-kv-bench";
  std::string prompt_file;     // real text; repeated when shorter than a run needs
  std::vector<uint32_t> tokens = {512, 2016, 8192};
  int reps = 3;
  int threads = 0;
  std::string markdown;
};

struct Sample {
  double prefill = 0, capture = 0, write = 0;       // source
  double read_verify = 0, rebuild = 0, load = 0;    // target
  double reprefill = 0, memcpy_capture = 0;
  uint64_t kv_bytes = 0, file_bytes = 0;
  bool same_next_token = false;
};

double Since(double t0) { return NowSeconds() - t0; }

std::vector<int32_t> PromptTokens(const kv::Model& model, const std::string& text, uint32_t n) {
  std::vector<int32_t> all = CheckValue(model.Tokenize(text), "tokenize");
  if (all.empty()) Check(Status::InvalidArgument("empty prompt"), "prompt");
  std::vector<int32_t> out;
  while (out.size() < n) out.insert(out.end(), all.begin(), all.begin() + std::min<size_t>(all.size(), n - out.size()));
  return out;
}

double MemcpySeconds(const std::string& bytes) {
  std::string dst(bytes.size(), '\0');
  const double t0 = NowSeconds();
  std::memcpy(dst.data(), bytes.data(), bytes.size());
  const double t = Since(t0);
  if (dst != bytes) Check(Status::Corruption("memcpy"), "memcpy");
  return t;
}

Sample RunOnce(const kv::Model& model, const std::vector<int32_t>& tokens, const kv::RuntimeSettings& s,
               const std::string& path) {
  Sample x;
  const uint32_t n = static_cast<uint32_t>(tokens.size());
  {  // The source reads the prompt once and captures it.
    auto source = CheckValue(kv::ModelContext::Create(model, s, n + 2), "source context");
    double t0 = NowSeconds();
    Check(source->Prefill(tokens), "prefill");
    x.prefill = Since(t0);
    t0 = NowSeconds();
    kv::StateBundle b = CheckValue(kv::CaptureBundle(model, *source, tokens, 16), "capture");
    x.capture = Since(t0);
    t0 = NowSeconds();
    Check(kv::WriteStateFile(path, b, nullptr), "write state");
    x.write = Since(t0);
    x.kv_bytes = b.kv.data.size();
    x.memcpy_capture = MemcpySeconds(b.kv.data);
  }
  int32_t restored_next = -1;
  {  // A fresh target restores it; its context is made before the clock starts,
     // as the re-prefill's is.
    auto target = CheckValue(kv::ModelContext::Create(model, s, n + 2), "target context");
    double t0 = NowSeconds();
    kv::StateBundle b = CheckValue(kv::ReadStateFile(path, nullptr), "read state");
    x.read_verify = Since(t0);
    t0 = NowSeconds();
    Check(kv::CheckIdentity(b.info, model), "identity");
    std::string blob = CheckValue(kv::BuildTargetBlob(model, b, s), "rebuild");
    x.rebuild = Since(t0);
    t0 = NowSeconds();
    Check(target->WriteSeqState(blob, n, b.next_logits), "set_data");
    x.load = Since(t0);
    restored_next = CheckValue(target->Greedy(2), "continue").tokens[1];
  }
  {  // Another fresh target reads the prompt itself.
    auto baseline = CheckValue(kv::ModelContext::Create(model, s, n + 2), "baseline context");
    const double t0 = NowSeconds();
    Check(baseline->Prefill(tokens), "re-prefill");
    x.reprefill = Since(t0);
    x.same_next_token = CheckValue(baseline->Greedy(2), "continue").tokens[1] == restored_next;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) x.file_bytes = static_cast<uint64_t>(st.st_size);
  return x;
}

std::string EnsureModel(const Options& o) {
  std::string path = o.model.empty() ? o.dir + "/qwen2.5-0.5b-random-seed1.gguf" : o.model;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return path;
  Progress("building " + path + " (Qwen2.5-0.5B shape, random weights, stdev 0.05)");
  kv::ModelInitOptions m;
  m.shape = CheckValue(kv::ParseModelShape("qwen2.5-0.5b"), "shape");
  m.seed = 1;
  m.stdev = 0.05f;
  m.output_path = path;
  Check(kv::InitRandomModel(m), "model-init");
  return path;
}

template <typename F>
double MedianOf(const std::vector<Sample>& s, F f) {
  std::vector<double> v;
  for (const Sample& x : s) v.push_back(f(x));
  return Median(v);
}

double GBps(uint64_t bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

int Main(int argc, char** argv) {
  Options o;
  CLI::App app{"KV restore against re-prefill (llama.cpp)"};
  app.add_option("--model", o.model, "GGUF model (default: a random Qwen2.5-0.5B-shaped one, built once)");
  app.add_option("--dir", o.dir, "Scratch directory (state files, the default model)");
  app.add_option("--prompt-file", o.prompt_file, "Real text for the prompts")->required();
  app.add_option("--tokens", o.tokens, "Prompt lengths")->delimiter(',');
  app.add_option("--reps", o.reps, "Repetitions per length (medians are reported)");
  app.add_option("--threads", o.threads, "CPU threads (default: all cores)");
  app.add_option("--markdown", o.markdown, "Write the results table here");
  bool keep = false;
  app.add_flag("--keep", keep, "Ignored (the scratch files are small)");
  CLI11_PARSE(app, argc, argv);
  ::mkdir(o.dir.c_str(), 0755);
  const std::string model_path = EnsureModel(o);
  auto model = CheckValue(kv::Model::Load(model_path), "load model");
  const std::string text = ReadFile(o.prompt_file);
  kv::RuntimeSettings s;
  s.threads = o.threads;

  Table table({"tokens", "re-prefill (ms)", "restore: verify+rebuild+set_data (ms)", "speed-up", "of which verify (ms)",
               "state file", "capture GB/s (memcpy)", "restore GB/s", "next token equal"});
  nlohmann::json results = {{"bench", "kv"}, {"model", model_path}, {"runs", nlohmann::json::array()}};
  for (uint32_t n : o.tokens) {
    const std::vector<int32_t> tokens = PromptTokens(*model, text, n);
    std::vector<Sample> samples;
    for (int r = 0; r < o.reps; ++r) {
      Progress(std::to_string(n) + " tokens, run " + std::to_string(r + 1) + "/" + std::to_string(o.reps));
      samples.push_back(RunOnce(*model, tokens, s, o.dir + "/state.usxf"));
    }
    const double reprefill = MedianOf(samples, [](const Sample& x) { return x.reprefill; });
    const double restore = MedianOf(samples, [](const Sample& x) { return x.read_verify + x.rebuild + x.load; });
    const double verify = MedianOf(samples, [](const Sample& x) { return x.read_verify; });
    const double capture = MedianOf(samples, [](const Sample& x) { return x.capture; });
    const double memcpy_s = MedianOf(samples, [](const Sample& x) { return x.memcpy_capture; });
    const double load = MedianOf(samples, [](const Sample& x) { return x.rebuild + x.load; });
    bool all_equal = true;
    for (const Sample& x : samples) all_equal &= x.same_next_token;
    const uint64_t kv_bytes = samples[0].kv_bytes;
    table.AddRow({std::to_string(n), Millis(reprefill), Millis(restore), Ratio(reprefill, restore), Millis(verify),
                  Bytes(samples[0].file_bytes), Fixed(GBps(kv_bytes, capture), 2) + " (" + Fixed(GBps(kv_bytes, memcpy_s), 2) + ")",
                  Fixed(GBps(kv_bytes, load), 2), all_equal ? "yes" : "NO"});
    results["runs"].push_back({{"tokens", n}, {"reprefill", reprefill}, {"restore", restore}, {"verify", verify},
                               {"capture", capture}, {"memcpy", memcpy_s}, {"rebuild_and_set_data", load},
                               {"prefill_source", MedianOf(samples, [](const Sample& x) { return x.prefill; })},
                               {"kv_bytes", kv_bytes}, {"file_bytes", samples[0].file_bytes},
                               {"next_token_equal", all_equal}});
  }
  // Bytes per token in each cache type (the canonical section; the layout is fixed).
  Table bytes({"cache type", "bytes per token", "per 2016 tokens"});
  const kv::AttentionShape& a = model->shape();
  const uint64_t per_token = uint64_t{a.n_layers} * (a.k_row() + a.v_row());
  for (kv::CacheType t : {kv::CacheType::kF32, kv::CacheType::kF16, kv::CacheType::kBF16, kv::CacheType::kQ8_0}) {
    const uint64_t b = kv::CacheBytes(t, per_token);
    bytes.AddRow({kv::CacheTypeName(t), std::to_string(b), Bytes(b * 2016)});
    results["bytes_per_token"][kv::CacheTypeName(t)] = b;
  }
  std::cout << table.Text() << "\n" << bytes.Text();
  std::string md = "### Restore against re-prefill\n\n" + table.Markdown() + "\n### Bytes per token (canonical section)\n\n" +
                   bytes.Markdown() + "\n";
  Emit(results, md, o.markdown);
  return 0;
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) { return vexfs::bench::Main(argc, argv); }
