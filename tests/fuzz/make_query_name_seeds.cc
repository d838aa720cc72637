// Writes the search-directory name fuzzer's seeds (QueryNameSeeds) into a
// directory, one file each.
// Usage: make_query_name_seeds DIR
#include "fuzz/query_name_fuzz_body.h"
#include "fuzz/seed_files.h"

int main(int argc, char** argv) {
  return vexfs::fuzz::WriteNumberedSeeds(argc, argv, "make_query_name_seeds",
                                         vexfs::fuse::fuzz::QueryNameSeeds());
}
