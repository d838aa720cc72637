// Writer: a USXF file front to back, without seeking (so it can go to a socket).
// Digests are computed as the bytes pass; the footer is written last.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "common/file_util.h"
#include "usxf/digests.h"
#include "usxf/format.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::usxf {

struct Writer::State {
  ByteSink* sink = nullptr;
  WriterOptions options;
  Preamble preamble;
  std::string preamble_bytes, header_bytes;
  std::vector<SectionInfo> sections;
  size_t current = 0;        // section being filled
  uint64_t filled = 0;       // bytes of it so far
  std::unique_ptr<SectionHasher> hasher;
  Footer footer;
  bool finished = false;
};

namespace {

constexpr uint64_t kSlice = 128 << 10;

Status PlanError(const Status& st) { return Status::InvalidArgument(st.message()); }

Status CheckOptions(const WriterOptions& o) {
  if (o.alignment < kMinAlignment || o.alignment > kMaxAlignment || (o.alignment & (o.alignment - 1))) {
    return Status::InvalidArgument("alignment must be a power of two in [64, 1 MiB]");
  }
  if (o.chunk_log2 < 12 || o.chunk_log2 > 30) return Status::InvalidArgument("chunk_log2 must be 12..30");
  return Status::Ok();
}

Status WritePadding(ByteSink* sink, uint64_t n) {
  static const char kZeros[4096] = {};
  while (n > 0) {
    uint64_t take = std::min<uint64_t>(n, sizeof(kZeros));
    VEXFS_RETURN_IF_ERROR(sink->Write(std::string_view(kZeros, take)));
    n -= take;
  }
  return Status::Ok();
}

}  // namespace

Writer::Writer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Writer::~Writer() = default;

const std::vector<SectionInfo>& Writer::sections() const { return state_->sections; }

Result<std::unique_ptr<Writer>> Writer::Start(ByteSink* sink, std::vector<SectionInfo> sections,
                                              const Metadata& file_metadata,
                                              const WriterOptions& options) {
  VEXFS_RETURN_IF_ERROR(CheckOptions(options));
  if (sections.size() > kMaxSections) return Status::InvalidArgument("too many sections (limit 4096)");
  for (size_t i = 0; i < sections.size(); ++i) {
    if (Status st = CheckSection(sections[i], i); !st.ok()) return PlanError(st);
    // Readers interpret KV metadata only when they restore; a writer checks it now
    // so that it never produces a file its readers will refuse to restore.
    if (sections[i].kind == static_cast<uint32_t>(SectionKind::kKvCache)) {
      auto kv = KvCacheInfo::FromSection(sections[i]);
      if (!kv.ok() && kv.status().code() != StatusCode::kNotSupported) {
        return Status::InvalidArgument(DescribeSection(sections[i], i) + ": " + kv.status().message());
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (sections[j].name == sections[i].name) {
        return Status::InvalidArgument(DescribeSection(sections[i], i) + ": name used twice");
      }
    }
  }
  auto st = std::make_unique<State>();
  st->sink = sink;
  st->options = options;
  st->preamble.alignment = options.alignment;
  st->preamble.chunk_log2 = options.chunk_log2;
  std::string meta = file_metadata.Encode();
  st->header_bytes = EncodeHeader(&st->preamble, &sections, meta);
  if (st->preamble.header_length > kMaxHeaderLength) {
    return Status::InvalidArgument("header of " + std::to_string(st->preamble.header_length) +
                                   " bytes exceeds the 64 MiB limit");
  }
  if (st->preamble.data_length > kMaxSectionLength * 2) {
    return Status::InvalidArgument("sections total more than 32 TiB");
  }
  st->preamble_bytes = EncodePreamble(st->preamble);
  st->sections = std::move(sections);
  st->footer.sealed = options.seal;
  VEXFS_RETURN_IF_ERROR(sink->Write(st->preamble_bytes));
  VEXFS_RETURN_IF_ERROR(sink->Write(st->header_bytes));
  VEXFS_RETURN_IF_ERROR(WritePadding(sink, st->preamble.DataOffset() - kPreambleSize - st->header_bytes.size()));
  std::unique_ptr<Writer> w(new Writer(std::move(st)));
  VEXFS_RETURN_IF_ERROR(w->Append(""));  // closes leading empty sections
  return w;
}

Status Writer::Append(std::string_view bytes) {
  State& s = *state_;
  while (s.current < s.sections.size()) {
    const SectionInfo& sec = s.sections[s.current];
    if (!s.hasher) s.hasher = std::make_unique<SectionHasher>(s.options.seal, s.options.chunk_log2);
    uint64_t take = std::min<uint64_t>(bytes.size(), sec.stored_length - s.filled);
    // Copy and hash a cache-sized slice at a time: the hash then reads bytes the
    // copy has just brought into cache instead of a second pass over memory.
    for (uint64_t done = 0; done < take;) {
      const std::string_view slice = bytes.substr(done, std::min<uint64_t>(kSlice, take - done));
      VEXFS_RETURN_IF_ERROR(s.sink->Write(slice));
      s.hasher->Update(slice);
      done += slice.size();
    }
    s.filled += take;
    bytes.remove_prefix(take);
    if (s.filled < sec.stored_length) break;
    // Section complete: its digests, then zero padding up to the next boundary.
    s.footer.checksums.push_back(s.hasher->FinishChecksum());
    if (s.options.seal) s.footer.section_digests.push_back(s.hasher->FinishDigest());
    s.hasher.reset();
    VEXFS_RETURN_IF_ERROR(WritePadding(s.sink, AlignUp(sec.stored_length, s.options.alignment) - sec.stored_length));
    ++s.current;
    s.filled = 0;
  }
  if (!bytes.empty()) {
    return Status::InvalidArgument(std::to_string(bytes.size()) +
                                   " bytes more than the sections declared");
  }
  return Status::Ok();
}

Status Writer::Finish(const std::vector<const SigningKey*>& signers) {
  State& s = *state_;
  if (s.finished) return Status::InvalidArgument("writer already finished");
  if (s.current < s.sections.size()) {
    return Status::InvalidArgument(DescribeSection(s.sections[s.current], s.current) + " is short: " +
                                   std::to_string(s.filled) + " of " +
                                   std::to_string(s.sections[s.current].stored_length) + " bytes");
  }
  if (!signers.empty() && !s.options.seal) return Status::InvalidArgument("only a sealed file can be signed");
  if (s.options.seal) {
    s.footer.header_digest = HeaderDigest(s.preamble_bytes, s.header_bytes);
    s.footer.root = RootOf(s.footer.header_digest, s.footer.section_digests);
  }
  for (const SigningKey* key : signers) {
    VEXFS_ASSIGN_OR_RETURN(auto sig, key->Sign(SignedMessage(s.footer.root)));
    s.footer.signatures.push_back({1, key->public_key.raw, sig});
  }
  s.finished = true;
  return s.sink->Write(EncodeFooter(s.footer));
}

std::string SignedMessage(const Digest& root) {
  std::string msg("USXF-v1-signature", 17);
  msg.push_back('\0');
  msg.append(reinterpret_cast<const char*>(root.data()), root.size());
  return msg;
}

}  // namespace vexfs::usxf
