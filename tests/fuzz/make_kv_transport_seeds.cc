// Writes the transfer-protocol fuzzer's seeds (KvTransportSeeds) into a
// directory, one file each.
// Usage: make_kv_transport_seeds DIR
#include "fuzz/kv_transport_fuzz_body.h"
#include "fuzz/seed_files.h"

int main(int argc, char** argv) {
  return vexfs::fuzz::WriteNumberedSeeds(argc, argv, "make_kv_transport_seeds",
                                         vexfs::kv::fuzz::KvTransportSeeds());
}
