// The checks run on every fuzz input (see usxf_fuzz_body.h). Each invariant is one
// the library promises in its headers; a message names which one broke.
#include "fuzz/usxf_fuzz_body.h"

#include <cstdint>
#include <vector>

#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_kv.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf::fuzz {
namespace {

constexpr int kMaxRecordDepth = 8;  // the format allows 4; deeper is already a bug

bool IsBlob(const SectionInfo& s) { return s.kind == static_cast<uint32_t>(SectionKind::kBlob); }

bool KnownKind(const SectionInfo& s) {
  return s.kind >= static_cast<uint32_t>(SectionKind::kBlob) &&
         s.kind <= static_cast<uint32_t>(SectionKind::kKvCache);
}

// Whether this reader knows how to decode the section's bytes. Blobs and unknown
// kinds are bytes, whatever their dtype and encoding say.
bool KnownCodec(const SectionInfo& s) {
  if (s.compression > static_cast<uint32_t>(Compression::kZstd)) return false;
  return IsBlob(s) || !KnownKind(s) ||
         (s.dtype <= static_cast<uint32_t>(DType::kQ8_0) &&
          s.encoding <= static_cast<uint32_t>(Encoding::kInt8Group));
}

std::string Describe(const Status& s) { return s.ok() ? "ok" : s.ToString(); }

std::string Where(const SectionInfo& s, size_t i) {
  return "section " + std::to_string(i) + " '" + s.name + "'";
}

// Decoding is meant to accept only the canonical encoding (ascending tags, no
// duplicates), so whatever decodes must encode back to the same bytes, nested
// records included. `must_decode` for bytes a header check has already accepted.
std::string CheckMetadata(std::string_view bytes, const std::string& what, bool must_decode,
                          int depth = 0) {
  Result<Metadata> m = Metadata::Decode(bytes);
  if (!m.ok()) {
    return must_decode ? what + ": accepted by the header check, refused by Metadata::Decode: " +
                             Describe(m.status())
                       : "";
  }
  if (m->Encode() != bytes) {
    return what + ": Metadata::Decode accepted bytes that re-encode differently";
  }
  if (depth >= kMaxRecordDepth) return what + ": records nested deeper than the format allows";
  for (const auto& [tag, field] : m->fields()) {
    if (field.type != FieldType::kRecord) continue;
    std::string broken = CheckMetadata(field.value, what + " record tag " + std::to_string(tag),
                                       /*must_decode=*/true, depth + 1);
    if (!broken.empty()) return broken;
  }
  return "";
}

std::string SectionDiff(const SectionInfo& a, const SectionInfo& b) {
  if (a.name != b.name) return "name";
  if (a.kind != b.kind || a.dtype != b.dtype || a.encoding != b.encoding) {
    return "kind/dtype/encoding";
  }
  if (a.compression != b.compression || a.group_size != b.group_size) {
    return "compression/group_size";
  }
  if (a.shape != b.shape) return "shape";
  if (a.stored_length != b.stored_length || a.raw_length != b.raw_length) return "lengths";
  if (a.offset != b.offset) return "offset";
  if (a.metadata != b.metadata) return "metadata";
  return "";
}

std::string SectionsDiff(const std::vector<SectionInfo>& a, const std::vector<SectionInfo>& b) {
  if (a.size() != b.size()) return "section count";
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::string d = SectionDiff(a[i], b[i]); !d.empty()) return Where(a[i], i) + " " + d;
  }
  return "";
}

std::string SummaryDiff(const FileSummary& a, const FileSummary& b) {
  if (a.major != b.major || a.minor != b.minor) return "version";
  if (a.alignment != b.alignment || a.chunk_log2 != b.chunk_log2) return "alignment/chunk_log2";
  if (a.header_length != b.header_length || a.data_offset != b.data_offset ||
      a.footer_offset != b.footer_offset || a.file_length != b.file_length) {
    return "lengths/offsets";
  }
  if (a.file_metadata != b.file_metadata) return "file metadata";
  if (std::string d = SectionsDiff(a.sections, b.sections); !d.empty()) return d;
  if (a.section_checksums != b.section_checksums) return "section checksums";
  if (a.sealed != b.sealed || a.section_digests != b.section_digests ||
      a.header_digest != b.header_digest || a.root != b.root) {
    return "seal";
  }
  if (a.signatures.size() != b.signatures.size()) return "signature count";
  for (size_t i = 0; i < a.signatures.size(); ++i) {
    const Signature &x = a.signatures[i], &y = b.signatures[i];
    if (x.algorithm != y.algorithm || x.public_key != y.public_key || x.signature != y.signature) {
      return "signature " + std::to_string(i);
    }
  }
  return "";
}

