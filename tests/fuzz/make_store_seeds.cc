// Writes the store-record fuzzer's seeds (StoreRecordSeeds) into a directory,
// one file each.
// Usage: make_store_seeds DIR
#include "fuzz/store_records_fuzz_body.h"
#include "fuzz/seed_files.h"

int main(int argc, char** argv) {
  return vexfs::fuzz::WriteNumberedSeeds(argc, argv, "make_store_seeds",
                                         vexfs::internal::fuzz::StoreRecordSeeds());
}
