// What the graph record fuzzer does with every input, shared with the
// regression test that replays seeds and saved inputs
// (graph_records_fuzz_regression_test.cc). The decoders are the memory graph's:
// record keys, node and edge values (src/graph/records.h) and the hash tree's
// leaves, inner nodes and roots (src/graph/trie/trie_objects.h). Their bytes
// come from a store's tables and objects, which bundles and remotes bring from
// elsewhere, so they are outside input.
#ifndef VEXFS_TESTS_FUZZ_GRAPH_RECORDS_FUZZ_BODY_H_
#define VEXFS_TESTS_FUZZ_GRAPH_RECORDS_FUZZ_BODY_H_

#include <string>
#include <string_view>
#include <vector>

namespace vexfs::graph::fuzz {

// The first byte picks the decoder (0 key, 1 node, 2 edge, 3 leaf, 4 inner
// node, 5 root; other values modulo 6), the rest is its input; for inner nodes
// and roots the byte after it is the number of references (each 32 bytes from
// the input's end). A refusal must be kCorruption; what a decoder accepts must
// encode and decode to the same value. Returns "" when all holds, else what broke.
std::string CheckGraphRecord(std::string_view input);

// Whether the decoder `input` picks accepts it (what every seed must do).
bool GraphRecordDecodes(std::string_view input);

// Well-formed inputs of each kind.
std::vector<std::string> GraphRecordSeeds();

}  // namespace vexfs::graph::fuzz

#endif  // VEXFS_TESTS_FUZZ_GRAPH_RECORDS_FUZZ_BODY_H_
