// Preamble, header and footer of a USXF file (docs/usxf.md). Every length is
// checked against a limit before it is used, so a hostile header cannot make a
// reader allocate or seek far.
#include "usxf/format.h"

#include <xxhash.h>

#include <cstring>
#include <set>

#include "usxf/le.h"

namespace vexfs::usxf {
namespace {

constexpr size_t kMaxNameLength = 255;
constexpr uint32_t kMinChunkLog2 = 12;
constexpr uint32_t kMaxChunkLog2 = 30;
constexpr uint32_t kMaxGroupSize = 1u << 20;

}  // namespace

namespace {

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

Status HeaderError(const std::string& what) { return Status::Corruption("header: " + what); }

bool KnownDType(uint32_t d) { return d <= static_cast<uint32_t>(DType::kQ8_0); }
bool KnownEncoding(uint32_t e) { return e <= static_cast<uint32_t>(Encoding::kInt8Group); }
bool KnownCompression(uint32_t c) { return c <= static_cast<uint32_t>(Compression::kZstd); }
bool KnownKind(uint32_t k) {
  return k >= static_cast<uint32_t>(SectionKind::kBlob) &&
         k <= static_cast<uint32_t>(SectionKind::kKvCache);
}

void EncodeEntry(const SectionInfo& s, uint32_t name_offset, uint32_t meta_offset,
                 char* e) {
  std::memset(e, 0, kSectionEntrySize);
  StoreLE<uint64_t>(e + 0, s.offset);
  StoreLE<uint64_t>(e + 8, s.stored_length);
  StoreLE<uint64_t>(e + 16, s.raw_length);
  StoreLE<uint32_t>(e + 24, s.kind);
  StoreLE<uint32_t>(e + 28, s.dtype);
  StoreLE<uint32_t>(e + 32, s.encoding);
  StoreLE<uint32_t>(e + 36, s.compression);
  StoreLE<uint32_t>(e + 40, s.group_size);
  StoreLE<uint32_t>(e + 44, static_cast<uint32_t>(s.shape.size()));
  for (size_t k = 0; k < s.shape.size(); ++k) StoreLE<uint64_t>(e + 48 + 8 * k, s.shape[k]);
  StoreLE<uint32_t>(e + 112, name_offset);
  StoreLE<uint32_t>(e + 116, static_cast<uint32_t>(s.name.size()));
  StoreLE<uint32_t>(e + 120, meta_offset);
  StoreLE<uint32_t>(e + 124, static_cast<uint32_t>(s.metadata.size()));
}

struct EntryRefs {
  uint32_t name_offset, name_length, meta_offset, meta_length;
};

Result<EntryRefs> DecodeEntry(const char* e, size_t index, SectionInfo* s) {
  s->offset = LoadLE<uint64_t>(e + 0);
  s->stored_length = LoadLE<uint64_t>(e + 8);
  s->raw_length = LoadLE<uint64_t>(e + 16);
  s->kind = LoadLE<uint32_t>(e + 24);
  s->dtype = LoadLE<uint32_t>(e + 28);
  s->encoding = LoadLE<uint32_t>(e + 32);
  s->compression = LoadLE<uint32_t>(e + 36);
  s->group_size = LoadLE<uint32_t>(e + 40);
  uint32_t rank = LoadLE<uint32_t>(e + 44);
  if (rank > kMaxRank) {
    return HeaderError("section " + std::to_string(index) + ": rank " +
                       std::to_string(rank) + " exceeds " + std::to_string(kMaxRank));
  }
  s->shape.assign(rank, 0);
  for (size_t k = 0; k < kMaxRank; ++k) {
    uint64_t dim = LoadLE<uint64_t>(e + 48 + 8 * k);
    if (k < rank) {
      s->shape[k] = dim;
    } else if (dim != 0) {
      return HeaderError("section " + std::to_string(index) + ": shape beyond rank is not zero");
    }
  }
  return EntryRefs{LoadLE<uint32_t>(e + 112), LoadLE<uint32_t>(e + 116),
                   LoadLE<uint32_t>(e + 120), LoadLE<uint32_t>(e + 124)};
}

// Product of dims, or nullopt past kMaxSectionLength. Any zero dimension makes an
// empty tensor whatever the others are, so the answer does not depend on order.
std::optional<uint64_t> CheckedProduct(const std::vector<uint64_t>& shape) {
  for (uint64_t d : shape) {
    if (d == 0) return 0;
  }
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (n > kMaxSectionLength / d) return std::nullopt;
    n *= d;
  }
  return n;
}

Status CheckLengths(const SectionInfo& s, const std::string& who) {
  if (s.stored_length > kMaxSectionLength || s.raw_length > kMaxSectionLength) {
    return Status::Corruption(who + ": length beyond the 16 TiB limit");
  }
  if (s.compression == static_cast<uint32_t>(Compression::kNone) &&
      s.stored_length != s.raw_length) {
    return Status::Corruption(who + ": uncompressed but stored length " +
                              std::to_string(s.stored_length) + " != raw length " +
                              std::to_string(s.raw_length));
  }
  if (!KnownKind(s.kind)) return Status::Ok();  // kept and verified, never interpreted
  if (s.kind == static_cast<uint32_t>(SectionKind::kBlob)) {
    if (s.dtype != 0 || s.encoding != 0 || !s.shape.empty() || s.group_size != 0) {
      return Status::Corruption(who + ": a blob has no dtype, encoding, group size or shape");
    }
    return Status::Ok();
  }
  if (!KnownDType(s.dtype) || !KnownEncoding(s.encoding)) return Status::Ok();  // opaque
  if (!CheckedProduct(s.shape)) return Status::Corruption(who + ": shape overflows");
  auto expected = EncodedLength(s.dtype, s.encoding, s.group_size, s.ElementCount());
  if (!expected.ok()) return Status::Corruption(who + ": " + expected.status().message());
  if (*expected != s.raw_length) {
    return Status::Corruption(who + ": raw length " + std::to_string(s.raw_length) +
                              " does not match shape and encoding (" +
                              std::to_string(*expected) + " bytes)");
  }
  return Status::Ok();
}

}  // namespace

