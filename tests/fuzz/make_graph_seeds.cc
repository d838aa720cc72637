// Writes the graph record fuzzer's seeds (GraphRecordSeeds) into a directory,
// one file each.
// Usage: make_graph_seeds DIR
#include "fuzz/graph_records_fuzz_body.h"
#include "fuzz/seed_files.h"

int main(int argc, char** argv) {
  return vexfs::fuzz::WriteNumberedSeeds(argc, argv, "make_graph_seeds",
                                         vexfs::graph::fuzz::GraphRecordSeeds());
}
