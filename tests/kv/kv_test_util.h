// Shared support for the KV tests that run llama.cpp: tiny random-weight Qwen2
// models made once per build directory (every test process reuses them), a real
// English prompt, and helpers to capture and continue.
#ifndef VEXFS_TESTS_KV_KV_TEST_UTIL_H_
#define VEXFS_TESTS_KV_KV_TEST_UTIL_H_

#include <string>
#include <vector>

#include "vexfs/kv/model.h"
#include "vexfs/kv/model_context.h"
#include "vexfs/status.h"

namespace vexfs::kv::test {

// A tiny Qwen2 model (2 layers, 4 heads, 2 KV heads, head dim 64) with weights
// of `seed`, built on first use. `tokenizer_variant` 1 swaps the first two BPE
// merges of the real Qwen2 tokenizer: same weights, different tokenizer.
std::string TinyModelPath(uint64_t seed, int tokenizer_variant = 0);

// 180 tokens of ordinary English (Qwen2 tokenizer).
const std::string& PromptText();

// Settings for tests: one thread (ctest runs tests side by side on two cores,
// and ggml's spinning thread barriers collapse when threads outnumber cores).
RuntimeSettings TestSettings(CacheType k = CacheType::kF16, CacheType v = CacheType::kF16,
                             bool flash_attn = true);

}  // namespace vexfs::kv::test

#endif  // VEXFS_TESTS_KV_KV_TEST_UTIL_H_
