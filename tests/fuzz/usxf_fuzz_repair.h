// Recomputes the checksums and digests of a mutated USXF file in place, for the
// fuzzer's custom mutator. Every part of a USXF file is covered by XXH3 or SHA-256,
// so a random byte change is almost always caught by the first checksum and the
// code behind it (header rules, KV validation, decoding) would never run. Repairing
// them is what an attacker without a signing key can do too, so it tests what a
// hostile file can reach.
#ifndef VEXFS_TESTS_FUZZ_USXF_FUZZ_REPAIR_H_
#define VEXFS_TESTS_FUZZ_USXF_FUZZ_REPAIR_H_

#include <cstddef>
#include <string>

namespace vexfs::usxf::fuzz {

// In order, as far as the bytes allow: the raw length of zstd-compressed blobs (to
// what their frame declares), the chained block hashes of KV sections (when the
// header holds what they are computed from and the field already has the right
// length), the header checksum, the preamble checksum, the footer's section
// checksums, section digests, header digest and root (when the header decodes and
// the footer has the right shape), and the footer checksum. Signatures are left
// alone. The size never changes; bytes it cannot make sense of stay as they are.
void RepairChecksums(char* data, size_t size);
inline void RepairChecksums(std::string* file) { RepairChecksums(file->data(), file->size()); }

}  // namespace vexfs::usxf::fuzz

#endif  // VEXFS_TESTS_FUZZ_USXF_FUZZ_REPAIR_H_
