// Byte encodings of the index records (docs/format.md, "Search index").
#include "index/index_records.h"

#include <bit>
#include <cstring>

#include "common/coding.h"

namespace vexfs::index {
namespace {

constexpr size_t kIdBytes = 32;

static_assert(std::endian::native == std::endian::little,
              "vector floats are stored little-endian and copied as is");

std::string ModelPrefixed(uint32_t model, std::string_view rest) {
  Encoder e;
  e.PutFixed32BE(model);
  e.PutRaw(rest);
  return e.Take();
}

bool GetMetric(Decoder* d, Metric* metric) {
  uint8_t m = 0;
  if (!d->GetU8(&m) || (m != uint8_t(Metric::kInnerProduct) && m != uint8_t(Metric::kL2))) {
    return false;
  }
  *metric = static_cast<Metric>(m);
  return true;
}

}  // namespace

std::string ModelIdKey(uint32_t id) {
  Encoder e;
  e.PutU8('i');
  e.PutFixed32BE(id);
  return e.Take();
}

std::string ModelNameKey(std::string_view name) { return "n" + std::string(name); }

std::string PassagesKey(uint32_t model, const ObjectId& manifest) {
  return ModelPrefixed(model, manifest.AsBytes());
}

std::string VectorKey(uint32_t model, uint64_t vector) {
  Encoder e;
  e.PutFixed32BE(model);
  e.PutFixed64BE(vector);
  return e.Take();
}

std::string VectorPrefix(uint32_t model) { return ModelPrefixed(model, ""); }

std::string VectorDedupKey(uint32_t model, const ObjectId& passage_hash) {
  return ModelPrefixed(model, passage_hash.AsBytes());
}

std::string EncodeModel(const ModelRecord& m) {
  Encoder e;
  e.PutVarint(m.id);
  e.PutU8(static_cast<uint8_t>(m.kind));
  e.PutBytes(m.info.name);
  e.PutVarint(m.info.dim);
  e.PutU8(static_cast<uint8_t>(m.info.metric));
  e.PutBytes(m.info.fingerprint);
  e.PutVarint(m.next_vector);
  return e.Take();
}

Status DecodeModel(std::string_view v, ModelRecord* m) {
  Decoder d(v);
  uint8_t kind = 0;
  std::string_view name, fingerprint;
  bool ok = d.GetVarint32(&m->id) && d.GetU8(&kind) && d.GetBytes(&name) &&
            d.GetVarint32(&m->info.dim) && GetMetric(&d, &m->info.metric) &&
            d.GetBytes(&fingerprint) && d.GetVarint(&m->next_vector) && d.done();
  bool known_kind = kind == uint8_t(ModelKind::kEmbedded) ||
                    kind == uint8_t(ModelKind::kSupplied) || kind == uint8_t(ModelKind::kLexical);
  if (!ok || !known_kind) {
    return Status::Corruption("model record is malformed");
  }
  m->kind = static_cast<ModelKind>(kind);
  m->info.name = std::string(name);
  m->info.fingerprint = std::string(fingerprint);
  return Status::Ok();
}

std::string EncodePassages(const std::vector<StoredPassage>& passages) {
  Encoder e;
  e.PutVarint(passages.size());
  for (const StoredPassage& p : passages) {
    e.PutVarint(p.offset);
    e.PutVarint(p.length);
    e.PutVarint(p.vector);
  }
  return e.Take();
}

Status DecodePassages(std::string_view v, std::vector<StoredPassage>* passages) {
  Decoder d(v);
  uint64_t count = 0;
  // Each passage takes at least 3 bytes, which bounds a hostile count.
  if (!d.GetVarint(&count) || count > d.remaining() / 3) {
    return Status::Corruption("passage list is malformed");
  }
  passages->resize(count);
  for (StoredPassage& p : *passages) {
    if (!d.GetVarint(&p.offset) || !d.GetVarint(&p.length) || !d.GetVarint(&p.vector)) {
      return Status::Corruption("passage list is malformed");
    }
  }
  if (!d.done()) return Status::Corruption("passage list has trailing bytes");
  return Status::Ok();
}

std::string EncodeVector(const ObjectId& passage_hash, const float* values, uint32_t dim) {
  std::string out(passage_hash.AsBytes());
  out.append(reinterpret_cast<const char*>(values), size_t{dim} * sizeof(float));
  return out;
}

Status DecodeVector(std::string_view v, uint32_t dim, VectorRecord* out) {
  size_t want = kIdBytes + size_t{dim} * sizeof(float);
  if (v.size() != want) {
    return Status::Corruption("vector record has " + std::to_string(v.size()) +
                              " bytes; expected " + std::to_string(want));
  }
  out->passage_hash = ObjectId::FromBytes(v.substr(0, kIdBytes));
  out->values.resize(dim);
  std::memcpy(out->values.data(), v.data() + kIdBytes, size_t{dim} * sizeof(float));
  return Status::Ok();
}

}  // namespace vexfs::index
