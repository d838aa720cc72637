// Writes the agent bundle fuzzer's seeds (BundlePartSeeds) into a directory,
// one file each.
// Usage: make_agent_bundle_seeds DIR
#include "fuzz/agent_bundle_fuzz_body.h"
#include "fuzz/seed_files.h"

int main(int argc, char** argv) {
  return vexfs::fuzz::WriteNumberedSeeds(argc, argv, "make_agent_bundle_seeds",
                                         vexfs::agent::fuzz::BundlePartSeeds());
}
