#include "kv/state_file.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/sha256.h"

namespace vexfs::kv {
namespace {

constexpr char kKvSection[] = "kv";
constexpr char kLogitsSection[] = "kv.next_logits";
constexpr char kReferenceSection[] = "kv.reference";

usxf::DType DTypeOf(CacheType t) {
  switch (t) {
    case CacheType::kF32: return usxf::DType::kF32;
    case CacheType::kF16: return usxf::DType::kF16;
    case CacheType::kBF16: return usxf::DType::kBF16;
    case CacheType::kQ8_0: return usxf::DType::kQ8_0;
  }
  return usxf::DType::kNone;
}

Result<CacheType> CacheTypeOf(uint32_t dtype) {
  switch (static_cast<usxf::DType>(dtype)) {
    case usxf::DType::kF32: return CacheType::kF32;
    case usxf::DType::kF16: return CacheType::kF16;
    case usxf::DType::kBF16: return CacheType::kBF16;
    case usxf::DType::kQ8_0: return CacheType::kQ8_0;
    default:
      return Status::NotSupported(std::string("kv section dtype ") + usxf::DTypeName(dtype) +
                                  " cannot be loaded into a llama.cpp cache");
  }
}

std::string_view Bytes(const std::vector<float>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)};
}

std::string ReferenceJson(const Reference& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const ReferenceStep& s : r.steps) {
    nlohmann::json top = nlohmann::json::array();
    for (const auto& [id, logit] : s.top) top.push_back({id, logit});
    steps.push_back({{"token", s.token}, {"logits_sha256", usxf::HexOf(s.logits_sha256)}, {"top", top}});
  }
  return nlohmann::json{{"format", "vexfs-kv-reference-v1"}, {"settings", r.settings}, {"steps", steps}}.dump();
}

Result<usxf::Digest> DigestFromHex(const std::string& hex) {
  VEXFS_ASSIGN_OR_RETURN(ObjectId id, ObjectId::FromHex(hex));
  return id.bytes;
}

Result<Reference> ParseReference(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "vexfs-kv-reference-v1" ||
      !j.contains("steps") || !j["steps"].is_array()) {
    return Status::Corruption("section kv.reference is not a vexfs-kv-reference-v1 record");
  }
  Reference r;
  r.settings = j.value("settings", "");
  for (const auto& s : j["steps"]) {
    ReferenceStep step;
    if (!s.is_object() || !s.contains("token") || !s["token"].is_number_integer() ||
        !s.contains("logits_sha256") || !s["logits_sha256"].is_string() ||
        !s.contains("top") || !s["top"].is_array()) {
      return Status::Corruption("section kv.reference: malformed step " + std::to_string(r.steps.size()));
    }
    step.token = s["token"].get<int32_t>();
    VEXFS_ASSIGN_OR_RETURN(step.logits_sha256, DigestFromHex(s["logits_sha256"].get<std::string>()));
    for (const auto& t : s["top"]) {
      if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() || !t[1].is_number()) {
        return Status::Corruption("section kv.reference: malformed top logit");
      }
      step.top.emplace_back(t[0].get<int32_t>(), t[1].get<float>());
    }
    r.steps.push_back(std::move(step));
  }
  return r;
}

Result<size_t> Require(const usxf::MappedFile& file, const char* name, usxf::SectionKind kind) {
  auto i = file.Find(name);
  if (!i.ok()) return Status::NotFound(std::string("not a KV state file: no section '") + name + "'");
  if (file.sections()[*i].kind != static_cast<uint32_t>(kind)) {
    return Status::Corruption(std::string("section '") + name + "' has the wrong kind");
  }
  return *i;
}

// Everything of the kv section but its values, which stay where they are: the
// returned view points into the file's bytes or into `storage` when they had to
// be decoded.
Result<std::string_view> DecodeKv(const usxf::MappedFile& file, StateBundle& b, std::string* storage) {
  VEXFS_ASSIGN_OR_RETURN(size_t i, Require(file, kKvSection, usxf::SectionKind::kKvCache));
  const usxf::SectionInfo& s = file.sections()[i];
  VEXFS_ASSIGN_OR_RETURN(b.info, usxf::KvCacheInfo::FromSection(s));
  VEXFS_ASSIGN_OR_RETURN(b.kv.type, CacheTypeOf(s.dtype));
  b.kv.n_tokens = static_cast<uint32_t>(b.info.n_tokens());
  b.kv.k_rotation = b.info.k_rotation;
  b.kv.v_rotation = b.info.v_rotation;
  return file.Values(i, storage);
}