// What an opened file says about itself must be consistent with the bytes.
std::string CheckOpened(const MappedFile& file, std::string_view bytes) {
  const FileSummary& s = file.summary();
  const size_t n = s.sections.size();
  if (s.file_length != bytes.size()) return "summary: file_length differs from the input";
  if (n > kMaxSections) return "summary: more sections than the format allows";
  if (s.section_checksums.size() != n) return "summary: one checksum per section expected";
  if (s.sealed ? s.section_digests.size() != n : !s.section_digests.empty()) {
    return "summary: section digests do not match the seal";
  }
  if (s.signatures.size() > kMaxSignatures || (!s.sealed && !s.signatures.empty())) {
    return "summary: signatures beyond the limit or on an unsealed file";
  }
  if (s.data_offset > s.footer_offset || s.footer_offset > s.file_length) {
    return "summary: data and footer offsets out of order";
  }
  if (std::string b = CheckMetadata(s.file_metadata, "file metadata", /*must_decode=*/true);
      !b.empty()) {
    return b;
  }
  for (size_t i = 0; i < n; ++i) {
    const SectionInfo& sec = s.sections[i];
    const std::string where = Where(sec, i);
    if (sec.name.empty() || sec.shape.size() > kMaxRank) {
      return where + ": name or rank out of bounds";
    }
    if (sec.offset < s.data_offset || sec.stored_length > s.footer_offset - sec.offset) {
      return where + ": lies outside the data area";
    }
    const std::string_view stored = file.StoredBytes(i);
    if (stored.data() != bytes.data() + sec.offset || stored.size() != sec.stored_length) {
      return where + ": StoredBytes is not the bytes at the section's offset";
    }
    Result<size_t> found = file.Find(sec.name);
    if (!found.ok() || *found != i) {
      return where + ": Find does not return it (names must be unique)";
    }
    if (std::string b = CheckMetadata(sec.metadata, where + " metadata", /*must_decode=*/true);
        !b.empty()) {
      return b;
    }
  }
  return "";
}

// Values decodes to exactly what the header declares: raw_length bytes when the
// payload is stored in its dtype or the kind is unknown (whose decompressed bytes
// are handed out as they are), without a copy when it is not compressed either;
// else one dtype element per shape element.
std::string CheckValues(const MappedFile& file, size_t i) {
  const SectionInfo& s = file.sections()[i];
  std::string storage;
  Result<std::string_view> values = file.Values(i, &storage);
  if (!KnownCodec(s)) {
    return values.ok()
               ? Where(s, i) + ": decoded although its dtype, encoding or compression is unknown"
               : "";
  }
  if (!values.ok()) return "";  // hostile contents may fail to decode; refusing is fine
  const bool in_dtype = IsBlob(s) || s.encoding == static_cast<uint32_t>(Encoding::kNone);
  const uint64_t expected = in_dtype || !KnownKind(s)
                                ? s.raw_length
                                : s.ElementCount() * DTypeSize(static_cast<DType>(s.dtype));
  if (values->size() != expected) {
    return Where(s, i) + ": Values gave " + std::to_string(values->size()) +
           " bytes, the header says " + std::to_string(expected);
  }
  if (in_dtype && s.compression == static_cast<uint32_t>(Compression::kNone) &&
      values->data() != file.StoredBytes(i).data()) {
    return Where(s, i) + ": an uncompressed section in its dtype was copied";
  }
  return "";
}

// Elements of the canonical layout computed without wrapping, to hold
// KvCacheInfo::ElementCount (and so KOffset/VOffset) to the true count.
unsigned __int128 TrueElementCount(const KvCacheInfo& kv) {
  unsigned __int128 total = 0;
  for (uint32_t l = 0; l < kv.n_layers; ++l) {
    total += static_cast<unsigned __int128>(kv.n_tokens()) * kv.n_kv_heads[l] *
             (uint64_t{kv.k_head_dim[l]} + kv.v_head_dim[l]);
  }
  return total;
}

// A KV section FromSection accepts must describe itself consistently: it
// validates, survives a metadata round trip, and its layout size is the true one.
// (Refusing is fine: the header check leaves KV meaning to whoever interprets it.)
std::string CheckKv(const SectionInfo& s, size_t i) {
  const std::string where = Where(s, i);
  Result<KvCacheInfo> kv = KvCacheInfo::FromSection(s);
  if (!kv.ok()) return "";
  if (Status st = kv->Validate(); !st.ok()) {
    return where + ": FromSection returned an invalid kv: " + Describe(st);
  }
  if (TrueElementCount(*kv) != kv->ElementCount()) {
    return where + ": KvCacheInfo::ElementCount wraps around 2^64 (" +
           std::to_string(kv->ElementCount()) + " for " + std::to_string(kv->n_tokens()) +
           " tokens, " + std::to_string(kv->n_layers) +
           " layers); KOffset/VOffset point outside the section";
  }
  const Metadata encoded = kv->ToMetadata();
  Result<KvCacheInfo> again = KvCacheInfo::FromMetadata(encoded);
  if (!again.ok()) {
    return where + ": kv does not survive ToMetadata/FromMetadata: " + Describe(again.status());
  }
  if (again->ToMetadata().Encode() != encoded.Encode()) {
    return where + ": kv metadata round trip changes it";
  }
  return "";
}

// One StreamReader pass over the input.
struct StreamRun {
  Status open;                        // StreamReader::Open
  Status read;                        // ReadAll, when Open succeeded
  std::vector<SectionInfo> sections;  // as Open decoded them
  FileSummary summary;                // when ReadAll succeeded
  std::string broken;                 // an invariant the consume calls broke
  bool ok() const { return open.ok() && read.ok(); }
};

