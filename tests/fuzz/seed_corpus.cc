// The seed corpus of the USXF reader fuzzer (see seed_corpus.h).
#include "fuzz/seed_corpus.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "vexfs/usxf.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf::fuzz {
namespace {

template <typename T>
std::string Pack(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Deterministic values with a spread of signs and magnitudes, so quantisation has
// real work to do (and a mutated scale lands somewhere interesting).
std::vector<float> Floats(size_t n, float salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = std::sin(static_cast<float>(i) * 0.37f + salt) * static_cast<float>(1 + i % 5);
  }
  return v;
}

// Small alignment keeps the seeds a few hundred bytes, well under -max_len.
WriterOptions Small(bool seal = true, uint32_t chunk_log2 = kDefaultChunkLog2) {
  return WriterOptions{.alignment = 64, .seal = seal, .chunk_log2 = chunk_log2};
}

SectionData Blob(const std::string& name, std::string_view bytes,
                 Compression compression = Compression::kNone) {
  SectionData d{{}, bytes};
  d.info.name = name;
  d.info.compression = static_cast<uint32_t>(compression);
  return d;
}

SectionData Tensor(const std::string& name, DType dtype, std::vector<uint64_t> shape,
                   std::string_view values, Encoding encoding = Encoding::kNone,
                   uint32_t group_size = 0, Compression compression = Compression::kNone) {
  SectionData d{{}, values};
  d.info.name = name;
  d.info.kind = static_cast<uint32_t>(SectionKind::kTensor);
  d.info.dtype = static_cast<uint32_t>(dtype);
  d.info.encoding = static_cast<uint32_t>(encoding);
  d.info.group_size = group_size;
  d.info.compression = static_cast<uint32_t>(compression);
  d.info.shape = std::move(shape);
  return d;
}

std::string Write(const std::vector<SectionData>& sections, const Metadata& metadata,
                  const WriterOptions& options,
                  const std::vector<const SigningKey*>& signers = {}) {
  StringSink sink;
  Status st = WriteFile(&sink, sections, metadata, options, signers);
  if (!st.ok()) {
    std::fprintf(stderr, "seed corpus: the writer refused a seed: %s\n", st.ToString().c_str());
    std::abort();
  }
  return std::move(sink.out);
}

// File metadata with every field type, including a nested record.
Metadata RichMetadata() {
  Metadata inner;
  inner.SetString(1, "nested");
  inner.SetU64(2, 42, true);
  Metadata m;
  m.SetString(1, "usxf fuzz seed");
  m.SetU64(2, 3, true);
  m.SetF64(3, 0.5);
  m.SetI64(4, -9);
  m.SetBytes(5, std::string("\x00\x01\xff", 3));
  m.SetU32Array(6, {1, 2, 3});
  m.SetI32Array(7, {-1, 0, 1});
  m.SetRecord(8, inner);
  return m;
}

// One MHA layer with explicit positions and scaled RoPE: the optional fields.
KvCacheInfo ExplicitPositionsKv() {
  KvCacheInfo kv;
  kv.arch = "llama";
  kv.weights_fingerprint.fill(0x44);
  kv.hparams_fingerprint.fill(0x55);
  kv.tokenizer_fingerprint.fill(0x66);
  kv.n_layers = 1;
  kv.n_heads = {2};
  kv.n_kv_heads = {2};
  kv.k_head_dim = {4};
  kv.v_head_dim = {4};
  kv.attention = AttentionKind::kMHA;
  kv.rope_freq_scale = 0.25;
  kv.rope_scaling = RopeScaling::kLinear;
  kv.k_after_rope = false;
  kv.token_ids = {5, 6, 7};
  kv.positions_contiguous = false;
  kv.positions = {10, 11, 14};
  kv.block_size = 2;
  kv.ComputeBlockHashes();
  return kv;
}

}  // namespace

KvCacheInfo SmallKv(uint32_t head_dim) {
  KvCacheInfo kv;
  kv.arch = "qwen2";
  kv.weights_fingerprint.fill(0x11);
  kv.hparams_fingerprint.fill(0x22);
  kv.tokenizer_fingerprint.fill(0x33);
  kv.n_layers = 2;
  kv.n_heads.assign(2, 4);
  kv.n_kv_heads.assign(2, 2);
  kv.k_head_dim.assign(2, head_dim);
  kv.v_head_dim.assign(2, head_dim);
  kv.attention = AttentionKind::kGQA;
  kv.rope = RopeType::kNeox;
  kv.rope_freq_base = 1000000.0;
  kv.block_size = 4;
  kv.token_ids = {1000, 1007, 1014, 1021, 1028, 1035};
  kv.runtime = "fuzz seed";
  kv.ComputeBlockHashes();
  return kv;
}

