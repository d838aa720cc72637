// What the KV state fuzzer does with every input, shared with the regression test
// that replays seeds and saved inputs (kv_state_fuzz_regression_test.cc). A state
// file arrives from another host (`vexfs kv send`) or a shared directory, so every
// byte of it is outside input; the reader is src/kv/state_file's decoding layer,
// which needs no llama.cpp runtime.
#ifndef VEXFS_TESTS_FUZZ_KV_STATE_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_KV_STATE_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vexfs::kv::fuzz {

// An input that starts with the USXF magic is a whole state file, decoded with
// DecodeStateFile; one that starts with "vexfs-hf\n" is a KV cache another
// runtime exported (manifest and cache each after a 4-byte little-endian length,
// then the next-token logits), decoded with BundleFromHf (hf_layout.h), whose
// cache must convert back to the same bytes; any other input is the JSON text of
// a kv.reference section, decoded with DecodeReference (the direct route to the
// JSON reader). What
// decodes must be consistent: the KV info validates and the cache holds exactly
// the bytes it describes, and a reference encodes to text that decodes to the
// same reference and encodes the same again. A refused reference must be
// kCorruption naming the section. Returns "" when all holds, else what broke;
// an exception escapes (and aborts the fuzzer), memory errors are left to the
// sanitizers. `decoded` (when not null) says whether the input decoded, so that
// a test can tell a checked input from a refused one.
std::string CheckStateInput(std::string_view bytes, bool* decoded = nullptr);

// Valid inputs as (name, bytes): state files written by WriteStateFile (f16, q8_0
// and rotated f32 caches, with and without a reference), reference texts and HF
// exports.
// Every one decodes. Aborts if the writer refuses one.
std::vector<std::pair<std::string, std::string>> KvStateSeeds();

}  // namespace vexfs::kv::fuzz

#endif  // VEXFS_TESTS_FUZZ_KV_STATE_FUZZ_BODY_H_