uint64_t AlignUp(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) & ~(alignment - 1);
}

uint64_t Preamble::DataOffset() const { return AlignUp(kPreambleSize + header_length, alignment); }
uint64_t Preamble::FooterOffset() const { return DataOffset() + data_length; }

std::string DescribeSection(const SectionInfo& s, size_t index) {
  return "section " + std::to_string(index) + " '" + s.name + "'";
}

std::string EncodePreamble(const Preamble& p) {
  std::string out(kPreambleSize, '\0');
  char* b = out.data();
  std::memcpy(b, kMagic, 8);
  StoreLE<uint16_t>(b + 8, p.major);
  StoreLE<uint16_t>(b + 10, p.minor);
  StoreLE<uint32_t>(b + 12, p.flags);
  StoreLE<uint32_t>(b + 16, p.alignment);
  StoreLE<uint32_t>(b + 20, p.chunk_log2);
  StoreLE<uint32_t>(b + 24, p.section_count);
  StoreLE<uint32_t>(b + 28, p.section_entry_size);
  StoreLE<uint64_t>(b + 32, p.header_length);
  StoreLE<uint64_t>(b + 40, p.data_length);
  StoreLE<uint32_t>(b + 48, p.file_meta_offset);
  StoreLE<uint32_t>(b + 52, p.file_meta_length);
  StoreLE<uint64_t>(b + 64, p.header_xxh3);
  StoreLE<uint64_t>(b + 72, XXH3_64bits(b, 72));
  return out;
}