std::vector<std::pair<std::string, std::string>> MakeSeedCorpus() {
  std::vector<std::pair<std::string, std::string>> seeds;
  Metadata plain;
  plain.SetString(1, "usxf fuzz seed");
  const std::string notes = "what I learned about retries: back off, then give up.";

  seeds.emplace_back("blob", Write({Blob("notes", notes)}, plain, Small()));
  seeds.emplace_back("blob_unsealed", Write({Blob("notes", notes)}, plain, Small(/*seal=*/false)));
  std::string repeated;
  for (int i = 0; i < 40; ++i) repeated += notes;
  seeds.emplace_back("blob_zstd",
                     Write({Blob("notes", repeated, Compression::kZstd)}, plain, Small()));
  // 200 KB that compress to a few dozen bytes: its frame declares the size in four
  // bytes, so a mutation can make it claim gigabytes in place.
  std::string large(200000, '\0');
  for (size_t i = 0; i < large.size(); ++i) large[i] = "retry "[i % 6];
  seeds.emplace_back("blob_zstd_large",
                     Write({Blob("log", large, Compression::kZstd)}, plain, Small()));
  seeds.emplace_back("empty", Write({}, Metadata(), Small()));

  const std::string f32_32 = Pack(Floats(32, 0.0f));
  seeds.emplace_back(
      "tensor_f16",
      Write({Tensor("weights", DType::kF32, {4, 8}, f32_32, Encoding::kF16)}, plain, Small()));
  seeds.emplace_back(
      "tensor_bf16",
      Write({Tensor("weights", DType::kF32, {32}, f32_32, Encoding::kBF16)}, Metadata(), Small()));
  const std::string f32_120 = Pack(Floats(120, 1.0f));
  seeds.emplace_back("int8_group_zstd",
                     Write({Tensor("weights", DType::kF32, {3, 40}, f32_120, Encoding::kInt8Group,
                                   16, Compression::kZstd)},
                           plain, Small()));

  const KvCacheInfo kv = SmallKv();
  std::vector<uint16_t> kv_f16;
  for (float x : Floats(kv.ElementCount(), 2.0f)) kv_f16.push_back(F32ToF16(x));
  const std::string kv_bytes = Pack(kv_f16);
  SectionData kv_section{KvSection("kv", kv, DType::kF16), kv_bytes};
  seeds.emplace_back("kv_cache", Write({kv_section}, plain, Small()));

  const KvCacheInfo kv2 = ExplicitPositionsKv();
  const std::string kv2_bytes = Pack(Floats(kv2.ElementCount(), 3.0f));
  SectionData kv2_section{KvSection("kv", kv2, DType::kF32, Encoding::kInt8Group, 8), kv2_bytes};
  kv2_section.info.compression = static_cast<uint32_t>(Compression::kZstd);
  seeds.emplace_back("kv_cache_int8_zstd", Write({kv2_section}, plain, Small()));

  Result<SigningKey> key = SigningKey::Generate();
  if (!key.ok()) {
    std::fprintf(stderr, "seed corpus: %s\n", key.status().ToString().c_str());
    std::abort();
  }
  const std::string f32_8 = Pack(Floats(8, 4.0f));
  seeds.emplace_back("signed",
                     Write({Blob("notes", notes), Tensor("bias", DType::kF32, {8}, f32_8)}, plain,
                           Small(), {&*key}));

  // 2^12-byte Merkle chunks: sections of several leaves, one not a whole chunk.
  std::string big_blob(9000, '\0');
  for (size_t i = 0; i < big_blob.size(); ++i) big_blob[i] = static_cast<char>(i * 131 % 251);
  std::vector<int32_t> ints(2000);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i * i) - 7;
  const std::string ints_bytes = Pack(ints);
  seeds.emplace_back("multi_chunk",
                     Write({Blob("big", big_blob), Tensor("ints", DType::kI32, {2000}, ints_bytes)},
                           plain, Small(/*seal=*/true, /*chunk_log2=*/12)));

  // The remaining dtypes, an empty section and metadata with every field type.
  std::string q8(68, '\0');  // two q8_0 blocks: f16 scale then 32 int8 each
  for (size_t b = 0; b < 2; ++b) {
    const uint16_t scale = F32ToF16(0.125f * static_cast<float>(b + 1));
    std::memcpy(q8.data() + 34 * b, &scale, 2);
    for (size_t i = 0; i < 32; ++i) q8[34 * b + 2 + i] = static_cast<char>(i * 7 - 100);
  }
  const std::string u8 = "\x01\x02\x03\x04\x05";
  const std::string i64 = Pack(std::vector<int64_t>{-1, 0, 1ll << 40});
  const std::string f64 = Pack(std::vector<double>{0.25, -1e300});
  const std::string f16 =
      Pack(std::vector<uint16_t>{F32ToF16(1.5f), F32ToF16(-2.0f), F32ToF16(1000.0f), 0x0001});
  SectionData described = Tensor("described", DType::kU8, {5}, u8);
  described.info.metadata = RichMetadata().Encode();
  seeds.emplace_back(
      "mixed", Write({Blob("empty", ""), Tensor("q8", DType::kQ8_0, {64}, q8), described,
                      Tensor("i64", DType::kI64, {3}, i64), Tensor("f64", DType::kF64, {2, 1}, f64),
                      Tensor("f16_as_bf16", DType::kF16, {4}, f16, Encoding::kBF16)},
                     RichMetadata(), Small()));
  return seeds;
}

}  // namespace vexfs::usxf::fuzz