// The cache is most of the file: rather than copy it into fresh memory, the
// file's own buffer becomes the cache (one memmove within pages already touched).
std::string TakeValues(std::string file_bytes, std::string storage, std::string_view values) {
  const char* begin = file_bytes.data();
  if (values.data() >= begin && values.data() + values.size() <= begin + file_bytes.size()) {
    file_bytes.erase(0, static_cast<size_t>(values.data() - begin));
    file_bytes.resize(values.size());
    return file_bytes;
  }
  if (values.data() == storage.data() && values.size() == storage.size()) return storage;
  return std::string(values);
}

Status DecodeLogits(const usxf::MappedFile& file, StateBundle& b) {
  VEXFS_ASSIGN_OR_RETURN(size_t i, Require(file, kLogitsSection, usxf::SectionKind::kTensor));
  const usxf::SectionInfo& s = file.sections()[i];
  if (s.dtype != static_cast<uint32_t>(usxf::DType::kF32) || s.shape.size() != 1) {
    return Status::Corruption("section kv.next_logits must be a 1-d f32 tensor");
  }
  std::string storage;
  VEXFS_ASSIGN_OR_RETURN(std::string_view values, file.Values(i, &storage));
  b.next_logits.resize(values.size() / sizeof(float));
  std::memcpy(b.next_logits.data(), values.data(), b.next_logits.size() * sizeof(float));
  return Status::Ok();
}

}  // namespace

usxf::Digest LogitsDigest(const std::vector<float>& logits) { return Sha256Of(Bytes(logits)).bytes; }

ReferenceStep MakeReferenceStep(int32_t token, const std::vector<float>& logits, size_t top_k) {
  ReferenceStep step;
  step.token = token;
  step.logits_sha256 = LogitsDigest(logits);
  std::vector<int32_t> ids(logits.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  const size_t k = std::min(top_k, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<long>(k), ids.end(), [&](int32_t a, int32_t b) {
    return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
  });
  for (size_t i = 0; i < k; ++i) step.top.emplace_back(ids[i], logits[ids[i]]);
  return step;
}

Status WriteStateFile(const std::string& path, const StateBundle& b, const usxf::SigningKey* signer) {
  usxf::KvCacheInfo info = b.info;
  info.k_rotation = b.kv.k_rotation;
  info.v_rotation = b.kv.v_rotation;
  VEXFS_RETURN_IF_ERROR(info.Validate());
  std::vector<usxf::SectionData> sections;
  sections.push_back({usxf::KvSection(kKvSection, info, DTypeOf(b.kv.type)), b.kv.data});
  usxf::SectionInfo logits;
  logits.name = kLogitsSection;
  logits.kind = static_cast<uint32_t>(usxf::SectionKind::kTensor);
  logits.dtype = static_cast<uint32_t>(usxf::DType::kF32);
  logits.shape = {b.next_logits.size()};
  sections.push_back({logits, Bytes(b.next_logits)});
  std::string reference;
  if (b.reference) {
    reference = ReferenceJson(*b.reference);
    usxf::SectionInfo r;
    r.name = kReferenceSection;
    sections.push_back({r, reference});
  }
  std::vector<const usxf::SigningKey*> signers;
  if (signer != nullptr) signers.push_back(signer);
  return usxf::WriteFileToPath(path, sections, usxf::Metadata(), usxf::WriterOptions(), signers);
}

Result<StateBundle> ReadStateFile(const std::string& path, const usxf::Keyring* keyring) {
  // Read once into memory, verify those bytes and decode those bytes: a file
  // changed on disk after the check cannot slip anything in.
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  usxf::VerifyReport report = usxf::VerifyBytes(bytes, {usxf::VerifyLevel::kFull, keyring, 2});
  if (!report.status.ok()) return report.status.WithContext(path);
  VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::FromBytes(bytes));
  StateBundle b;
  std::string kv_storage;
  auto kv_values = DecodeKv(*file, b, &kv_storage);
  if (!kv_values.ok()) return kv_values.status().WithContext(path);
  VEXFS_RETURN_IF_ERROR(DecodeLogits(*file, b).WithContext(path));
  if (auto i = file->Find(kReferenceSection); i.ok()) {
    std::string storage;
    VEXFS_ASSIGN_OR_RETURN(std::string_view text, file->Values(*i, &storage));
    VEXFS_ASSIGN_OR_RETURN(Reference r, ParseReference(text));
    b.reference = std::move(r);
  }
  file.reset();  // it views `bytes`, which now become the cache
  b.kv.data = TakeValues(std::move(bytes), std::move(kv_storage), *kv_values);
  return b;
}

}  // namespace vexfs::kv
