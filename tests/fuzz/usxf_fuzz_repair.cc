// Checksum and digest repair for mutated USXF files (see usxf_fuzz_repair.h). The
// offsets are docs/usxf.md's; the hashing reuses the library's own digest code so
// that a repaired file differs from a valid one only where the mutation put it.
#include "fuzz/usxf_fuzz_repair.h"

#include <xxhash.h>
#include <zstd.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "usxf/digests.h"
#include "usxf/format.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::usxf::fuzz {
namespace {

// Preamble fields.
constexpr size_t kSectionCountAt = 24;
constexpr size_t kEntrySizeAt = 28;
constexpr size_t kHeaderLengthAt = 32;
constexpr size_t kHeaderChecksumAt = 64;
constexpr size_t kPreambleChecksumAt = 72;
// Section table entry fields.
constexpr size_t kOffsetAt = 0;
constexpr size_t kStoredLengthAt = 8;
constexpr size_t kRawLengthAt = 16;
constexpr size_t kKindAt = 24;
constexpr size_t kCompressionAt = 36;
constexpr size_t kMetaOffsetAt = 120;
constexpr size_t kMetaLengthAt = 124;
// KV metadata tags.
constexpr uint16_t kWeightsFpTag = 2;
constexpr uint16_t kHparamsFpTag = 3;
constexpr uint16_t kTokenizerFpTag = 4;
constexpr uint16_t kTokenIdsTag = 17;
constexpr uint16_t kBlockSizeTag = 21;
constexpr uint16_t kBlockHashesTag = 22;
constexpr uint32_t kMaxBlockSize = 1u << 20;

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

void StoreDigest(char* p, const Digest& d) { std::memcpy(p, d.data(), d.size()); }

// Rewrites the block hashes field of one KV section's metadata from its token ids,
// block size and fingerprints. Without this a mutated token list, block size or
// fingerprint always fails the chained hash check and KV validation past it is dead.
void RepairKvBlockHashes(char* meta, size_t length) {
  auto decoded = Metadata::Decode(std::string_view(meta, length));
  if (!decoded.ok()) return;
  const Metadata& m = *decoded;
  KvCacheInfo kv;  // only the fingerprints, for ModelId
  const std::pair<uint16_t, Digest*> fingerprints[] = {
      {kWeightsFpTag, &kv.weights_fingerprint},
      {kHparamsFpTag, &kv.hparams_fingerprint},
      {kTokenizerFpTag, &kv.tokenizer_fingerprint}};
  for (const auto& [tag, digest] : fingerprints) {
    auto bytes = m.GetBytes(tag, "fingerprint");
    if (!bytes.ok() || bytes->size() != digest->size()) return;
    std::memcpy(digest->data(), bytes->data(), digest->size());
  }
  auto tokens = m.GetI32Array(kTokenIdsTag, "token_ids");
  auto block = m.GetU64(kBlockSizeTag, "block_size");
  if (!tokens.ok() || !block.ok() || *block == 0 || *block > kMaxBlockSize) return;
  // Decode has checked every field's bounds, so this walk stays inside `meta`.
  for (size_t at = 0; at + 8 <= length;) {
    const uint16_t tag = Load<uint16_t>(meta + at);
    const uint32_t field_length = Load<uint32_t>(meta + at + 4);
    if (tag == kBlockHashesTag) {
      const std::vector<Digest> hashes =
          ChainedBlockHashes(kv.ModelId(), static_cast<uint32_t>(*block), *tokens);
      if (field_length != 32 * hashes.size()) return;  // a count change moves the header
      for (size_t i = 0; i < hashes.size(); ++i) StoreDigest(meta + at + 8 + 32 * i, hashes[i]);
      return;
    }
    at += 8 + field_length;
  }
}

// A compressed blob's raw length from the size its zstd frame declares: the reader
// refuses a disagreement before decompressing, so without this a mutated frame
// header never reaches decompression. (Typed sections tie the raw length to their
// shape, so theirs stays.)
void RepairBlobRawLength(const char* data, size_t size, char* entry) {
  if (Load<uint32_t>(entry + kKindAt) != static_cast<uint32_t>(SectionKind::kBlob) ||
      Load<uint32_t>(entry + kCompressionAt) != static_cast<uint32_t>(Compression::kZstd)) {
    return;
  }
  const uint64_t at = Load<uint64_t>(entry + kOffsetAt);
  const uint64_t stored_length = Load<uint64_t>(entry + kStoredLengthAt);
  if (at > size || stored_length > size - at) return;
  const unsigned long long declared = ZSTD_getFrameContentSize(data + at, stored_length);
  if (declared <= kMaxSectionLength) Store<uint64_t>(entry + kRawLengthAt, declared);
}

void RepairSectionEntries(char* data, size_t size, uint64_t header_length) {
  const uint32_t count = Load<uint32_t>(data + kSectionCountAt);
  const uint32_t entry_size = Load<uint32_t>(data + kEntrySizeAt);
  if (count > kMaxSections || entry_size < kSectionEntrySize || entry_size > 4096) return;
  char* header = data + kPreambleSize;
  for (uint64_t i = 0; i < count && (i + 1) * entry_size <= header_length; ++i) {
    char* entry = header + i * entry_size;
    RepairBlobRawLength(data, size, entry);
    if (Load<uint32_t>(entry + kKindAt) != static_cast<uint32_t>(SectionKind::kKvCache)) continue;
    const uint64_t meta_at = Load<uint32_t>(entry + kMetaOffsetAt);
    const uint64_t meta_length = Load<uint32_t>(entry + kMetaLengthAt);
    if (meta_at + meta_length <= header_length) RepairKvBlockHashes(header + meta_at, meta_length);
  }
}

// The footer's per-section checksums and, when sealed, digests and root, from the
// section bytes as they are now. Needs a header that decodes (for the sections'
// places) and a footer whose counts match it.
void RepairFooterDigests(char* data, size_t size, uint64_t header_length) {
  const std::string_view file(data, size);
  auto preamble = DecodePreamble(file);
  if (!preamble.ok()) return;
  std::vector<SectionInfo> sections;
  std::string file_metadata;
  const Status header =
      DecodeHeader(*preamble, file.substr(kPreambleSize, header_length), &sections, &file_metadata);
  if (!header.ok()) return;
  const uint64_t footer_at = preamble->FooterOffset();
  if (footer_at > size || size - footer_at < kFooterFixedSize + kFooterTailSize) return;
  char* footer = data + footer_at;
  const size_t n = sections.size();
  const bool sealed = (Load<uint32_t>(footer + 12) & kFooterSealedFlag) != 0;
  const uint32_t signatures = Load<uint32_t>(footer + 16);
  if (Load<uint32_t>(footer + 8) != n || signatures > kMaxSignatures ||
      FooterLength(n, sealed, signatures) != size - footer_at) {
    return;
  }
  char* p = footer + kFooterFixedSize;
  for (const SectionInfo& s : sections) {
    const Xxh128 sum = ChecksumOf(file.substr(s.offset, s.stored_length));
    Store<uint64_t>(p, sum.low);
    Store<uint64_t>(p + 8, sum.high);
    p += 16;
  }
  if (sealed) {
    const uint64_t chunk = uint64_t{1} << preamble->chunk_log2;
    std::vector<Digest> digests;
    for (const SectionInfo& s : sections) {
      std::vector<Digest> leaves;
      for (uint64_t at = 0; at < s.stored_length; at += chunk) {
        leaves.push_back(
            ChunkLeaf(file.substr(s.offset + at, std::min(chunk, s.stored_length - at))));
      }
      digests.push_back(SectionDigest(s.stored_length, leaves));
      StoreDigest(p, digests.back());
      p += 32;
    }
    const Digest header_digest =
        HeaderDigest(file.substr(0, kPreambleSize), file.substr(kPreambleSize, header_length));
    StoreDigest(p, header_digest);
    StoreDigest(p + 32, RootOf(header_digest, digests));
  }
  Store<uint64_t>(data + size - kFooterTailSize, size - footer_at);
}

// The footer's own checksum, over the footer its tail claims.
void RepairFooterChecksum(char* data, size_t size) {
  if (size < kFooterFixedSize + kFooterTailSize) return;
  const uint64_t claimed = Load<uint64_t>(data + size - kFooterTailSize);
  if (claimed < kFooterFixedSize + kFooterTailSize || claimed > size) return;
  const char* footer = data + size - claimed;
  Store<uint64_t>(data + size - 16, XXH3_64bits(footer, claimed - 16));
}

}  // namespace

void RepairChecksums(char* data, size_t size) {
  if (size >= kPreambleSize && std::memcmp(data, kMagic, sizeof(kMagic)) == 0) {
    const uint64_t header_length = Load<uint64_t>(data + kHeaderLengthAt);
    const bool header_fits = header_length <= size - kPreambleSize;
    if (header_fits) {
      RepairSectionEntries(data, size, header_length);
      Store<uint64_t>(data + kHeaderChecksumAt, XXH3_64bits(data + kPreambleSize, header_length));
    }
    Store<uint64_t>(data + kPreambleChecksumAt, XXH3_64bits(data, kPreambleChecksumAt));
    if (header_fits) RepairFooterDigests(data, size, header_length);
  }
  RepairFooterChecksum(data, size);
}

}  // namespace vexfs::usxf::fuzz
