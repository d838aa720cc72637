// The KV-cache classes and functions of vexfs.kv, bound under Kv*/kv_* names in
// vexfs._vexfs (python/vexfs/kv.py gives them their short names). Every call
// that touches llama.cpp or the disk runs without the GIL.
#include "python/kv_module.h"

#include <pybind11/stl.h>

#include <memory>
#include <mutex>

#include "python/errors.h"
#include "python/kv_calls.h"
#include "python/py_store.h"
#include "vexfs/kv/model_init.h"

namespace vexfs::python {
namespace {

namespace py = pybind11;
using py::arg;

// A loaded model and the lock that keeps its calls one at a time, as the KV
// library requires of a Model (Python threads could otherwise overlap them).
// The lock is taken with the GIL released, so a thread waiting for it never
// holds up the one that has it.
struct LockedModel {
  std::unique_ptr<kv::Model> model;
  std::mutex mu;
};

// Runs `call(model)` without the GIL and with the model's lock.
template <typename Call>
auto WithModel(LockedModel& m, Call&& call) {
  return WithoutGil([&] {
    std::lock_guard<std::mutex> lock(m.mu);
    return call(*m.model);
  });
}

void InitModel(const std::string& output, const std::string& shape, uint64_t seed, float stdev,
               bool f32_weights, const std::optional<std::string>& vocab, const std::string& arch) {
  kv::ModelInitOptions o;
  o.shape = Take(kv::ParseModelShape(shape));
  o.arch = arch;
  o.seed = seed;
  o.stdev = stdev;
  o.f16_weights = !f32_weights;
  o.vocab_path = vocab.value_or("");
  o.output_path = output;
  Check(WithoutGil([&] { return kv::InitRandomModel(o); }));
}

KvContextArgs ContextOf(const std::string& k_type, const std::string& v_type, bool flash_attn,
                        int threads) {
  return {k_type, v_type, flash_attn, threads};
}

void BindModel(py::module_& m) {
  py::class_<LockedModel>(m, "KvModel", "A GGUF model loaded into llama.cpp (CPU) for KV-cache work.")
      .def_static(
          "load",
          [](const std::string& path) {
            auto model = Take(WithoutGil([&] { return kv::Model::Load(path); }));
            auto locked = std::make_unique<LockedModel>();
            locked->model = std::move(model);
            return locked;
          },
          arg("path"),
          "Loads and fingerprints a GGUF model. Raises NotFoundError, CorruptionError,\n"
          "NotSupportedError (an architecture whose cache is not plain per-layer K/V).")
      .def_property_readonly("path", [](const LockedModel& m) { return m.model->path(); })
      .def_property_readonly("arch", [](const LockedModel& m) { return m.model->fingerprints().arch; })
      .def_property_readonly("n_layers", [](const LockedModel& m) { return m.model->shape().n_layers; })
      .def_property_readonly("n_heads", [](const LockedModel& m) { return m.model->shape().n_heads; })
      .def_property_readonly("n_kv_heads", [](const LockedModel& m) { return m.model->shape().n_kv_heads; })
      .def_property_readonly("head_dim", [](const LockedModel& m) { return m.model->shape().k_head_dim; })
      .def_property_readonly("n_vocab", [](const LockedModel& m) { return m.model->shape().n_vocab; })
      .def(
          "tokenize",
          [](LockedModel& m, const std::string& text) {
            return Take(WithModel(m, [&](const kv::Model& model) { return model.Tokenize(text); }));
          },
          arg("text"), "Token ids of `text` (with BOS when the model asks for one).")
      .def(
          "detokenize",
          [](LockedModel& m, const std::vector<int32_t>& tokens) {
            return WithModel(m, [&](const kv::Model& model) { return model.Detokenize(tokens); });
          },
          arg("tokens"), "The text of `tokens`.");
}

void BindReports(py::module_& m) {
  py::class_<kv::CaptureReport>(m, "KvCaptureReport", "What capture() wrote.")
      .def_readonly("n_tokens", &kv::CaptureReport::n_tokens)
      .def_property_readonly("cache_type", [](const kv::CaptureReport& r) { return kv::CacheTypeName(r.type); })
      .def_readonly("kv_bytes", &kv::CaptureReport::kv_bytes)
      .def_readonly("file_bytes", &kv::CaptureReport::file_bytes)
      .def_readonly("prefill_seconds", &kv::CaptureReport::prefill_seconds)
      .def_readonly("capture_seconds", &kv::CaptureReport::capture_seconds)
      .def_readonly("write_seconds", &kv::CaptureReport::write_seconds)
      .def_readonly("reference_tokens", &kv::CaptureReport::reference_tokens,
                    "The source's own greedy continuation, recorded for verify().");
  py::class_<KvGeneration>(m, "KvGeneration", "What restore() generated from the restored cache.")
      .def_readonly("restored_tokens", &KvGeneration::restored_tokens)
      .def_readonly("tokens", &KvGeneration::tokens)
      .def_readonly("text", &KvGeneration::text)
      .def_readonly("rebuild_seconds", &KvGeneration::rebuild_seconds)
      .def_readonly("load_seconds", &KvGeneration::load_seconds);
}

void BindValidation(py::module_& m) {
  using kv::ContinuationCheck;
  py::class_<kv::TensorCheck>(m, "KvTensorCheck", "The restored cache, read back, against what was loaded and the source.")
      .def_readonly("readback_equals_loaded", &kv::TensorCheck::readback_equals_loaded)
      .def_readonly("same_type_as_source", &kv::TensorCheck::same_type_as_source)
      .def_readonly("bit_exact_vs_source", &kv::TensorCheck::bit_exact_vs_source)
      .def_readonly("max_abs_diff_vs_source", &kv::TensorCheck::max_abs_diff_vs_source)
      .def_readonly("layers", &kv::TensorCheck::layers)
      .def_readonly("layers_equal", &kv::TensorCheck::layers_equal);
  py::class_<ContinuationCheck>(m, "KvContinuationCheck", "Greedy continuation from the restored cache against a reference.")
      .def_readonly("available", &ContinuationCheck::available)
      .def_readonly("steps", &ContinuationCheck::steps)
      .def_readonly("tokens_equal", &ContinuationCheck::tokens_equal)
      .def_readonly("first_divergence", &ContinuationCheck::first_divergence)
      .def_readonly("top1_agreement", &ContinuationCheck::top1_agreement)
      .def_readonly("logits_bit_exact", &ContinuationCheck::logits_bit_exact)
      .def_readonly("max_abs_logit_diff", &ContinuationCheck::max_abs_logit_diff)
      .def_readonly("max_abs_logit_diff_aligned", &ContinuationCheck::max_abs_logit_diff_aligned);
  py::class_<kv::ControlCheck>(m, "KvControlCheck", "The corrupted-cache control: it must change the logits.")
      .def_readonly("changed", &kv::ControlCheck::changed)
      .def_readonly("max_abs_logit_diff", &kv::ControlCheck::max_abs_logit_diff)
      .def_readonly("first_divergence", &kv::ControlCheck::first_divergence);
  py::class_<kv::ValidationReport>(m, "KvValidationReport", "The causal check of a state (docs/kv.md, \"Verification\").")
      .def_readonly("verdict", &kv::ValidationReport::verdict,
                    "'exact', 'equivalent', 'diverged', 'failed' or 'inconclusive'.")
      .def_property_readonly("passed", &kv::ValidationReport::passed)
      .def_readonly("n_tokens", &kv::ValidationReport::n_tokens)
      .def_readonly("horizon", &kv::ValidationReport::horizon)
      .def_readonly("tensors", &kv::ValidationReport::tensors)
      .def_readonly("vs_reprefill", &kv::ValidationReport::vs_reprefill)
      .def_readonly("vs_source", &kv::ValidationReport::vs_source)
      .def_readonly("control", &kv::ValidationReport::control)
      .def_readonly("next_logits_equal_reprefill", &kv::ValidationReport::next_logits_equal_reprefill)
      .def_readonly("restore_seconds", &kv::ValidationReport::restore_seconds)
      .def_readonly("reprefill_seconds", &kv::ValidationReport::reprefill_seconds)
      .def_readonly("restored_tokens", &kv::ValidationReport::restored_tokens);
}

void BindCalls(py::module_& m) {
  m.def("kv_init_model", &InitModel, arg("output"), py::kw_only(), arg("shape") = "tiny",
        arg("seed") = 1, arg("stdev") = 0.2f, arg("f32_weights") = false, arg("vocab") = py::none(),
        arg("arch") = "qwen2",
        "Builds a random-weight model with a real tokenizer (tests, demos) and writes it to\n"
        "`output`. shape: 'tiny', 'qwen2.5-0.5b' or 'L,H,KV,D,FFN'.");
  m.def(
      "kv_capture",
      [](LockedModel& model, const std::string& output, std::optional<std::string> prompt,
         std::optional<std::vector<int32_t>> tokens, uint32_t reference_steps, uint32_t block_size,
         std::optional<std::string> sign_key, std::string k_type, std::string v_type,
         bool flash_attn, int threads) {
        KvCaptureArgs a{std::move(prompt), std::move(tokens), output, reference_steps, block_size,
                        sign_key.value_or(""), ContextOf(k_type, v_type, flash_attn, threads)};
        return Take(WithModel(model, [&](const kv::Model& m) { return CaptureState(m, a); }));
      },
      arg("model"), arg("output"), py::kw_only(), arg("prompt") = py::none(),
      arg("tokens") = py::none(), arg("reference_steps") = 64, arg("block_size") = 16,
      arg("sign_key") = py::none(), arg("k_type") = "f16", arg("v_type") = "f16",
      arg("flash_attn") = true, arg("threads") = 0,
      "Prefills `prompt` (text) or `tokens` in a fresh context and writes its KV cache as a\n"
      "USXF state file, signed with the Ed25519 key file `sign_key` when given.");
  m.def(
      "kv_restore",
      [](LockedModel& model, const std::string& state, uint32_t generate,
         std::optional<std::string> keyring, std::string k_type, std::string v_type,
         bool flash_attn, int threads) {
        KvContextArgs c = ContextOf(k_type, v_type, flash_attn, threads);
        return Take(WithModel(model, [&](const kv::Model& m) {
          return RestoreState(m, state, generate, keyring.value_or(""), c);
        }));
      },
      arg("model"), arg("state"), py::kw_only(), arg("generate") = 32, arg("keyring") = py::none(),
      arg("k_type") = "f16", arg("v_type") = "f16", arg("flash_attn") = true, arg("threads") = 0,
      "Verifies a state file (and its signature, against the keyring directory's *.pub\n"
      "keys, when given), checks it belongs to `model`, loads it into a fresh context and\n"
      "generates `generate` tokens greedily without re-reading the prompt.");
  m.def(
      "kv_verify",
      [](LockedModel& model, const std::string& state, uint32_t horizon, uint32_t probes,
         std::optional<std::string> keyring, std::string k_type, std::string v_type,
         bool flash_attn, int threads) {
        KvContextArgs c = ContextOf(k_type, v_type, flash_attn, threads);
        return Take(WithModel(model, [&](const kv::Model& m) {
          return VerifyState(m, state, horizon, probes, keyring.value_or(""), c);
        }));
      },
      arg("model"), arg("state"), py::kw_only(), arg("horizon") = 64, arg("probes") = 64,
      arg("keyring") = py::none(), arg("k_type") = "f16", arg("v_type") = "f16",
      arg("flash_attn") = true, arg("threads") = 0,
      "The causal check of a state: restore into a fresh context, read back, probe, continue\n"
      "against the target's own re-prefill and the source's record, corrupted control.");
}

}  // namespace

void BindKv(py::module_& m) {
  BindModel(m);
  BindReports(m);
  BindValidation(m);
  BindCalls(m);
}

}  // namespace vexfs::python
