// Section payloads: quantisation then zstd on the way in, the reverse on the way
// out; and WriteFile, which writes whole in-memory sections.
#include "usxf/section_codec.h"

#include <zstd.h>

#include "usxf/format.h"
#include "usxf/le.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf {
namespace {

constexpr int kZstdLevel = 3;
// Readers refuse compressed sections claiming more than this ratio, so a tiny
// section cannot make them allocate terabytes; writers store such a section
// uncompressed instead (docs/usxf.md, "Compression").
constexpr uint64_t kMaxZstdRatio = 1024;
constexpr uint64_t kZstdSlack = 1 << 20;
constexpr uint32_t kZstdFrameMagic = 0xFD2FB528;

bool IsBlob(const SectionInfo& s) { return s.kind == static_cast<uint32_t>(SectionKind::kBlob); }

// Blobs and kinds this reader does not know are bytes: only their compression is
// undone, since their other fields were never checked against their length.
bool IsBytes(const SectionInfo& s) {
  return IsBlob(s) || s.kind < static_cast<uint32_t>(SectionKind::kBlob) ||
         s.kind > static_cast<uint32_t>(SectionKind::kKvCache);
}

Status Compress(std::string_view in, std::string* out) {
  out->resize(ZSTD_compressBound(in.size()));
  size_t n = ZSTD_compress(out->data(), out->size(), in.data(), in.size(), kZstdLevel);
  if (ZSTD_isError(n)) return Status::IOError(std::string("zstd: ") + ZSTD_getErrorName(n));
  out->resize(n);
  return Status::Ok();
}

Status Decompress(const SectionInfo& s, const std::string& who, std::string_view in,
                  std::string* out) {
  // A skippable frame "declares" a content size of 0 and carries anything.
  if (in.size() < 4 || LoadLE<uint32_t>(in.data()) != kZstdFrameMagic) {
    return Status::Corruption(who + ": stored bytes are not a regular zstd frame");
  }
  unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
  if (declared != s.raw_length) {
    return Status::Corruption(who + ": zstd frame does not declare the raw length " +
                              std::to_string(s.raw_length));
  }
  if (ZSTD_findFrameCompressedSize(in.data(), in.size()) != in.size()) {
    return Status::Corruption(who + ": zstd data is not exactly one frame");
  }
  if (s.raw_length > kMaxZstdRatio * s.stored_length + kZstdSlack) {
    // Refused before allocating: a few bytes must not claim terabytes.
    return Status::Corruption(who + ": claims a zstd ratio beyond " + std::to_string(kMaxZstdRatio) + ":1");
  }
  out->resize(s.raw_length);
  size_t n = ZSTD_decompress(out->data(), out->size(), in.data(), in.size());
  if (ZSTD_isError(n) || n != s.raw_length) {
    return Status::Corruption(who + ": zstd data does not decompress to " + std::to_string(s.raw_length) + " bytes");
  }
  return Status::Ok();
}

}  // namespace

Status EncodeSection(const SectionData& data, SectionInfo* info, std::string* stored) {
  *info = data.info;
  std::string encoded;
  std::string_view payload = data.values;
  if (!IsBlob(*info) && info->encoding != static_cast<uint32_t>(Encoding::kNone)) {
    Status st = EncodeValues(static_cast<DType>(info->dtype), static_cast<Encoding>(info->encoding),
                             info->group_size, data.values, &encoded);
    if (!st.ok()) return Status::InvalidArgument("section '" + info->name + "': " + st.message());
    payload = encoded;
  } else if (!IsBlob(*info)) {
    auto expected = EncodedLength(info->dtype, info->encoding, info->group_size, info->ElementCount());
    if (!expected.ok()) return Status::InvalidArgument("section '" + info->name + "': " + expected.status().message());
    if (*expected != data.values.size()) {
      return Status::InvalidArgument("section '" + info->name + "': " + std::to_string(data.values.size()) +
                                     " bytes of values, shape needs " + std::to_string(*expected));
    }
  }
  info->raw_length = payload.size();
  if (info->compression == static_cast<uint32_t>(Compression::kZstd)) {
    VEXFS_RETURN_IF_ERROR(Compress(payload, stored));
    if (payload.size() > kMaxZstdRatio * stored->size() + kZstdSlack) {
      info->compression = static_cast<uint32_t>(Compression::kNone);
      *stored = std::string(payload);
    }
  } else if (info->compression != static_cast<uint32_t>(Compression::kNone)) {
    return Status::InvalidArgument("section '" + info->name + "': unknown compression");
  } else if (payload.data() == encoded.data()) {
    *stored = std::move(encoded);
  } else {
    stored->clear();
  }
  info->stored_length = stored->empty() && info->compression == 0 ? data.values.size() : stored->size();
  return Status::Ok();
}

Result<std::string_view> DecodeSection(const SectionInfo& s, size_t index, std::string_view stored,
                                       std::string* storage) {
  const std::string who = DescribeSection(s, index);
  if (s.compression > static_cast<uint32_t>(Compression::kZstd) ||
      (!IsBytes(s) && (s.dtype > static_cast<uint32_t>(DType::kQ8_0) ||
                      s.encoding > static_cast<uint32_t>(Encoding::kInt8Group)))) {
    return Status::NotSupported(who + ": unknown dtype, encoding or compression; cannot decode");
  }
  std::string decompressed;
  std::string_view payload = stored;
  if (s.compression == static_cast<uint32_t>(Compression::kZstd)) {
    VEXFS_RETURN_IF_ERROR(Decompress(s, who, stored, &decompressed));
    payload = decompressed;
  }
  if (IsBytes(s) || s.encoding == static_cast<uint32_t>(Encoding::kNone)) {
    if (payload.data() == stored.data()) return payload;  // zero copy
    *storage = std::move(decompressed);
    return std::string_view(*storage);
  }
  Status st = DecodeValues(static_cast<DType>(s.dtype), static_cast<Encoding>(s.encoding),
                           s.group_size, payload, s.ElementCount(), storage);
  if (!st.ok()) return Status::Corruption(who + ": " + st.message());
  return std::string_view(*storage);
}

Status WriteFile(ByteSink* sink, const std::vector<SectionData>& sections,
                 const Metadata& file_metadata, const WriterOptions& options,
                 const std::vector<const SigningKey*>& signers) {
  std::vector<SectionInfo> infos(sections.size());
  std::vector<std::string> stored(sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    VEXFS_RETURN_IF_ERROR(EncodeSection(sections[i], &infos[i], &stored[i]));
  }
  VEXFS_ASSIGN_OR_RETURN(auto writer, Writer::Start(sink, infos, file_metadata, options));
  for (size_t i = 0; i < sections.size(); ++i) {
    const bool as_given = stored[i].empty() && infos[i].compression == 0;
    VEXFS_RETURN_IF_ERROR(writer->Append(as_given ? sections[i].values : std::string_view(stored[i])));
  }
  return writer->Finish(signers);
}

Status WriteFileToPath(const std::string& path, const std::vector<SectionData>& sections,
                       const Metadata& file_metadata, const WriterOptions& options,
                       const std::vector<const SigningKey*>& signers) {
  VEXFS_ASSIGN_OR_RETURN(auto sink, AtomicFileSink::Create(path));
  VEXFS_RETURN_IF_ERROR(WriteFile(sink.get(), sections, file_metadata, options, signers));
  return sink->Commit();
}

}  // namespace vexfs::usxf
