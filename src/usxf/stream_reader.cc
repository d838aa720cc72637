// StreamReader: a USXF file read front to back, checked as it arrives. Memory use
// is bounded by the header (at most 64 MiB, allocated only after the preamble's
// checksum and limits pass) and one 1 MiB piece.
#include <algorithm>
#include <cstring>

#include "usxf/digests.h"
#include "usxf/layout.h"
#include "usxf/leaf_pipeline.h"
#include "usxf/le.h"
#include "vexfs/usxf.h"

namespace vexfs::usxf {
namespace {
constexpr size_t kPiece = 1 << 20;
}

struct StreamReader::State {
  ByteSource* source = nullptr;
  VerifyLevel level = VerifyLevel::kFull;
  int hash_threads = 1;
  Preamble preamble;
  std::string preamble_bytes, header_bytes;
  FileSummary summary;
  uint64_t position = 0;  // bytes consumed so far
  bool done = false;

  // Reads exactly n bytes into buf; names `part` if the stream ends first.
  Status ReadExactly(char* buf, size_t n, const std::string& part) {
    size_t got = 0;
    while (got < n) {
      VEXFS_ASSIGN_OR_RETURN(size_t r, source->Read(buf + got, n - got));
      if (r == 0) {
        return Status::Corruption("truncated: the stream ends at byte " +
                                  std::to_string(position + got) + ", inside " + part);
      }
      got += r;
    }
    position += n;
    return Status::Ok();
  }

  Status ReadZeros(uint64_t n, const std::string& part) {
    char buf[4096];
    while (n > 0) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(n, sizeof(buf)));
      VEXFS_RETURN_IF_ERROR(ReadExactly(buf, take, part));
      if (!AllZero(std::string_view(buf, take))) return Status::Corruption(part + " is not zero");
      n -= take;
    }
    return Status::Ok();
  }

  // Reads the footer: its fixed part says how long the rest is. Those lengths come
  // from fields the footer checksum has not vouched for yet, so they are bounded
  // first; a wrong one then fails the checksum.
  Result<Footer> ReadFooter(size_t n) {
    std::string bytes(kFooterFixedSize, '\0');
    VEXFS_RETURN_IF_ERROR(ReadExactly(bytes.data(), bytes.size(), "the footer"));
    const bool sealed = (LoadLE<uint32_t>(bytes.data() + 12) & kFooterSealedFlag) != 0;
    const uint32_t sigs = LoadLE<uint32_t>(bytes.data() + 16);
    if (sigs > kMaxSignatures) {
      return Status::Corruption("footer: " + std::to_string(sigs) + " signatures exceed the limit of 16");
    }
    const size_t length = FooterLength(n, sealed, sigs);
    bytes.resize(length);
    VEXFS_RETURN_IF_ERROR(ReadExactly(bytes.data() + kFooterFixedSize, length - kFooterFixedSize, "the footer"));
    return DecodeFooter(bytes, n);
  }
};

StreamReader::StreamReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
StreamReader::~StreamReader() = default;

const std::vector<SectionInfo>& StreamReader::sections() const { return state_->summary.sections; }
const std::string& StreamReader::file_metadata() const { return state_->summary.file_metadata; }
const FileSummary& StreamReader::summary() const { return state_->summary; }

Result<std::unique_ptr<StreamReader>> StreamReader::Open(ByteSource* source, VerifyLevel level, int hash_threads) {
  auto st = std::make_unique<State>();
  st->source = source;
  st->level = level;
  st->hash_threads = hash_threads;
  st->preamble_bytes.resize(kPreambleSize);
  VEXFS_RETURN_IF_ERROR(st->ReadExactly(st->preamble_bytes.data(), kPreambleSize, "the preamble"));
  VEXFS_ASSIGN_OR_RETURN(st->preamble, DecodePreamble(st->preamble_bytes));
  const Preamble& p = st->preamble;
  // Grown as bytes arrive, so a stream that claims a 64 MiB header and then ends
  // costs only what it sent.
  while (st->header_bytes.size() < p.header_length) {
    const size_t at = st->header_bytes.size();
    const size_t take = static_cast<size_t>(std::min<uint64_t>(kPiece, p.header_length - at));
    st->header_bytes.resize(at + take);
    VEXFS_RETURN_IF_ERROR(st->ReadExactly(st->header_bytes.data() + at, take, "the header"));
  }
  FileSummary& s = st->summary;
  VEXFS_RETURN_IF_ERROR(DecodeHeader(p, st->header_bytes, &s.sections, &s.file_metadata));
  VEXFS_RETURN_IF_ERROR(st->ReadZeros(p.DataOffset() - st->position, "padding after the header"));
  SummarisePreamble(p, &s);
  return std::unique_ptr<StreamReader>(new StreamReader(std::move(st)));
}

