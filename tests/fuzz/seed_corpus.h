// Small valid USXF files that start the reader fuzzer off inside the format (every
// section kind, each encoding, zstd, a sealed and an unsealed file, a signature, a
// Merkle tree of several chunks). The regression test replays the same files, so
// the fuzz body is known to accept them.
#ifndef VEXFS_TESTS_FUZZ_SEED_CORPUS_H_
#define VEXFS_TESTS_FUZZ_SEED_CORPUS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vexfs/usxf_kv.h"

namespace vexfs::usxf::fuzz {

// (name, file bytes) pairs; names are identifiers ("kv_cache"). The signed file
// uses a fresh key each call, so its bytes differ between calls. Aborts if the
// writer refuses one of them: a seed that does not write is a broken writer.
std::vector<std::pair<std::string, std::string>> MakeSeedCorpus();

// A small valid KV cache description: two GQA layers (4 heads, 2 KV heads, head
// dim `head_dim`), six tokens, block size 4, block hashes computed.
KvCacheInfo SmallKv(uint32_t head_dim = 8);

}  // namespace vexfs::usxf::fuzz

#endif  // VEXFS_TESTS_FUZZ_SEED_CORPUS_H_
