// The fixed parts of a USXF file: preamble, section table entries and footer, and
// the structural rules (canonical section placement, size limits) that every reader
// applies before trusting a length. docs/usxf.md is the grammar this implements.
#ifndef VEXFS_USXF_FORMAT_H_
#define VEXFS_USXF_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"  // IsValidUtf8, for names and string fields
#include "vexfs/usxf.h"

namespace vexfs::usxf {

inline constexpr char kMagic[8] = {'\x89', 'U', 'S', 'X', 'F', '\r', '\n', '\x1a'};
inline constexpr char kFooterMagic[8] = {'U', 'S', 'X', 'F', 'F', 'O', 'O', 'T'};
inline constexpr char kEndMagic[8] = {'U', 'S', 'X', 'F', 'E', 'N', 'D', '!'};
inline constexpr size_t kFooterFixedSize = 24;  // magic, count, flags, signature count, reserved
inline constexpr size_t kFooterTailSize = 24;   // footer length, checksum, end magic
inline constexpr size_t kSignatureEntrySize = 104;
inline constexpr uint32_t kFooterSealedFlag = 1;

struct Preamble {
  uint16_t major = kMajorVersion;
  uint16_t minor = kMinorVersion;
  uint32_t flags = 0;
  uint32_t alignment = 4096;
  uint32_t chunk_log2 = kDefaultChunkLog2;
  uint32_t section_count = 0;
  uint32_t section_entry_size = kSectionEntrySize;
  uint64_t header_length = 0;
  uint64_t data_length = 0;
  uint32_t file_meta_offset = 0;
  uint32_t file_meta_length = 0;
  uint64_t header_xxh3 = 0;

  uint64_t DataOffset() const;    // align_up(80 + header_length)
  uint64_t FooterOffset() const;  // DataOffset() + data_length
};

uint64_t AlignUp(uint64_t v, uint64_t alignment);

// Preamble: 80 bytes in, checked (magic, version, checksum, limits) out.
std::string EncodePreamble(const Preamble& p);
Result<Preamble> DecodePreamble(std::string_view bytes);

// Header: section table then names and metadata. `sections` gets offsets assigned
// canonically (first at DataOffset, each next at the aligned end of the previous).
std::string EncodeHeader(Preamble* p, std::vector<SectionInfo>* sections,
                         std::string_view file_metadata);
// Checks the header checksum and every structural rule; fills sections and file
// metadata. Messages name the section and field ("header: section 2 'kv': ...").
Status DecodeHeader(const Preamble& p, std::string_view header,
                    std::vector<SectionInfo>* sections, std::string* file_metadata);
// Rules on one declared section (also used by the writer to refuse a bad plan).
Status CheckSection(const SectionInfo& s, size_t index);

struct Footer {
  bool sealed = false;
  std::vector<Xxh128> checksums;
  std::vector<Digest> section_digests;
  Digest header_digest{};
  Digest root{};
  std::vector<Signature> signatures;
};
size_t FooterLength(size_t section_count, bool sealed, size_t signature_count);
std::string EncodeFooter(const Footer& f);
// The 24-byte tail gives the footer's length; a stream reader reads it whole.
Result<Footer> DecodeFooter(std::string_view bytes, size_t section_count);
// From the last 24 bytes of a file: the footer length claimed there.
Result<uint64_t> FooterLengthFromTail(std::string_view tail);

std::string DescribeSection(const SectionInfo& s, size_t index);  // "section 2 'kv'"

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_FORMAT_H_
