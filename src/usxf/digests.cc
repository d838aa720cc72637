// SHA-256 Merkle tree and XXH3-128 checksums of USXF sections (see digests.h).
#include "usxf/digests.h"

#include <cstdlib>

#include "usxf/le.h"

// Debian's libxxhash exports variants that pick AVX2 or AVX-512 at run time; the
// plain entry points are built for SSE2 only, about 30% slower here.
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#define VEXFS_XXH3_128 XXH3_128bits_dispatch
#define VEXFS_XXH3_128_UPDATE XXH3_128bits_update_dispatch
#else
#define VEXFS_XXH3_128 XXH3_128bits
#define VEXFS_XXH3_128_UPDATE XXH3_128bits_update
#endif

namespace vexfs::usxf {
namespace {

constexpr char kLeafPrefix = 0x00;
constexpr char kNodePrefix = 0x01;
constexpr char kSectionPrefix = 0x02;
constexpr char kHeaderPrefix = 0x03;

std::string_view View(const Digest& d) { return {reinterpret_cast<const char*>(d.data()), 32}; }

Digest MthRange(const Digest* d, size_t n) {
  if (n == 1) return d[0];
  size_t k = 1;
  while (k * 2 < n) k *= 2;
  Digest left = MthRange(d, k), right = MthRange(d + k, n - k);
  Sha256 h;
  h.Update(std::string_view(&kNodePrefix, 1));
  h.Update(View(left));
  h.Update(View(right));
  return h.Finish().bytes;
}

}  // namespace

Digest ChunkLeaf(std::string_view chunk) {
  Sha256 h;
  h.Update(std::string_view(&kLeafPrefix, 1));
  h.Update(chunk);
  return h.Finish().bytes;
}

Digest MerkleTreeHash(const std::vector<Digest>& d) {
  if (d.empty()) return Sha256Of("").bytes;
  return MthRange(d.data(), d.size());
}

Digest SectionDigest(uint64_t stored_length, const std::vector<Digest>& leaves) {
  std::string msg(1, kSectionPrefix);
  AppendLE<uint64_t>(&msg, stored_length);
  msg.append(View(MerkleTreeHash(leaves)));
  return Sha256Of(msg).bytes;
}

Digest HeaderDigest(std::string_view preamble, std::string_view header) {
  Sha256 h;
  h.Update(std::string_view(&kHeaderPrefix, 1));
  h.Update(preamble);
  h.Update(header);
  return h.Finish().bytes;
}

Digest RootOf(const Digest& header_digest, const std::vector<Digest>& section_digests) {
  std::vector<Digest> all;
  all.reserve(section_digests.size() + 1);
  all.push_back(header_digest);
  all.insert(all.end(), section_digests.begin(), section_digests.end());
  return MerkleTreeHash(all);
}

Xxh128 ChecksumOf(std::string_view bytes) {
  XXH128_hash_t h = VEXFS_XXH3_128(bytes.data(), bytes.size());
  return {h.low64, h.high64};
}

SectionHasher::SectionHasher(bool sealed, uint32_t chunk_log2)
    : sealed_(sealed), chunk_size_(uint64_t{1} << chunk_log2), xxh_(XXH3_createState()) {
  if (xxh_ == nullptr) std::abort();  // out of memory: nothing sensible can continue
  XXH3_128bits_reset(xxh_);
  if (sealed_) chunk_hash_.Update(std::string_view(&kLeafPrefix, 1));
}

SectionHasher::~SectionHasher() { XXH3_freeState(xxh_); }

void SectionHasher::Update(std::string_view bytes) {
  VEXFS_XXH3_128_UPDATE(xxh_, bytes.data(), bytes.size());
  length_ += bytes.size();
  while (sealed_ && !bytes.empty()) {
    size_t take = static_cast<size_t>(std::min<uint64_t>(bytes.size(), chunk_size_ - chunk_fill_));
    chunk_hash_.Update(bytes.substr(0, take));
    chunk_fill_ += take;
    bytes.remove_prefix(take);
    if (chunk_fill_ == chunk_size_) {
      leaves_.push_back(chunk_hash_.Finish().bytes);
      chunk_hash_.Update(std::string_view(&kLeafPrefix, 1));
      chunk_fill_ = 0;
    }
  }
}

Xxh128 SectionHasher::FinishChecksum() {
  XXH128_hash_t h = XXH3_128bits_digest(xxh_);
  return {h.low64, h.high64};
}

Digest SectionHasher::FinishDigest() {
  if (chunk_fill_ > 0) leaves_.push_back(chunk_hash_.Finish().bytes);
  chunk_fill_ = 0;
  return SectionDigest(length_, leaves_);
}

}  // namespace vexfs::usxf