Result<Preamble> DecodePreamble(std::string_view bytes) {
  if (bytes.size() < kPreambleSize) {
    return Status::Corruption("preamble: file is " + std::to_string(bytes.size()) +
                              " bytes, shorter than the 80-byte preamble");
  }
  const char* b = bytes.data();
  if (std::memcmp(b, kMagic, 8) != 0) return Status::Corruption("preamble: not a USXF file (bad magic)");
  if (LoadLE<uint64_t>(b + 72) != XXH3_64bits(b, 72)) {
    return Status::Corruption("preamble: checksum mismatch (damaged preamble)");
  }
  Preamble p;
  p.major = LoadLE<uint16_t>(b + 8);
  p.minor = LoadLE<uint16_t>(b + 10);
  if (p.major != kMajorVersion) {
    return Status::NotSupported("preamble: USXF major version " + std::to_string(p.major) +
                                " is not supported (this reader reads version 1)");
  }
  p.flags = LoadLE<uint32_t>(b + 12);
  if (p.flags != 0) {
    return Status::NotSupported("preamble: unknown required feature flags " + std::to_string(p.flags) +
                                " (this reader knows none)");
  }
  p.alignment = LoadLE<uint32_t>(b + 16);
  p.chunk_log2 = LoadLE<uint32_t>(b + 20);
  p.section_count = LoadLE<uint32_t>(b + 24);
  p.section_entry_size = LoadLE<uint32_t>(b + 28);
  p.header_length = LoadLE<uint64_t>(b + 32);
  p.data_length = LoadLE<uint64_t>(b + 40);
  p.file_meta_offset = LoadLE<uint32_t>(b + 48);
  p.file_meta_length = LoadLE<uint32_t>(b + 52);
  p.header_xxh3 = LoadLE<uint64_t>(b + 64);
  if (LoadLE<uint64_t>(b + 56) != 0) return Status::Corruption("preamble: reserved field is not zero");
  if (!IsPowerOfTwo(p.alignment) || p.alignment < kMinAlignment || p.alignment > kMaxAlignment) {
    return Status::Corruption("preamble: alignment " + std::to_string(p.alignment) +
                              " is not a power of two in [64, 1 MiB]");
  }
  if (p.chunk_log2 < kMinChunkLog2 || p.chunk_log2 > kMaxChunkLog2) {
    return Status::Corruption("preamble: Merkle chunk size 2^" + std::to_string(p.chunk_log2) +
                              " outside [2^12, 2^30]");
  }
  if (p.section_count > kMaxSections) {
    return Status::Corruption("preamble: " + std::to_string(p.section_count) +
                              " sections exceed the limit of " + std::to_string(kMaxSections));
  }
  if (p.section_entry_size < kSectionEntrySize || p.section_entry_size % 8 != 0 ||
      p.section_entry_size > 4096) {
    return Status::Corruption("preamble: section entry size " +
                              std::to_string(p.section_entry_size) +
                              " is not a multiple of 8 in [128, 4096]");
  }
  if (p.header_length > kMaxHeaderLength) {
    return Status::Corruption("preamble: header length " + std::to_string(p.header_length) +
                              " exceeds the 64 MiB limit");
  }
  if (p.data_length > kMaxSectionLength * 2) {
    return Status::Corruption("preamble: data length " + std::to_string(p.data_length) +
                              " exceeds the 32 TiB limit");
  }
  if (p.data_length % p.alignment != 0) {
    return Status::Corruption("preamble: data length " + std::to_string(p.data_length) +
                              " is not a multiple of the alignment");
  }
  return p;
}

std::string EncodeHeader(Preamble* p, std::vector<SectionInfo>* sections,
                         std::string_view file_metadata) {
  const size_t table = sections->size() * kSectionEntrySize;
  std::string strings;
  std::vector<std::pair<uint32_t, uint32_t>> refs;
  for (const SectionInfo& s : *sections) {
    uint32_t name_at = static_cast<uint32_t>(table + strings.size());
    strings += s.name;
    uint32_t meta_at = static_cast<uint32_t>(table + strings.size());
    strings += s.metadata;
    refs.emplace_back(name_at, meta_at);
  }
  p->file_meta_offset = static_cast<uint32_t>(table + strings.size());
  p->file_meta_length = static_cast<uint32_t>(file_metadata.size());
  strings += file_metadata;
  p->section_count = static_cast<uint32_t>(sections->size());
  p->section_entry_size = kSectionEntrySize;
  p->header_length = table + strings.size();
  uint64_t at = p->DataOffset();
  for (SectionInfo& s : *sections) {
    s.offset = at;
    at = AlignUp(at + s.stored_length, p->alignment);
  }
  p->data_length = at - p->DataOffset();
  std::string header(table, '\0');
  for (size_t i = 0; i < sections->size(); ++i) {
    EncodeEntry((*sections)[i], refs[i].first, refs[i].second, header.data() + i * kSectionEntrySize);
  }
  header += strings;
  p->header_xxh3 = XXH3_64bits(header.data(), header.size());
  return header;
}