Status StreamReader::ReadAll(const std::function<Status(size_t, std::string_view)>& consume) {
  State& st = *state_;
  if (st.done) return Status::InvalidArgument("the stream has already been read");
  st.done = true;
  FileSummary& s = st.summary;
  std::vector<Xxh128> checksums;
  std::vector<Digest> digests;
  // A piece no larger than the largest section: a small file needs no 1 MiB buffer.
  uint64_t largest = 0;
  for (const SectionInfo& sec : s.sections) largest = std::max(largest, sec.stored_length);
  const uint64_t chunk = uint64_t{1} << st.preamble.chunk_log2;
  if (st.level == VerifyLevel::kFull && st.hash_threads > 1 && chunk <= kPiece && largest > kPiece) {
    VEXFS_RETURN_IF_ERROR(ReadSectionsPipelined(consume, &checksums, &digests));
  } else {
    VEXFS_RETURN_IF_ERROR(ReadSections(consume, std::min<uint64_t>(largest, kPiece), &checksums, &digests));
  }
  return FinishReading(checksums, digests);
}

Status StreamReader::ReadSections(const std::function<Status(size_t, std::string_view)>& consume,
                                  uint64_t piece_size, std::vector<Xxh128>* checksums_out,
                                  std::vector<Digest>* digests_out) {
  State& st = *state_;
  FileSummary& s = st.summary;
  std::vector<Xxh128>& checksums = *checksums_out;
  std::vector<Digest>& digests = *digests_out;
  std::string piece(static_cast<size_t>(piece_size), '\0');
  for (size_t i = 0; i < s.sections.size(); ++i) {
    const SectionInfo& sec = s.sections[i];
    SectionHasher hasher(st.level == VerifyLevel::kFull, st.preamble.chunk_log2);
    for (uint64_t left = sec.stored_length; left > 0;) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(left, kPiece));
      VEXFS_RETURN_IF_ERROR(st.ReadExactly(piece.data(), take, DescribeSection(sec, i)));
      std::string_view bytes(piece.data(), take);
      hasher.Update(bytes);
      VEXFS_RETURN_IF_ERROR(consume(i, bytes));
      left -= take;
    }
    checksums.push_back(hasher.FinishChecksum());
    if (st.level == VerifyLevel::kFull) digests.push_back(hasher.FinishDigest());
    uint64_t end = sec.offset + sec.stored_length;
    VEXFS_RETURN_IF_ERROR(st.ReadZeros(AlignUp(end, s.alignment) - end, "padding after " + DescribeSection(sec, i)));
  }
  return Status::Ok();
}

// As ReadSections, the leaves hashed on a second thread (leaf_pipeline.h):
// each piece starts a chunk, since pieces are whole chunks from a section's
// start, so the worker needs nothing of the pieces before.
Status StreamReader::ReadSectionsPipelined(const std::function<Status(size_t, std::string_view)>& consume,
                                           std::vector<Xxh128>* checksums, std::vector<Digest>* digests) {
  State& st = *state_;
  FileSummary& s = st.summary;
  LeafPipeline leaves(uint64_t{1} << st.preamble.chunk_log2, kPiece, /*buffers=*/4);
  for (size_t i = 0; i < s.sections.size(); ++i) {
    const SectionInfo& sec = s.sections[i];
    SectionHasher checksum(/*sealed=*/false, st.preamble.chunk_log2);
    for (uint64_t left = sec.stored_length; left > 0;) {
      size_t take = static_cast<size_t>(std::min<uint64_t>(left, kPiece));
      char* piece = leaves.Acquire();
      VEXFS_RETURN_IF_ERROR(st.ReadExactly(piece, take, DescribeSection(sec, i)));
      std::string_view bytes(piece, take);
      checksum.Update(bytes);
      VEXFS_RETURN_IF_ERROR(consume(i, bytes));
      leaves.Submit(piece, take, i);
      left -= take;
    }
    checksums->push_back(checksum.FinishChecksum());
    uint64_t end = sec.offset + sec.stored_length;
    VEXFS_RETURN_IF_ERROR(st.ReadZeros(AlignUp(end, s.alignment) - end, "padding after " + DescribeSection(sec, i)));
  }
  std::vector<std::vector<Digest>> all = leaves.Finish(s.sections.size());
  for (size_t i = 0; i < s.sections.size(); ++i) digests->push_back(SectionDigest(s.sections[i].stored_length, all[i]));
  return Status::Ok();
}

Status StreamReader::FinishReading(const std::vector<Xxh128>& checksums, const std::vector<Digest>& digests) {
  State& st = *state_;
  FileSummary& s = st.summary;
  VEXFS_ASSIGN_OR_RETURN(Footer footer, st.ReadFooter(s.sections.size()));
  char extra;
  VEXFS_ASSIGN_OR_RETURN(size_t trailing, st.source->Read(&extra, 1));
  if (trailing != 0) return Status::Corruption("unexpected bytes after the footer");
  s.file_length = st.position;
  SummariseFooter(std::move(footer), &s);
  for (size_t i = 0; i < checksums.size(); ++i) VEXFS_RETURN_IF_ERROR(CompareChecksum(s, i, checksums[i]));
  if (st.level == VerifyLevel::kFast) return Status::Ok();
  if (!s.sealed) return Status::InvalidArgument("the file is not sealed (no SHA-256 Merkle root); only a fast check is possible");
  return CompareDigests(s, digests, HeaderDigest(st.preamble_bytes, st.header_bytes));
}

}  // namespace vexfs::usxf
