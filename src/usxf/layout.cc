// Structure and content checks of a USXF file held in memory (see layout.h).
#include "usxf/layout.h"

#include <atomic>
#include <cstring>

#include "common/parallel.h"
#include "usxf/digests.h"

namespace vexfs::usxf {
namespace {

std::string Truncated(uint64_t size, uint64_t needed, const char* part) {
  return "truncated: the file is " + std::to_string(size) + " bytes but its " + part +
         " needs " + std::to_string(needed);
}

struct ChunkJob {
  size_t section;
  size_t chunk;
};

// Leaves of every chunk of every section, hashed by `threads` workers.
std::vector<std::vector<Digest>> HashLeaves(const ParsedFile& f, std::string_view file, int threads) {
  const uint64_t chunk = uint64_t{1} << f.preamble.chunk_log2;
  std::vector<std::vector<Digest>> leaves(f.summary.sections.size());
  std::vector<ChunkJob> jobs;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const uint64_t n = (f.summary.sections[i].stored_length + chunk - 1) / chunk;
    leaves[i].resize(n);
    for (size_t c = 0; c < n; ++c) jobs.push_back({i, c});
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j; (j = next.fetch_add(1)) < jobs.size();) {
      const SectionInfo& s = f.summary.sections[jobs[j].section];
      const uint64_t at = jobs[j].chunk * chunk;
      leaves[jobs[j].section][jobs[j].chunk] =
          ChunkLeaf(file.substr(s.offset + at, std::min(chunk, s.stored_length - at)));
    }
  };
  RunOnThreads(ThreadsFor(jobs.size(), 1, static_cast<size_t>(threads)), work);
  return leaves;
}

}  // namespace

bool AllZero(std::string_view bytes) {
  static const char kZeros[256] = {};
  while (!bytes.empty()) {
    size_t n = std::min(bytes.size(), sizeof(kZeros));
    if (std::memcmp(bytes.data(), kZeros, n) != 0) return false;
    bytes.remove_prefix(n);
  }
  return true;
}

Result<ParsedFile> ParseFile(std::string_view file) {
  ParsedFile f;
  VEXFS_ASSIGN_OR_RETURN(f.preamble, DecodePreamble(file));
  const Preamble& p = f.preamble;
  if (kPreambleSize + p.header_length > file.size()) {
    return Status::Corruption(Truncated(file.size(), kPreambleSize + p.header_length, "header"));
  }
  f.preamble_bytes = file.substr(0, kPreambleSize);
  f.header_bytes = file.substr(kPreambleSize, p.header_length);
  FileSummary& s = f.summary;
  VEXFS_RETURN_IF_ERROR(DecodeHeader(p, f.header_bytes, &s.sections, &s.file_metadata));
  if (p.FooterOffset() > file.size()) {
    return Status::Corruption(Truncated(file.size(), p.FooterOffset(), "sections"));
  }
  if (!AllZero(file.substr(kPreambleSize + p.header_length, p.DataOffset() - kPreambleSize - p.header_length))) {
    return Status::Corruption("padding after the header is not zero");
  }
  VEXFS_ASSIGN_OR_RETURN(Footer footer, DecodeFooter(file.substr(p.FooterOffset()), s.sections.size()));
  SummarisePreamble(p, &s);
  SummariseFooter(std::move(footer), &s);
  s.file_length = file.size();
  return f;
}

void SummarisePreamble(const Preamble& p, FileSummary* s) {
  s->major = p.major;
  s->minor = p.minor;
  s->alignment = p.alignment;
  s->chunk_log2 = p.chunk_log2;
  s->header_length = p.header_length;
  s->data_offset = p.DataOffset();
  s->footer_offset = p.FooterOffset();
}

void SummariseFooter(Footer footer, FileSummary* s) {
  s->section_checksums = std::move(footer.checksums);
  s->sealed = footer.sealed;
  s->section_digests = std::move(footer.section_digests);
  s->header_digest = footer.header_digest;
  s->root = footer.root;
  s->signatures = std::move(footer.signatures);
}

Status CompareChecksum(const FileSummary& s, size_t i, const Xxh128& computed) {
  if (computed == s.section_checksums[i]) return Status::Ok();
  return Status::Corruption(DescribeSection(s.sections[i], i) + " (offset " +
                            std::to_string(s.sections[i].offset) + ", " +
                            std::to_string(s.sections[i].stored_length) +
                            " bytes): checksum mismatch (damaged contents)");
}

Status CompareDigests(const FileSummary& s, const std::vector<Digest>& computed,
                      const Digest& header_digest) {
  for (size_t i = 0; i < s.sections.size(); ++i) {
    if (computed[i] != s.section_digests[i]) {
      return Status::Corruption(DescribeSection(s.sections[i], i) +
                                ": SHA-256 digest mismatch (contents differ from what was sealed)");
    }
  }
  if (header_digest != s.header_digest) {
    return Status::Corruption("header: SHA-256 digest mismatch (header differs from what was sealed)");
  }
  if (RootOf(header_digest, computed) != s.root) {
    return Status::Corruption("footer: Merkle root does not match the digests");
  }
  return Status::Ok();
}

Status VerifySections(const ParsedFile& f, std::string_view file, VerifyLevel level, int threads) {
  const FileSummary& s = f.summary;
  if (level == VerifyLevel::kFull && !s.sealed) {
    return Status::InvalidArgument("the file is not sealed (no SHA-256 Merkle root); only a fast check is possible");
  }
  for (size_t i = 0; i < s.sections.size(); ++i) {
    const SectionInfo& sec = s.sections[i];
    VEXFS_RETURN_IF_ERROR(CompareChecksum(s, i, ChecksumOf(file.substr(sec.offset, sec.stored_length))));
    uint64_t end = sec.offset + sec.stored_length;
    if (!AllZero(file.substr(end, AlignUp(end, s.alignment) - end))) {
      return Status::Corruption("padding after " + DescribeSection(sec, i) + " is not zero");
    }
  }
  if (level == VerifyLevel::kFast) return Status::Ok();
  std::vector<Digest> digests;
  Digest header;
  ComputeDigests(f, file, threads, &digests, &header);
  return CompareDigests(s, digests, header);
}

void ComputeDigests(const ParsedFile& f, std::string_view file, int threads,
                    std::vector<Digest>* section_digests, Digest* header_digest) {
  std::vector<std::vector<Digest>> leaves = HashLeaves(f, file, std::max(1, threads));
  section_digests->clear();
  for (size_t i = 0; i < f.summary.sections.size(); ++i) {
    section_digests->push_back(SectionDigest(f.summary.sections[i].stored_length, leaves[i]));
  }
  *header_digest = HeaderDigest(f.preamble_bytes, f.header_bytes);
}

}  // namespace vexfs::usxf
