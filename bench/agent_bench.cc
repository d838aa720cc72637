// Moving a whole agent (files, memory graph, a KV state) to another store as
// one bundle, against rebuilding that state there; and what an incremental
// bundle costs as the store grows (docs/agent-bundle.md, docs/BENCHMARKS.md).
//
//   agent_bench [--files 1000] [--nodes 5000] [--kv-tokens 2016] [--reps 5]
//               [--sizes 1000,10000,100000] [--dir DIR] [--markdown FILE]
//               [--model M.gguf --prompt-file F [--threads N]]
//
// The move: export (select, plan, stream, sign), then import into an empty
// store (verify every byte and the signature, prove every object, commit),
// then find where to resume (the graph read of `agent resume`). The KV state
// is a synthetic file of the Qwen2.5-0.5B cache shape (24 layers, 2 KV heads
// of 64, f16), or with --model M --prompt-file F the prompt's state captured
// from M, which the move then resumes to its first token in this process
// (the model loaded, as a serving runtime holds it) and the rebuild re-prefills.
// The rebuild: the same files put into an empty store and indexed (embedded
// with the store's default embedder), the same graph written. Both sides run
// on the same disk, synced as a user gets them.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

#include "bench_util.h"
#include "store_ops.h"
#include "vexfs/agent_bundle.h"
#include "vexfs/agent_resume.h"
#include "vexfs/db.h"
#include "vexfs/graph.h"
#include "vexfs/kv/capture.h"
#include "vexfs/kv/model.h"
#include "vexfs/kv/state_file.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::bench {
namespace {

using nlohmann::json;

struct Options {
  size_t files = 1000;
  size_t nodes = 5000;
  uint32_t kv_tokens = 2016;
  int reps = 5;
  std::vector<size_t> sizes = {1000, 10000, 100000};
  std::string dir = "/tmp/vexfs-agent-bench";
  std::string markdown;
  // With a model: its KV state is captured from the prompt (the rebuild's
  // re-prefill), and the move ends at the first token resumed from it.
  std::string model, prompt_file;
  int threads = 0;
};

std::unique_ptr<Db> MakeDb(const std::string& path, bool indexing) {
  DbOptions o = DefaultDbOptions();
  o.background_indexing = indexing;
  return CheckValue(Db::Create(path, o), "create " + path);
}

void PutTree(Db& db, size_t count, uint64_t seed) {
  std::vector<std::string> paths = TreePaths(count, 100);
  for (std::string& p : paths) p = "mem/" + p;
  PutFiles(&db.store(), paths, [seed](size_t i) { return TextContent(seed + i, 2048); }, 1000);
}

// `count` nodes in one thread: turns and tool calls linked in order, in
// batches of 500; the last turn covers the KV cache "ctx".
void WriteGraph(Db& db, size_t count, uint32_t kv_tokens) {
  for (size_t start = 0; start < count; start += 500) {
    GraphBatch batch;
    for (size_t i = start; i < std::min(count, start + 500); ++i) {
      NodeSpec spec{.kind = i % 3 == 2 ? "tool_call" : "turn", .text = TextContent(i, 160), .thread = "t1"};
      if (i + 1 == count) spec.span = KvSpan{.cache = "ctx", .start = 0, .end = kv_tokens, .cache_tokens = kv_tokens};
      batch.AddNode(std::move(spec));
    }
    Check(db.graph().Apply(batch).status(), "graph batch");
  }
  GraphBatch actions;
  actions.AddNode(NodeSpec{.kind = "pending_action", .text = "send the report", .key = "act-done"});
  actions.AddNode(NodeSpec{.kind = "pending_action", .text = "book the boat", .key = "act-open"});
  Check(db.graph().Apply(actions).status(), "actions");
}

std::string WriteKvState(const std::string& path, uint32_t tokens) {
  kv::StateBundle b;
  usxf::KvCacheInfo& info = b.info;
  info.arch = "qwen2";
  info.weights_fingerprint.fill(1);
  info.hparams_fingerprint.fill(2);
  info.tokenizer_fingerprint.fill(3);
  info.n_layers = 24;
  info.n_heads.assign(24, 14);
  info.n_kv_heads.assign(24, 2);
  info.k_head_dim.assign(24, 64);
  info.v_head_dim.assign(24, 64);
  info.attention = usxf::AttentionKind::kGQA;
  for (uint32_t i = 0; i < tokens; ++i) info.token_ids.push_back(1000 + i % 5000);
  info.block_size = 256;
  info.ComputeBlockHashes();
  b.kv.type = kv::CacheType::kF16;
  b.kv.n_tokens = tokens;
  b.kv.data = RandomContent(7, info.ElementCount() * 2);
  b.next_logits.assign(151936, 0.5f);
  Check(kv::WriteStateFile(path, b, nullptr), "write KV state");
  return path;
}

uint64_t FileSize(const std::string& path) { return std::filesystem::file_size(path); }

struct MoveResult {
  std::vector<double> export_s, import_s, resume_point_s, resume_s, total_s;
  uint64_t bundle_bytes = 0, objects = 0, object_bytes = 0, kv_bytes = 0;
  double search_ready_after_import_s = 0;
  double rebuild_put_s = 0, rebuild_graph_s = 0, rebuild_index_s = 0;
  double rebuild_prefill_s = 0;  // capture to the first token, with a model
  uint32_t kv_tokens = 0;
};

// The prompt's first `tokens` tokens captured from `model` into a state file
// with one recorded step. Returns the prefill alone (llama.cpp's decode of the
// prompt, as CaptureReport times it): the least a rebuild pays before its
// first token, without the capture's copying, hashing and writing.
double CaptureState(const kv::Model& model, const Options& o, const std::string& path, uint32_t* n_tokens) {
  kv::CaptureOptions c;
  c.tokens = CheckValue(model.Tokenize(ReadFile(o.prompt_file)), "tokenize the prompt");
  if (c.tokens.size() > o.kv_tokens) c.tokens.resize(o.kv_tokens);
  c.settings.threads = o.threads;
  c.reference_steps = 1;
  c.output_path = path;
  kv::CaptureReport r = CheckValue(kv::Capture(model, c), "capture");
  *n_tokens = r.n_tokens;
  return r.prefill_seconds;
}

MoveResult MeasureMove(const Options& o, const std::string& base) {
  MoveResult r;
  std::unique_ptr<kv::Model> model;
  const std::string kv = base + "/ctx.usxf";
  r.kv_tokens = o.kv_tokens;
  if (!o.model.empty()) {
    Progress("move: loading " + o.model + " and capturing the prompt");
    model = CheckValue(kv::Model::Load(o.model), "load the model");
    r.rebuild_prefill_s = CaptureState(*model, o, kv, &r.kv_tokens);
  } else {
    WriteKvState(kv, o.kv_tokens);
  }
  Progress("move: source with " + std::to_string(o.files) + " files, " + std::to_string(o.nodes) + " nodes");
  auto source = MakeDb(FreshDir(base, "source"), false);
  PutTree(*source, o.files, 1);
  WriteGraph(*source, o.nodes, r.kv_tokens);
  CheckValue(source->store().CreateSnapshot("s1", "", {}), "snapshot");
  const usxf::SigningKey key = CheckValue(usxf::SigningKey::Generate(), "key");
  const std::string ring = FreshDir(base, "keyring");
  Check(usxf::SavePublicKey(ring + "/agent.pub", key.public_key), "keyring");
  const usxf::Keyring keyring = CheckValue(usxf::Keyring::Load(ring), "keyring");
  for (int rep = 0; rep < o.reps; ++rep) {
    agent::ExportOptions e;
    e.kv = {{"ctx", kv}};
    e.signers = {&key};
    const std::string bundle = base + "/agent.usxf";
    double t0 = NowSeconds();
    auto exported = CheckValue(agent::ExportToPath(*source, e, bundle), "export");
    double t1 = NowSeconds();
    auto target = MakeDb(FreshDir(base, "target"), false);
    agent::ImportOptions i;
    i.keyring = &keyring;
    i.branch = "moved";
    double t2 = NowSeconds();
    CheckValue(agent::Import(*target, bundle, i), "import");
    double t3 = NowSeconds();
    GraphReadOptions read;
    read.branch = "moved";
    agent::ResumePoint point = CheckValue(agent::FindResumePoint(*target, read), "resume point");
    double t4 = NowSeconds();
    double t5 = t4;
    if (model) {  // the runtime has its model loaded, as a serving agent's does
      kv::RuntimeSettings settings;
      settings.threads = o.threads;
      // The state itself is unsigned here; the bundle that carried it was.
      CheckValue(agent::Resume(point, *model, settings, 1, nullptr), "resume");
      t5 = NowSeconds();
      r.resume_s.push_back(t5 - t4);
    }
    r.export_s.push_back(t1 - t0);
    r.import_s.push_back(t3 - t2);
    r.resume_point_s.push_back(t4 - t3);
    r.total_s.push_back((t1 - t0) + (t5 - t2));
    r.bundle_bytes = FileSize(bundle);
    r.objects = exported.manifest.objects;
    r.object_bytes = exported.manifest.object_bytes;
    r.kv_bytes = exported.kv_bytes;
    if (rep + 1 == o.reps) {
      double s0 = NowSeconds();
      Check(target->WaitIndexed(), "index after import");
      r.search_ready_after_import_s = NowSeconds() - s0;
    }
  }
  Progress("move: rebuilding on an empty store");
  auto rebuilt = MakeDb(FreshDir(base, "rebuilt"), false);
  double t0 = NowSeconds();
  PutTree(*rebuilt, o.files, 1);
  double t1 = NowSeconds();
  WriteGraph(*rebuilt, o.nodes, r.kv_tokens);
  double t2 = NowSeconds();
  Check(rebuilt->WaitIndexed(), "index the rebuilt store");
  double t3 = NowSeconds();
  r.rebuild_put_s = t1 - t0;
  r.rebuild_graph_s = t2 - t1;
  r.rebuild_index_s = t3 - t2;
  return r;
}

struct StepResult {
  size_t files = 0;
  uint64_t whole_bytes = 0, whole_objects = 0;
  std::vector<double> export_s, import_s;
  std::vector<uint64_t> objects, bytes;
};

// One changed file and one new turn, then a bundle since the last snapshot the
// target holds, `reps` times.
StepResult MeasureSteps(const Options& o, const std::string& base, size_t files) {
  StepResult r;
  r.files = files;
  Progress("steps: " + std::to_string(files) + " files");
  auto source = MakeDb(FreshDir(base, "step-source"), false);
  auto target = MakeDb(FreshDir(base, "step-target"), false);
  PutTree(*source, files, 2);
  WriteGraph(*source, 1000, o.kv_tokens);
  CheckValue(source->store().CreateSnapshot("v0", "", {}), "snapshot");
  agent::ExportOptions whole;
  auto exported = CheckValue(agent::ExportToPath(*source, whole, base + "/whole.usxf"), "whole export");
  r.whole_bytes = FileSize(base + "/whole.usxf");
  r.whole_objects = exported.manifest.objects;
  CheckValue(agent::Import(*target, base + "/whole.usxf", {}), "whole import");
  const std::vector<std::string> paths = TreePaths(files, 100);
  for (int rep = 1; rep <= o.reps; ++rep) {
    PutOne(&source->store(), "mem/" + paths[(rep * 7919) % files], TextContent(100000 + rep, 2048));
    GraphBatch turn;
    turn.AddNode(NodeSpec{.kind = "turn", .text = TextContent(200000 + rep, 160), .thread = "t1"});
    Check(source->graph().Apply(turn).status(), "new turn");
    CheckValue(source->store().CreateSnapshot("v" + std::to_string(rep), "", {}), "snapshot");
    agent::ExportOptions e;
    e.since = {"v" + std::to_string(rep - 1)};
    const std::string bundle = base + "/step.usxf";
    double t0 = NowSeconds();
    auto step = CheckValue(agent::ExportToPath(*source, e, bundle), "step export");
    double t1 = NowSeconds();
    CheckValue(agent::Import(*target, bundle, {}), "step import");
    double t2 = NowSeconds();
    r.export_s.push_back(t1 - t0);
    r.import_s.push_back(t2 - t1);
    r.objects.push_back(step.manifest.objects);
    r.bytes.push_back(FileSize(bundle));
  }
  return r;
}

double MedianU(const std::vector<uint64_t>& v) { return Median(std::vector<double>(v.begin(), v.end())); }

std::string Report(const Options& o, const MoveResult& m, const std::vector<StepResult>& steps, json* out) {
  const double move = Median(m.total_s);
  const double rebuild = m.rebuild_put_s + m.rebuild_graph_s + m.rebuild_index_s + m.rebuild_prefill_s;
  const bool with_model = !m.resume_s.empty();
  Table t({"step", "median (ms)", "bytes"});
  t.AddRow({"export (select, stream, sign)", Millis(Median(m.export_s)), Bytes(m.bundle_bytes)});
  t.AddRow({"import (verify, prove, commit)", Millis(Median(m.import_s)),
            std::to_string(m.objects) + " objects, " + Bytes(m.object_bytes) + " + KV " + Bytes(m.kv_bytes)});
  t.AddRow({"find the resume point", Millis(Median(m.resume_point_s)), ""});
  if (with_model) {
    t.AddRow({"resume: verify, restore, first token (model loaded)", Millis(Median(m.resume_s)),
              std::to_string(m.kv_tokens) + " tokens"});
  }
  t.AddRow({with_model ? "move, export to first token" : "move, in all", Millis(move), ""});
  Table r({"rebuild on the target", "seconds"});
  r.AddRow({"put the files", Fixed(m.rebuild_put_s, 2)});
  r.AddRow({"write the graph", Fixed(m.rebuild_graph_s, 2)});
  r.AddRow({"embed and index the files and nodes", Fixed(m.rebuild_index_s, 2)});
  if (with_model) r.AddRow({"re-prefill the prompt (the prefill alone)", Fixed(m.rebuild_prefill_s, 2)});
  r.AddRow({with_model ? "rebuild, in all" : "rebuild, in all (re-prefill not included)", Fixed(rebuild, 2)});
  r.AddRow({"rebuild / move", Ratio(rebuild, move)});
  Table s({"files", "whole bundle", "step objects", "step bytes", "step export (ms)", "step import (ms)"});
  for (const StepResult& st : steps) {
    s.AddRow({std::to_string(st.files), Bytes(st.whole_bytes) + ", " + std::to_string(st.whole_objects) + " objects",
              Fixed(MedianU(st.objects), 0), Bytes(static_cast<uint64_t>(MedianU(st.bytes))),
              Millis(Median(st.export_s)), Millis(Median(st.import_s))});
  }
  (*out)["move"] = {{"files", o.files}, {"nodes", o.nodes}, {"kv_tokens", o.kv_tokens},
                    {"export_s", m.export_s}, {"import_s", m.import_s}, {"resume_point_s", m.resume_point_s},
                    {"total_s", m.total_s}, {"bundle_bytes", m.bundle_bytes}, {"objects", m.objects},
                    {"object_bytes", m.object_bytes}, {"kv_bytes", m.kv_bytes},
                    {"search_ready_after_import_s", m.search_ready_after_import_s},
                    {"rebuild_put_s", m.rebuild_put_s}, {"rebuild_graph_s", m.rebuild_graph_s},
                    {"rebuild_index_s", m.rebuild_index_s}, {"rebuild_prefill_s", m.rebuild_prefill_s},
                    {"resume_s", m.resume_s}, {"model", o.model}};
  json js = json::array();
  for (const StepResult& st : steps) {
    js.push_back({{"files", st.files}, {"whole_bytes", st.whole_bytes}, {"whole_objects", st.whole_objects},
                  {"export_s", st.export_s}, {"import_s", st.import_s}, {"objects", st.objects}, {"bytes", st.bytes}});
  }
  (*out)["steps"] = js;
  std::cout << t.Text() << "\n" << r.Text() << "\n" << s.Text();
  return t.Markdown() + "\n" + r.Markdown() + "\n" + s.Markdown() +
         "\nSearch ready on the target after the import (the files re-embedded in the background): " +
         Fixed(m.search_ready_after_import_s, 2) + " s.\n";
}

}  // namespace
}  // namespace vexfs::bench

