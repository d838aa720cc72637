// Writing and reading KV state files (see state_file.h): the sections of a
// capture in one USXF file, and the kv.reference JSON, read without exceptions.
#include "vexfs/kv/state_file.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/file_util.h"
#include "common/sha256.h"

namespace vexfs::kv {
namespace {

constexpr char kKvSection[] = "kv";
constexpr char kLogitsSection[] = "kv.next_logits";
constexpr char kReferenceSection[] = "kv.reference";

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

constexpr char kReferenceFormat[] = "vexfs-kv-reference-v1";

using Json = nlohmann::json;

// Every complaint about the reference names the section, the step and the field.
Status BadReference(const std::string& what) {
  return Status::Corruption(std::string("section ") + kReferenceSection + ": " + what);
}

// The member `name` of an object, or null when it has none.
const Json* Member(const Json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

Result<const Json*> Required(const Json& object, const char* name, const std::string& where) {
  const Json* v = Member(object, name);
  if (v == nullptr) return BadReference(where + "field '" + name + "' is missing");
  return v;
}

// Integers outside int32 are refused rather than truncated: they cannot be token ids.
Result<int32_t> Int32Of(const Json& v, const std::string& what) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() <= uint64_t{INT32_MAX}) return static_cast<int32_t>(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i >= INT32_MIN && i <= INT32_MAX) return static_cast<int32_t>(i);
  }
  return BadReference(what + " is not a 32-bit integer");
}

// A double beyond float range has no float to convert to (undefined behaviour).
Result<float> FloatOf(const Json& v, const std::string& what) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::fabs(d) <= FLT_MAX) return static_cast<float>(d);
  }
  return BadReference(what + " is not a finite 32-bit float");
}

Result<usxf::Digest> DigestOf(const Json& v, const std::string& what) {
  if (v.is_string()) {
    if (auto id = ObjectId::FromHex(v.get_ref<const std::string&>()); id.ok()) return id->bytes;
  }
  return BadReference(what + " is not 64 hex digits");
}

Result<std::pair<int32_t, float>> DecodeTopLogit(const Json& t, const std::string& where) {
  if (!t.is_array() || t.size() != 2) return BadReference(where + "is not an [id, logit] pair");
  VEXFS_ASSIGN_OR_RETURN(int32_t id, Int32Of(t[0], where + "id"));
  VEXFS_ASSIGN_OR_RETURN(float logit, FloatOf(t[1], where + "logit"));
  return std::make_pair(id, logit);
}

