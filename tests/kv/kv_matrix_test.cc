// Cross-configuration restores: a state captured with one cache configuration is
// restored into contexts with others (cache types f32/f16/bf16/q8_0, V transposed
// or not, several sequences). Every restore must load exactly what was built for
// the target; values must stay within the target type's rounding; same
// configurations must be bit-exact; and the restored state must be far closer to
// the source than a corrupted one. Each pair prints its measured errors
// ("MATRIX ..." lines; docs/kv.md quotes them).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "kv/kv_test_util.h"
#include "test_util.h"
#include "vexfs/kv/capture.h"
#include "vexfs/kv/validate.h"

namespace vexfs::kv {
namespace {

struct Config {
  const char* name;
  CacheType k, v;
  bool flash_attn;
  uint32_t seqs = 1;
  int32_t seq = 0;

  RuntimeSettings Settings() const {
    RuntimeSettings s = test::TestSettings(k, v, flash_attn);
    s.n_seq_max = seqs;
    s.seq_id = seq;
    return s;
  }
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

const Config kSources[] = {
    {"f16", CacheType::kF16, CacheType::kF16, true},
    {"f32-vtrans", CacheType::kF32, CacheType::kF32, false},
    {"bf16", CacheType::kBF16, CacheType::kBF16, true},
    {"q8_0", CacheType::kQ8_0, CacheType::kQ8_0, true},
};

const Config kTargets[] = {
    {"f16", CacheType::kF16, CacheType::kF16, true},
    {"f32-vtrans", CacheType::kF32, CacheType::kF32, false},
    {"bf16", CacheType::kBF16, CacheType::kBF16, true},
    {"q8_0", CacheType::kQ8_0, CacheType::kQ8_0, true},
    {"q8_0K-f16V-vtrans", CacheType::kQ8_0, CacheType::kF16, false},
    {"f16-3seqs-seq1", CacheType::kF16, CacheType::kF16, true, 3, 1},
};

// Relative rounding of a cache type (half an ulp of the value); q8_0 rounds to
// half a step of max|block|/127 of the rotated values, whose size is bounded by
// sqrt(rotation) times the largest plain value.
double RoundingBound(CacheType t, double max_abs, uint32_t rotation) {
  switch (t) {
    case CacheType::kF32: return max_abs * 0x1p-24;
    case CacheType::kF16: return max_abs * 0x1p-11;
    case CacheType::kBF16: return max_abs * 0x1p-8;
    case CacheType::kQ8_0: return max_abs * std::sqrt(double(rotation)) / 127.0;
  }
  return 0;
}

double MaxAbs(const CanonicalKv& kv) {
  double m = 0;
  for (float x : DecodeToF32(kv.type, kv.data)) m = std::max(m, double(std::fabs(x)));
  return m;
}

class KvMatrixTest : public ::testing::TestWithParam<Config> {};

TEST_P(KvMatrixTest, RestoresIntoEveryTargetConfiguration) {
  const Config& src = GetParam();
  ASSIGN_OR_FAIL(auto model, Model::Load(test::TinyModelPath(7)));
  ASSIGN_OR_FAIL(std::vector<int32_t> tokens, model->Tokenize(test::PromptText()));
  vexfs::test::TempDir dir;
  CaptureOptions o;
  o.tokens = tokens;
  o.settings = src.Settings();
  o.reference_steps = 32;
  o.output_path = dir.Sub("state.usxf");
  ASSERT_OK(Capture(*model, o).status());
  ASSIGN_OR_FAIL(StateBundle b, ReadStateFile(o.output_path, nullptr));
  // Plain (un-rotated) values bound the rotated ones' rounding.
  const double max_abs = MaxAbs(b.kv) * (b.kv.k_rotation ? 2.0 : 1.0);

  for (const Config& tgt : kTargets) {
    SCOPED_TRACE(std::string(src.name) + " -> " + tgt.name);
    ValidateOptions v;
    v.target = tgt.Settings();
    v.horizon = 32;
    v.probes = 32;
    ASSIGN_OR_FAIL(ValidationReport r, Validate(*model, b, v));
    std::printf("MATRIX %s -> %s: verdict %s, tensor max|d| %.6g, re-prefill agree %u/%u, "
                "source agree %u/%u, aligned max|dlogit| %.4g (vs source %.4g), control %.4g\n",
                src.name, tgt.name, r.verdict.c_str(), r.tensors.max_abs_diff_vs_source,
                r.vs_reprefill.top1_agreement, r.vs_reprefill.steps, r.vs_source.top1_agreement,
                r.vs_source.steps, r.vs_reprefill.max_abs_logit_diff_aligned,
                r.vs_source.max_abs_logit_diff_aligned, r.control.max_abs_logit_diff);
    EXPECT_TRUE(r.tensors.readback_equals_loaded);
    EXPECT_TRUE(r.control.changed);
    const bool same_cache = tgt.k == src.k && tgt.v == src.v;
    if (same_cache) {
      EXPECT_TRUE(r.tensors.bit_exact_vs_source);
      EXPECT_EQ(r.probes.exact, r.probes.count);
    }
    if (same_cache && tgt.flash_attn == src.flash_attn) {
      EXPECT_EQ(r.verdict, "exact");
    }
    const bool widening = tgt.k == CacheType::kF32 && tgt.v == CacheType::kF32;
    if (widening && src.k != CacheType::kQ8_0) {
      EXPECT_EQ(r.tensors.max_abs_diff_vs_source, 0.0);
    }
    // Values stay within the wider of the two types' rounding (K and V alike).
    const double bound = std::max(RoundingBound(tgt.k, max_abs, 64), RoundingBound(tgt.v, max_abs, 64)) +
                         (src.k == CacheType::kQ8_0 ? 1e-5 * max_abs : 0.0);
    EXPECT_LE(r.tensors.max_abs_diff_vs_source, bound);
    // While the continuations read the same tokens, the restored state is much
    // closer to the source than a corrupted cache is.
    EXPECT_LT(r.vs_source.max_abs_logit_diff_aligned, 0.25 * r.control.max_abs_logit_diff);
  }
}

INSTANTIATE_TEST_SUITE_P(Sources, KvMatrixTest, ::testing::ValuesIn(kSources),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
}  // namespace vexfs::kv