int main(int argc, char** argv) {
  using namespace vexfs::bench;
  Options o;
  CLI::App app{"Moving a whole agent as one bundle against rebuilding it; incremental bundles as stores grow"};
  app.add_option("--files", o.files, "memory files of the moved agent");
  app.add_option("--nodes", o.nodes, "graph nodes of the moved agent");
  app.add_option("--kv-tokens", o.kv_tokens, "tokens of its KV state (Qwen2.5-0.5B shape)");
  app.add_option("--reps", o.reps, "repetitions (medians)");
  app.add_option("--sizes", o.sizes, "store sizes for the incremental steps")->delimiter(',');
  app.add_option("--dir", o.dir, "scratch directory");
  app.add_option("--markdown", o.markdown, "write the results section to this file");
  app.add_option("--model", o.model, "GGUF model: capture its KV state of the prompt and resume to a token");
  app.add_option("--prompt-file", o.prompt_file, "the prompt (with --model)");
  app.add_option("--threads", o.threads, "llama.cpp threads (0: one per core)");
  CLI11_PARSE(app, argc, argv);
  if (!o.model.empty() && o.prompt_file.empty()) {
    std::cerr << "agent_bench: --model needs --prompt-file" << std::endl;
    return 2;
  }
  const std::string base = FreshDir(o.dir, "run");
  json out = {{"bench", "agent"}};
  MoveResult move = MeasureMove(o, base);
  std::vector<StepResult> steps;
  for (size_t files : o.sizes) steps.push_back(MeasureSteps(o, base, files));
  std::string markdown = Report(o, move, steps, &out);
  Emit(out, markdown, o.markdown);
  RemoveTree(base);
  return 0;
}
