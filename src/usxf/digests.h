// The digests of a USXF file (docs/usxf.md, "Digests"): the fast per-section
// XXH3-128 checksum, and the SHA-256 Merkle tree that seals a file:
//   leaf(chunk)        = SHA-256(0x00 || chunk)            chunks of 2^chunk_log2 bytes
//   node(l, r)         = SHA-256(0x01 || l || r)
//   MTH(d[0..n))       = RFC 6962's tree hash: d[0] for n = 1, SHA-256("") for n = 0,
//                        else node(MTH(d[0..k)), MTH(d[k..n))), k = largest power of 2 < n
//   section digest     = SHA-256(0x02 || u64le(stored_length) || MTH(leaves))
//   header digest      = SHA-256(0x03 || preamble (80 bytes) || header)
//   root               = MTH([header digest, section digest 0, ..., section digest n-1])
#ifndef VEXFS_USXF_DIGESTS_H_
#define VEXFS_USXF_DIGESTS_H_

#include <xxhash.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/sha256.h"
#include "vexfs/usxf.h"

namespace vexfs::usxf {

Digest ChunkLeaf(std::string_view chunk);
Digest MerkleTreeHash(const std::vector<Digest>& d);
Digest SectionDigest(uint64_t stored_length, const std::vector<Digest>& leaves);
Digest HeaderDigest(std::string_view preamble, std::string_view header);
Digest RootOf(const Digest& header_digest, const std::vector<Digest>& section_digests);

// Digests one section's stored bytes as they stream past, in any piece sizes.
class SectionHasher {
 public:
  SectionHasher(bool sealed, uint32_t chunk_log2);
  ~SectionHasher();
  SectionHasher(const SectionHasher&) = delete;
  SectionHasher& operator=(const SectionHasher&) = delete;

  void Update(std::string_view bytes);
  Xxh128 FinishChecksum();
  Digest FinishDigest();  // sealed only; call once, after FinishChecksum

 private:
  bool sealed_;
  uint64_t chunk_size_;
  uint64_t length_ = 0;
  XXH3_state_t* xxh_;
  Sha256 chunk_hash_;       // the open chunk, prefixed with 0x00
  uint64_t chunk_fill_ = 0;
  std::vector<Digest> leaves_;
};

Xxh128 ChecksumOf(std::string_view bytes);

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_DIGESTS_H_
