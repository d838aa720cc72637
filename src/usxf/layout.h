// Parsing the fixed parts of a whole USXF file held in memory (a mapping), shared
// by MappedFile and the verifier.
#ifndef VEXFS_USXF_LAYOUT_H_
#define VEXFS_USXF_LAYOUT_H_

#include <string_view>

#include "usxf/format.h"

namespace vexfs::usxf {

struct ParsedFile {
  Preamble preamble;
  std::string_view preamble_bytes, header_bytes;
  FileSummary summary;
};

// Checks preamble, header, the padding before the data and the footer; does not
// read section contents. Errors name the part ("preamble: ...", "footer: ...").
Result<ParsedFile> ParseFile(std::string_view file);

// Copy what the preamble and the footer say into a summary.
void SummarisePreamble(const Preamble& p, FileSummary* s);
void SummariseFooter(Footer footer, FileSummary* s);

// Section contents: checksums and zero padding (kFast), then the Merkle tree
// (kFull). The first damaged section is named.
Status VerifySections(const ParsedFile& f, std::string_view file, VerifyLevel level, int threads);

// SHA-256 digest of every section and of the header, hashing with `threads`.
void ComputeDigests(const ParsedFile& f, std::string_view file, int threads,
                    std::vector<Digest>* section_digests, Digest* header_digest);

// Compares digests computed from the bytes with those the footer claims.
Status CompareChecksum(const FileSummary& s, size_t i, const Xxh128& computed);
Status CompareDigests(const FileSummary& s, const std::vector<Digest>& computed,
                      const Digest& header_digest);

bool AllZero(std::string_view bytes);

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_LAYOUT_H_
