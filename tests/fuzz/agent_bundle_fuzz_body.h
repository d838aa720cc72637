// What the agent bundle fuzzer does with every input, shared with the
// regression test that replays seeds and saved inputs
// (agent_bundle_fuzz_regression_test.cc). The decoders are a bundle's own,
// over bytes from another host: its manifest (JSON) and its object packs
// (src/agent/manifest.h, src/agent/object_pack.h). The USXF container around
// them has its own fuzzer.
#ifndef VEXFS_TESTS_FUZZ_AGENT_BUNDLE_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_AGENT_BUNDLE_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <vector>

namespace vexfs::agent::fuzz {

// The first byte picks the decoder (even: the manifest, odd: an object pack),
// the rest is its input. A refusal must be kCorruption (or kNotSupported for a
// manifest of another format); what a decoder accepts must encode and decode
// to the same value. Returns "" when all holds, else what broke.
std::string CheckBundlePart(std::string_view input);

// Whether the decoder `input` picks accepts it (what every seed must do).
bool BundlePartDecodes(std::string_view input);

// Well-formed inputs of each kind.
std::vector<std::string> BundlePartSeeds();

}  // namespace vexfs::agent::fuzz

#endif  // VEXFS_TESTS_FUZZ_AGENT_BUNDLE_FUZZ_BODY_H_