// kFull consumes nothing, as a receiver only verifying would. kFast checks what
// consume is handed: each section's own input bytes, in order, each byte once.
StreamRun RunStream(std::string_view bytes, VerifyLevel level) {
  StreamRun run;
  StringSource source(bytes);
  Result<std::unique_ptr<StreamReader>> reader = StreamReader::Open(&source, level);
  run.open = reader.status();
  if (!reader.ok()) return run;
  run.sections = (*reader)->sections();
  if (level == VerifyLevel::kFull) {
    run.read = (*reader)->ReadAll([](size_t, std::string_view) { return Status::Ok(); });
  } else {
    std::vector<uint64_t> delivered(run.sections.size(), 0);
    size_t current = 0;
    run.read = (*reader)->ReadAll([&](size_t i, std::string_view piece) {
      if (i >= run.sections.size() || i < current) {
        run.broken =
            "StreamReader: consume called for section " + std::to_string(i) + " out of order";
        return Status::Corruption("fuzz: stop");
      }
      current = i;
      const SectionInfo& s = run.sections[i];
      const uint64_t at = s.offset + delivered[i];
      if (piece.size() > s.stored_length - delivered[i] || at > bytes.size() ||
          bytes.substr(at, piece.size()) != piece) {
        run.broken = "StreamReader: consume got bytes that are not " + Where(s, i) + "'s";
        return Status::Corruption("fuzz: stop");
      }
      delivered[i] += piece.size();
      return Status::Ok();
    });
    for (size_t i = 0; run.read.ok() && run.broken.empty() && i < delivered.size(); ++i) {
      if (delivered[i] != run.sections[i].stored_length) {
        run.broken = "StreamReader: " + Where(run.sections[i], i) + " delivered " +
                     std::to_string(delivered[i]) + " of its bytes";
      }
    }
  }
  if (run.read.ok()) run.summary = (*reader)->summary();
  return run;
}

std::string Disagree(const char* level, const Status& mapped, const StreamRun& stream) {
  return std::string("readers disagree at ") + level + ": MappedFile says " + Describe(mapped) +
         ", StreamReader says " + Describe(stream.open.ok() ? stream.read : stream.open);
}

}  // namespace

std::string CheckReaders(std::string_view bytes) {
  // Header metadata is the most exposed parser; the raw input is a fine record too.
  if (std::string b = CheckMetadata(bytes, "input as metadata", /*must_decode=*/false);
      !b.empty()) {
    return b;
  }

  Result<std::unique_ptr<MappedFile>> mapped = MappedFile::FromBytes(bytes);
  Status fast = mapped.status(), full = mapped.status();
  if (mapped.ok()) {
    const MappedFile& file = **mapped;
    if (std::string b = CheckOpened(file, bytes); !b.empty()) return b;
    fast = file.Verify(VerifyLevel::kFast);
    full = file.Verify(VerifyLevel::kFull);
    const Status threaded = file.Verify(VerifyLevel::kFull, 2);
    if (threaded.ok() != full.ok()) {
      return "MappedFile::Verify(kFull) gives " + Describe(full) + " on one thread, " +
             Describe(threaded) + " on two";
    }
    if (full.ok() && !fast.ok()) return "Verify passes kFull but fails kFast: " + Describe(fast);
    if (full.ok() && !file.summary().sealed) return "Verify(kFull) passes an unsealed file";
    for (size_t i = 0; i < file.sections().size(); ++i) {
      if (std::string b = CheckValues(file, i); !b.empty()) return b;
      if (file.sections()[i].kind == static_cast<uint32_t>(SectionKind::kKvCache)) {
        if (std::string b = CheckKv(file.sections()[i], i); !b.empty()) return b;
      }
    }
  }

  const StreamRun stream_fast = RunStream(bytes, VerifyLevel::kFast);
  if (!stream_fast.broken.empty()) return stream_fast.broken;
  const StreamRun stream_full = RunStream(bytes, VerifyLevel::kFull);
  if (mapped.ok() && !stream_fast.open.ok()) {
    return "MappedFile opens the file, StreamReader::Open refuses its header: " +
           Describe(stream_fast.open);
  }
  if (fast.ok() != stream_fast.ok()) return Disagree("kFast", fast, stream_fast);
  if (full.ok() != stream_full.ok()) return Disagree("kFull", full, stream_full);
  if (mapped.ok() && stream_fast.open.ok()) {
    if (std::string d = SectionsDiff((*mapped)->sections(), stream_fast.sections); !d.empty()) {
      return "readers decode the header differently: " + d;
    }
  }
  if (fast.ok()) {
    if (std::string d = SummaryDiff((*mapped)->summary(), stream_fast.summary); !d.empty()) {
      return "readers summarise the file differently (kFast): " + d;
    }
  }
  if (full.ok()) {
    if (std::string d = SummaryDiff((*mapped)->summary(), stream_full.summary); !d.empty()) {
      return "readers summarise the file differently (kFull): " + d;
    }
  }
  return "";
}

}  // namespace vexfs::usxf::fuzz