Result<ReferenceStep> DecodeStep(const Json& s, const std::string& where) {
  if (!s.is_object()) return BadReference(where + "is not an object");
  ReferenceStep step;
  VEXFS_ASSIGN_OR_RETURN(const Json* token, Required(s, "token", where));
  VEXFS_ASSIGN_OR_RETURN(step.token, Int32Of(*token, where + "field 'token'"));
  VEXFS_ASSIGN_OR_RETURN(const Json* digest, Required(s, "logits_sha256", where));
  VEXFS_ASSIGN_OR_RETURN(step.logits_sha256, DigestOf(*digest, where + "field 'logits_sha256'"));
  VEXFS_ASSIGN_OR_RETURN(const Json* top, Required(s, "top", where));
  if (!top->is_array()) return BadReference(where + "field 'top' is not an array");
  for (size_t i = 0; i < top->size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(auto pair,
                           DecodeTopLogit((*top)[i], where + "top entry " + std::to_string(i) + ": "));
    step.top.push_back(pair);
  }
  return step;
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
// Taken by reference so that `values` is compared with the buffers it was read
// from: moving a short string into a parameter copies it out of its inline buffer
// and clears the original, which would leave `values` pointing at neither.
std::string TakeValues(std::string&& file_bytes, std::string&& storage, std::string_view values) {
  const char* begin = file_bytes.data();
  if (values.data() >= begin && values.data() + values.size() <= begin + file_bytes.size()) {
    file_bytes.erase(0, static_cast<size_t>(values.data() - begin));
    file_bytes.resize(values.size());
    return std::move(file_bytes);
  }
  if (values.data() == storage.data() && values.size() == storage.size()) return std::move(storage);
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

std::string EncodeReference(const Reference& r) {
  Json steps = Json::array();
  for (const ReferenceStep& s : r.steps) {
    Json top = Json::array();
    for (const auto& [id, logit] : s.top) top.push_back({id, logit});
    steps.push_back({{"token", s.token}, {"logits_sha256", usxf::HexOf(s.logits_sha256)}, {"top", top}});
  }
  // Settings are the runtime's own words; invalid UTF-8 there must not throw.
  return Json{{"format", kReferenceFormat}, {"settings", r.settings}, {"steps", steps}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
}

Result<Reference> DecodeReference(std::string_view text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return BadReference("not JSON");
  if (!j.is_object()) return BadReference("not a JSON object");
  const Json* format = Member(j, "format");
  if (format == nullptr || !format->is_string() || *format != kReferenceFormat) {
    return BadReference(std::string("field 'format' is not \"") + kReferenceFormat + "\"");
  }
  Reference r;
  if (const Json* settings = Member(j, "settings"); settings != nullptr) {
    if (!settings->is_string()) return BadReference("field 'settings' is not a string");
    r.settings = settings->get<std::string>();
  }
  VEXFS_ASSIGN_OR_RETURN(const Json* steps, Required(j, "steps", ""));
  if (!steps->is_array()) return BadReference("field 'steps' is not an array");
  for (size_t i = 0; i < steps->size(); ++i) {
    VEXFS_ASSIGN_OR_RETURN(ReferenceStep step, DecodeStep((*steps)[i], "step " + std::to_string(i) + ": "));
    r.steps.push_back(std::move(step));
  }
  return r;
}

usxf::Digest LogitsDigest(const std::vector<float>& logits) { return Sha256Of(Bytes(logits)).bytes; }

usxf::DType StoredDType(CacheType t) {
  switch (t) {
    case CacheType::kF32: return usxf::DType::kF32;
    case CacheType::kF16: return usxf::DType::kF16;
    case CacheType::kBF16: return usxf::DType::kBF16;
    case CacheType::kQ8_0: return usxf::DType::kQ8_0;
  }
  return usxf::DType::kNone;
}

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
  sections.push_back({usxf::KvSection(kKvSection, info, StoredDType(b.kv.type)), b.kv.data});
  usxf::SectionInfo logits;
  logits.name = kLogitsSection;
  logits.kind = static_cast<uint32_t>(usxf::SectionKind::kTensor);
  logits.dtype = static_cast<uint32_t>(usxf::DType::kF32);
  logits.shape = {b.next_logits.size()};
  sections.push_back({logits, Bytes(b.next_logits)});
  std::string reference;
  if (b.reference) {
    reference = EncodeReference(*b.reference);
    usxf::SectionInfo r;
    r.name = kReferenceSection;
    sections.push_back({r, reference});
  }
  std::vector<const usxf::SigningKey*> signers;
  if (signer != nullptr) signers.push_back(signer);
  return usxf::WriteFileToPath(path, sections, usxf::Metadata(), usxf::WriterOptions(), signers);
}

Result<StateBundle> DecodeStateFile(std::string bytes, const usxf::Keyring* keyring) {
  // Verify these bytes and decode these bytes: whatever changes on disk after
  // they were read cannot slip anything in.
  usxf::VerifyReport report = usxf::VerifyBytes(bytes, {usxf::VerifyLevel::kFull, keyring, 2});
  VEXFS_RETURN_IF_ERROR(report.status);
  VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::FromBytes(bytes));
  StateBundle b;
  std::string kv_storage;
  VEXFS_ASSIGN_OR_RETURN(std::string_view kv_values, DecodeKv(*file, b, &kv_storage));
  VEXFS_RETURN_IF_ERROR(DecodeLogits(*file, b));
  if (auto i = file->Find(kReferenceSection); i.ok()) {
    std::string storage;
    VEXFS_ASSIGN_OR_RETURN(std::string_view text, file->Values(*i, &storage));
    VEXFS_ASSIGN_OR_RETURN(Reference r, DecodeReference(text));
    b.reference = std::move(r);
  }
  file.reset();  // it views `bytes`, which now become the cache
  b.kv.data = TakeValues(std::move(bytes), std::move(kv_storage), kv_values);
  return b;
}

Result<StateBundle> ReadStateFile(const std::string& path, const usxf::Keyring* keyring) {
  VEXFS_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  auto bundle = DecodeStateFile(std::move(bytes), keyring);
  if (!bundle.ok()) return bundle.status().WithContext(path);
  return bundle;
}

}  // namespace vexfs::kv
