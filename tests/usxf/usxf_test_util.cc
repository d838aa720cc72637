// USXF test support (see usxf_test_util.h).
#include "usxf/usxf_test_util.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <random>

#include "usxf/digests.h"
#include "usxf/format.h"
#include "usxf/layout.h"
#include "usxf/le.h"
#include "vexfs/usxf_io.h"
#include "test_util.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf::test {

std::vector<float> RandomFloats(size_t n, uint64_t seed, float stddev) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = normal(rng) * (i % 7 == 0 ? 8.0f : 1.0f);
  return v;
}

SectionData TensorSection(const std::string& name, std::string_view values, DType dtype,
                          std::vector<uint64_t> shape, Encoding encoding, uint32_t group_size,
                          Compression compression) {
  SectionData s{{}, values};
  s.info.name = name;
  s.info.kind = static_cast<uint32_t>(SectionKind::kTensor);
  s.info.dtype = static_cast<uint32_t>(dtype);
  s.info.encoding = static_cast<uint32_t>(encoding);
  s.info.group_size = group_size;
  s.info.compression = static_cast<uint32_t>(compression);
  s.info.shape = std::move(shape);
  return s;
}

KvCacheInfo SmallKv(uint32_t layers, uint32_t tokens) {
  KvCacheInfo kv;
  kv.arch = "qwen2";
  kv.weights_fingerprint.fill(0x11);
  kv.hparams_fingerprint.fill(0x22);
  kv.tokenizer_fingerprint.fill(0x33);
  kv.n_layers = layers;
  kv.n_heads.assign(layers, 4);
  kv.n_kv_heads.assign(layers, 2);
  kv.k_head_dim.assign(layers, 8);
  kv.v_head_dim.assign(layers, 8);
  kv.attention = AttentionKind::kGQA;
  kv.rope = RopeType::kNeox;
  kv.rope_freq_base = 1000000.0;
  kv.block_size = 4;
  for (uint32_t t = 0; t < tokens; ++t) kv.token_ids.push_back(static_cast<int32_t>(1000 + 7 * t));
  kv.ComputeBlockHashes();
  return kv;
}

std::string SampleFile(const SampleOptions& options) {
  const std::string notes = "what I learned about retries: back off, then give up.";
  std::vector<float> weights = RandomFloats(48, 7);
  KvCacheInfo kv = SmallKv(2, 6);
  std::vector<uint16_t> kv_values(kv.ElementCount());
  std::vector<float> kv_floats = RandomFloats(kv_values.size(), 8);
  for (size_t i = 0; i < kv_values.size(); ++i) kv_values[i] = F32ToF16(kv_floats[i]);
  const std::string weights_bytes = Pack(weights), kv_bytes = Pack(kv_values);

  SectionData blob{{}, notes};
  blob.info.name = "notes";
  SectionData tensor = TensorSection("weights", weights_bytes, DType::kF32, {6, 8}, Encoding::kF16);
  SectionData kv_section{KvSection("kv", kv, DType::kF16), kv_bytes};
  if (options.compress) {
    for (SectionData* s : {&blob, &tensor, &kv_section}) s->info.compression = static_cast<uint32_t>(Compression::kZstd);
  }
  Metadata meta;
  meta.SetString(1, "vexfs test");
  WriterOptions wo;
  wo.alignment = options.alignment;
  wo.seal = options.seal;
  StringSink sink;
  Status st = WriteFile(&sink, {blob, tensor, kv_section}, meta, wo, options.signers);
  if (!st.ok()) {
    ADD_FAILURE_AT(__FILE__, __LINE__) << st.ToString();
  }
  return sink.out;
}

void FixHeaderChecksums(std::string* file) {
  char* b = file->data();
  const uint64_t header_length = LoadLE<uint64_t>(b + 32);
  if (kPreambleSize + header_length <= file->size()) {
    StoreLE<uint64_t>(b + 64, XXH3_64bits(b + kPreambleSize, header_length));
  }
  StoreLE<uint64_t>(b + 72, XXH3_64bits(b, 72));
}

void ResealFooter(std::string* file) {
  // Only preamble and header are trusted; the old footer may be damaged on purpose.
  auto preamble = DecodePreamble(*file);
  ASSERT_TRUE(preamble.ok()) << preamble.status().ToString();
  ParsedFile parsed;
  parsed.preamble = *preamble;
  parsed.preamble_bytes = std::string_view(*file).substr(0, kPreambleSize);
  parsed.header_bytes = std::string_view(*file).substr(kPreambleSize, preamble->header_length);
  std::string meta;
  ASSERT_OK(DecodeHeader(*preamble, parsed.header_bytes, &parsed.summary.sections, &meta));
  const size_t n = parsed.summary.sections.size();
  const char* old = file->data() + preamble->FooterOffset();
  Footer f;
  f.sealed = true;
  const bool was_sealed = (LoadLE<uint32_t>(old + 12) & 1) != 0;
  const char* sig = old + 24 + 16 * n + (was_sealed ? 32 * n + 64 : 0);
  for (uint32_t k = 0; k < LoadLE<uint32_t>(old + 16); ++k, sig += 104) {
    Signature s;
    std::memcpy(s.public_key.data(), sig + 8, 32);
    std::memcpy(s.signature.data(), sig + 40, 64);
    f.signatures.push_back(s);
  }
  for (const SectionInfo& s : parsed.summary.sections) {
    f.checksums.push_back(ChecksumOf(std::string_view(*file).substr(s.offset, s.stored_length)));
  }
  ComputeDigests(parsed, *file, 1, &f.section_digests, &f.header_digest);
  f.root = RootOf(f.header_digest, f.section_digests);
  file->resize(preamble->FooterOffset());
  file->append(EncodeFooter(f));
}

}  // namespace vexfs::usxf::test