Status CheckSection(const SectionInfo& s, size_t index) {
  const std::string who = DescribeSection(s, index);
  if (s.name.empty() || s.name.size() > kMaxNameLength ||
      s.name.find('\0') != std::string::npos || !IsValidUtf8(s.name)) {
    return Status::Corruption("section " + std::to_string(index) +
                              ": name must be 1-255 bytes of UTF-8 without NUL");
  }
  if (s.shape.size() > kMaxRank) return Status::Corruption(who + ": rank exceeds 8");
  bool int8 = s.encoding == static_cast<uint32_t>(Encoding::kInt8Group);
  if (s.group_size > kMaxGroupSize || (KnownEncoding(s.encoding) && int8 != (s.group_size != 0))) {
    return Status::Corruption(who + ": group size " + std::to_string(s.group_size) +
                              (int8 ? " must be in [1, 2^20] for int8_group"
                                    : " must be 0 without int8_group"));
  }
  VEXFS_RETURN_IF_ERROR(CheckLengths(s, who));
  if (!s.metadata.empty()) {
    auto meta = Metadata::Decode(s.metadata);
    if (!meta.ok()) return Status::Corruption(who + ": metadata: " + meta.status().message());
  }
  // What a KV section's metadata means is checked by whoever interprets it
  // (KvCacheInfo::FromSection, and VerifyFile): a field this reader does not know
  // must leave the rest of the file readable.
  (void)KnownCompression;
  return Status::Ok();
}

Status DecodeHeader(const Preamble& p, std::string_view header,
                    std::vector<SectionInfo>* sections, std::string* file_metadata) {
  if (XXH3_64bits(header.data(), header.size()) != p.header_xxh3) {
    return HeaderError("checksum mismatch (damaged header)");
  }
  const uint64_t table = uint64_t{p.section_count} * p.section_entry_size;
  if (table > header.size()) return HeaderError("section table longer than the header");
  sections->assign(p.section_count, SectionInfo{});
  uint64_t strings_at = table;  // names and metadata follow in section order
  uint64_t data_at = p.DataOffset();
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < p.section_count; ++i) {
    SectionInfo& s = (*sections)[i];
    VEXFS_ASSIGN_OR_RETURN(EntryRefs r, DecodeEntry(header.data() + i * p.section_entry_size, i, &s));
    if (r.name_offset != strings_at || uint64_t{r.name_length} + r.name_offset > header.size()) {
      return HeaderError("section " + std::to_string(i) + ": name is not where it must be");
    }
    s.name.assign(header.substr(r.name_offset, r.name_length));
    strings_at += r.name_length;
    if (r.meta_offset != strings_at || uint64_t{r.meta_length} + r.meta_offset > header.size()) {
      return HeaderError(DescribeSection(s, i) + ": metadata is not where it must be");
    }
    s.metadata.assign(header.substr(r.meta_offset, r.meta_length));
    strings_at += r.meta_length;
    if (s.offset != data_at) {
      return HeaderError(DescribeSection(s, i) + ": offset " + std::to_string(s.offset) +
                         " overlaps or leaves a gap (expected " + std::to_string(data_at) + ")");
    }
    if (Status st = CheckSection(s, i); !st.ok()) return HeaderError(st.message());
    if (!names.insert(s.name).second) {
      return HeaderError(DescribeSection(s, i) + ": name used by an earlier section");
    }
    data_at = AlignUp(s.offset + s.stored_length, p.alignment);
    if (data_at - p.DataOffset() > p.data_length) {
      return HeaderError(DescribeSection(s, i) + ": length " + std::to_string(s.stored_length) +
                         " runs past the end of the data area");
    }
  }
  if (data_at - p.DataOffset() != p.data_length) {
    return HeaderError("data length " + std::to_string(p.data_length) +
                       " does not match the sections");
  }
  if (p.file_meta_offset != strings_at ||
      uint64_t{p.file_meta_offset} + p.file_meta_length != header.size()) {
    return HeaderError("file metadata is not where it must be");
  }
  file_metadata->assign(header.substr(p.file_meta_offset, p.file_meta_length));
  if (!file_metadata->empty()) {
    auto meta = Metadata::Decode(*file_metadata);
    if (!meta.ok()) return HeaderError("file metadata: " + meta.status().message());
  }
  return Status::Ok();
}

size_t FooterLength(size_t n, bool sealed, size_t signature_count) {
  return kFooterFixedSize + 16 * n + (sealed ? 32 * n + 64 : 0) +
         kSignatureEntrySize * signature_count + kFooterTailSize;
}

std::string EncodeFooter(const Footer& f) {
  std::string out(kFooterMagic, 8);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(f.checksums.size()));
  AppendLE<uint32_t>(&out, f.sealed ? kFooterSealedFlag : 0);
  AppendLE<uint32_t>(&out, static_cast<uint32_t>(f.signatures.size()));
  AppendLE<uint32_t>(&out, 0);
  for (const Xxh128& c : f.checksums) {
    AppendLE<uint64_t>(&out, c.low);
    AppendLE<uint64_t>(&out, c.high);
  }
  if (f.sealed) {
    for (const Digest& d : f.section_digests) out.append(reinterpret_cast<const char*>(d.data()), 32);
    out.append(reinterpret_cast<const char*>(f.header_digest.data()), 32);
    out.append(reinterpret_cast<const char*>(f.root.data()), 32);
  }
  for (const Signature& s : f.signatures) {
    AppendLE<uint32_t>(&out, s.algorithm);
    AppendLE<uint32_t>(&out, 0);
    out.append(reinterpret_cast<const char*>(s.public_key.data()), 32);
    out.append(reinterpret_cast<const char*>(s.signature.data()), 64);
  }
  AppendLE<uint64_t>(&out, out.size() + kFooterTailSize);
  AppendLE<uint64_t>(&out, XXH3_64bits(out.data(), out.size()));
  out.append(kEndMagic, 8);
  return out;
}

Result<uint64_t> FooterLengthFromTail(std::string_view tail) {
  if (tail.size() < kFooterTailSize) return Status::Corruption("footer: truncated");
  const char* t = tail.data() + tail.size() - kFooterTailSize;
  if (std::memcmp(t + 16, kEndMagic, 8) != 0) {
    return Status::Corruption("footer: end marker missing (file truncated or damaged)");
  }
  return LoadLE<uint64_t>(t);
}

Result<Footer> DecodeFooter(std::string_view bytes, size_t n) {
  if (bytes.size() < kFooterFixedSize + kFooterTailSize) return Status::Corruption("footer: truncated");
  const char* b = bytes.data();
  VEXFS_ASSIGN_OR_RETURN(uint64_t claimed, FooterLengthFromTail(bytes));
  if (claimed != bytes.size()) {
    return Status::Corruption("footer: length field " + std::to_string(claimed) +
                              " does not match the " + std::to_string(bytes.size()) +
                              " bytes after the last section");
  }
  const size_t sum_at = bytes.size() - 16;
  if (LoadLE<uint64_t>(b + sum_at) != XXH3_64bits(b, sum_at)) {
    return Status::Corruption("footer: checksum mismatch (damaged footer)");
  }
  if (std::memcmp(b, kFooterMagic, 8) != 0) return Status::Corruption("footer: bad magic");
  if (LoadLE<uint32_t>(b + 8) != n) return Status::Corruption("footer: section count differs from header");
  uint32_t flags = LoadLE<uint32_t>(b + 12);
  uint32_t sigs = LoadLE<uint32_t>(b + 16);
  if ((flags & ~kFooterSealedFlag) != 0) {
    return Status::Corruption("footer: unknown flags " + std::to_string(flags));
  }
  if (LoadLE<uint32_t>(b + 20) != 0) return Status::Corruption("footer: reserved field is not zero");
  Footer f;
  f.sealed = (flags & kFooterSealedFlag) != 0;
  if (sigs > kMaxSignatures || (sigs > 0 && !f.sealed)) {
    return Status::Corruption("footer: " + std::to_string(sigs) + " signatures (at most 16, and only on a sealed file)");
  }
  if (FooterLength(n, f.sealed, sigs) != bytes.size()) {
    return Status::Corruption("footer: length does not match its section and signature counts");
  }
  const char* p = b + kFooterFixedSize;
  for (size_t i = 0; i < n; ++i, p += 16) f.checksums.push_back({LoadLE<uint64_t>(p), LoadLE<uint64_t>(p + 8)});
  auto take = [&p](Digest* d) { std::memcpy(d->data(), p, 32); p += 32; };
  if (f.sealed) {
    f.section_digests.resize(n);
    for (Digest& d : f.section_digests) take(&d);
    take(&f.header_digest);
    take(&f.root);
  }
  for (size_t i = 0; i < sigs; ++i, p += kSignatureEntrySize) {
    Signature s;
    s.algorithm = LoadLE<uint32_t>(p);
    if (LoadLE<uint32_t>(p + 4) != 0) return Status::Corruption("footer: signature " + std::to_string(i) + ": reserved bits set");
    std::memcpy(s.public_key.data(), p + 8, 32);
    std::memcpy(s.signature.data(), p + 40, 64);
    f.signatures.push_back(s);
  }
  return f;
}

}  // namespace vexfs::usxf
