// llama.cpp's sequence-state blob and the canonical conversions, without a
// runtime: synthetic blobs in both V layouts, every truncation, hostile fields,
// and the value conversions (types, transposition, Hadamard rotation).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "test_util.h"
#include "vexfs/kv/blob_format.h"
#include "vexfs/kv/cache_convert.h"

namespace vexfs::kv {
namespace {

const BlobShape kShape{3, 64, 32};  // 3 layers, K rows of 64, V rows of 32 elements

std::vector<float> RandomValues(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// A canonical cache of `tokens` tokens in `type` with random values.
CanonicalKv RandomCanonical(CacheType type, uint32_t tokens, uint32_t seed) {
  CanonicalKv kv;
  kv.type = type;
  kv.n_tokens = tokens;
  for (uint32_t l = 0; l < kShape.n_layers; ++l) {
    kv.data += EncodeFromF32(type, RandomValues(size_t{tokens} * kShape.k_row, seed + 2 * l));
    kv.data += EncodeFromF32(type, RandomValues(size_t{tokens} * kShape.v_row, seed + 2 * l + 1));
  }
  return kv;
}

// The blob a runtime with `layout` would write for `kv`.
std::string BlobFor(const CanonicalKv& kv, const CacheLayout& layout, uint32_t n_stream = 1,
                    uint32_t stream = 0, int32_t seq = 0) {
  auto buffers = FromCanonical(kv, kShape, layout);
  EXPECT_TRUE(buffers.ok()) << buffers.status().ToString();
  SeqState s;
  s.seq_id = seq;
  s.n_stream = n_stream;
  s.stream = stream;
  s.v_trans = layout.v_trans;
  for (uint32_t t = 0; t < kv.n_tokens; ++t) s.positions.push_back(static_cast<int32_t>(t));
  for (uint32_t l = 0; l < kShape.n_layers; ++l) {
    s.layers.push_back({layout.k_type, layout.v_type, buffers->k[l], buffers->v[l]});
  }
  auto blob = BuildSeqState(s, kShape);
  EXPECT_TRUE(blob.ok()) << blob.status().ToString();
  return blob.ok() ? *blob : std::string();
}

TEST(BlobFormatTest, RoundTripsEveryTypeAndBothVLayouts) {
  for (CacheType type : {CacheType::kF32, CacheType::kF16, CacheType::kBF16, CacheType::kQ8_0}) {
    for (bool v_trans : {false, true}) {
      if (type == CacheType::kQ8_0 && v_trans) continue;  // the runtime cannot hold it either
      SCOPED_TRACE(std::string(CacheTypeName(type)) + (v_trans ? " transposed" : " rows"));
      CanonicalKv kv = RandomCanonical(type, 37, 5);
      const std::string blob = BlobFor(kv, {type, type, 0, 0, v_trans});
      ASSIGN_OR_FAIL(SeqState parsed, ParseSeqState(blob, kShape));
      EXPECT_EQ(parsed.v_trans, v_trans);
      EXPECT_EQ(parsed.positions.size(), 37u);
      ASSIGN_OR_FAIL(CanonicalKv back, ToCanonical(parsed, kShape, 0, 0));
      EXPECT_EQ(back.type, type);
      EXPECT_TRUE(back.data == kv.data) << "canonical bytes changed in the round trip";
      // And the blob rebuilt from the parse is the same blob.
      ASSIGN_OR_FAIL(std::string again, BuildSeqState(parsed, kShape));
      EXPECT_TRUE(again == blob);
    }
  }
}

TEST(BlobFormatTest, TransposedVIsElementMajor) {
  CanonicalKv kv = RandomCanonical(CacheType::kF32, 3, 9);
  const std::string blob = BlobFor(kv, {CacheType::kF32, CacheType::kF32, 0, 0, true});
  ASSIGN_OR_FAIL(SeqState s, ParseSeqState(blob, kShape));
  // V of layer 0, element j of token t sits at j * tokens + t in the blob.
  const float* canon = reinterpret_cast<const float*>(kv.data.data() + kv.VOffset(kShape, 0));
  const float* trans = reinterpret_cast<const float*>(s.layers[0].v.data());
  for (uint32_t t = 0; t < 3; ++t) {
    for (uint32_t j = 0; j < kShape.v_row; ++j) EXPECT_EQ(trans[j * 3 + t], canon[t * kShape.v_row + j]);
  }
}

TEST(BlobFormatTest, CellsInAnyStreamAreFound) {
  CanonicalKv kv = RandomCanonical(CacheType::kF16, 4, 1);
  const std::string blob = BlobFor(kv, {CacheType::kF16, CacheType::kF16, 0, 0, false}, 4, 2, 2);
  ASSIGN_OR_FAIL(SeqState s, ParseSeqState(blob, kShape));
  EXPECT_EQ(s.n_stream, 4u);
  EXPECT_EQ(s.stream, 2u);
  EXPECT_EQ(s.seq_id, 2);
}

TEST(BlobFormatTest, EveryTruncationIsRefused) {
  CanonicalKv kv = RandomCanonical(CacheType::kF16, 2, 3);
  for (bool v_trans : {false, true}) {
    const std::string blob = BlobFor(kv, {CacheType::kF16, CacheType::kF16, 0, 0, v_trans});
    for (size_t n = 0; n < blob.size(); ++n) {
      auto r = ParseSeqState(std::string_view(blob).substr(0, n), kShape);
      ASSERT_FALSE(r.ok()) << "a blob cut to " << n << " bytes parsed";
    }
    const std::string longer = blob + "x";
    EXPECT_CODE(ParseSeqState(longer, kShape), StatusCode::kCorruption);
  }
}

// Random damage anywhere: the parser refuses or returns views that lie inside
// the blob and sizes that agree with the shape (ASan checks every read).
TEST(BlobFormatTest, RandomlyDamagedBlobsNeverReadOutside) {
  CanonicalKv kv = RandomCanonical(CacheType::kF16, 3, 7);
  std::mt19937 rng(99);
  int accepted = 0;
  for (bool v_trans : {false, true}) {
    const std::string blob = BlobFor(kv, {CacheType::kF16, CacheType::kF16, 0, 0, v_trans});
    for (int i = 0; i < 3000; ++i) {
      std::string b = blob;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= static_cast<char>(1 + rng() % 255);
      auto r = ParseSeqState(b, kShape);
      if (!r.ok()) continue;
      ++accepted;
      for (const BlobLayer& l : r->layers) {
        EXPECT_EQ(l.k.size(), CacheBytes(l.k_type, kShape.k_row) * r->positions.size());
        EXPECT_EQ(l.v.size(), CacheBytes(l.v_type, kShape.v_row) * r->positions.size());
        EXPECT_TRUE(l.k.data() >= b.data() && l.k.data() + l.k.size() <= b.data() + b.size());
      }
    }
  }
  // Damage confined to values (or positions) is not the parser's to detect.
  EXPECT_GT(accepted, 0);
}

// Field offsets of a one-stream blob: magic 0, seq 4, n_stream 8, cells 12,
// then 12 bytes per cell, v_trans, n_layer, then layer 0's K type.
TEST(BlobFormatTest, HostileFieldsAreNamed) {
  CanonicalKv kv = RandomCanonical(CacheType::kF16, 2, 3);
  const std::string blob = BlobFor(kv, {CacheType::kF16, CacheType::kF16, 0, 0, false});
  auto patched = [&](size_t at, uint32_t v) {
    std::string b = blob;
    std::memcpy(&b[at], &v, 4);
    return b;
  };
  const size_t data = 16 + 2 * 12;
  auto expect = [&](const std::string& b, StatusCode code, const char* words) {
    auto r = ParseSeqState(b, kShape);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().ToString();
  };
  expect(patched(0, 0x12345678), StatusCode::kCorruption, "magic");
  expect(patched(8, 0), StatusCode::kCorruption, "streams");
  expect(patched(12, 0xffffffffu), StatusCode::kCorruption, "ends inside");
  expect(patched(16 + 4, 2), StatusCode::kNotSupported, "shared");
  expect(patched(data, 7), StatusCode::kCorruption, "v_trans");
  expect(patched(data + 4, 4), StatusCode::kCorruption, "layers");
  expect(patched(data + 8, 2), StatusCode::kNotSupported, "ggml type 2");
  expect(patched(data + 12, 64), StatusCode::kCorruption, "row is 64 bytes");
}

TEST(CacheConvertTest, HadamardIsOrthonormalAndItsOwnInverse) {
  std::vector<float> x = RandomValues(256, 11);
  std::vector<float> y = x;
  ApplyHadamard(y, 64);
  double nx = 0, ny = 0;
  for (size_t i = 0; i < x.size(); ++i) nx += double(x[i]) * x[i], ny += double(y[i]) * y[i];
  EXPECT_NEAR(nx, ny, 1e-3 * nx);
  EXPECT_NE(x, y);
  ApplyHadamard(y, 64);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-5f);
  // Sylvester order: the first row of H is all 1/sqrt(n), so y[0] is the scaled sum.
  std::vector<float> e(64, 0.0f);
  e[0] = 1.0f;
  ApplyHadamard(e, 64);
  for (float v : e) EXPECT_FLOAT_EQ(v, 0.125f);
}

TEST(CacheConvertTest, RuntimeRotationFollowsLlamaCppsRule) {
  EXPECT_EQ(RuntimeRotation(CacheType::kF16, 64, true), 0u);
  EXPECT_EQ(RuntimeRotation(CacheType::kQ8_0, 64, true), 64u);
  EXPECT_EQ(RuntimeRotation(CacheType::kQ8_0, 128, true), 128u);
  EXPECT_EQ(RuntimeRotation(CacheType::kQ8_0, 192, true), 64u);
  EXPECT_EQ(RuntimeRotation(CacheType::kQ8_0, 128, false), 64u);
  EXPECT_EQ(RuntimeRotation(CacheType::kQ8_0, 96, true), 0u);
}

TEST(CacheConvertTest, Q8_0KeepsEachValueWithinHalfAStep) {
  std::vector<float> x = RandomValues(32 * 100, 21, 3.0f);
  std::vector<float> y = DecodeToF32(CacheType::kQ8_0, EncodeFromF32(CacheType::kQ8_0, x));
  ASSERT_EQ(x.size(), y.size());
  for (size_t b = 0; b < 100; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
    // Half a step of d = amax/127, plus d's own f16 rounding across 127 steps.
    const float bound = amax / 127.0f * (0.5f + 127.0f / 2048.0f);
    for (int j = 0; j < 32; ++j) EXPECT_LE(std::fabs(x[b * 32 + j] - y[b * 32 + j]), bound);
  }
}

TEST(CacheConvertTest, RotatedQ8_0ConvertsToPlainF32WithinTheQuantisationError) {
  // A "runtime" q8_0 cache: rotate, then quantise, as llama.cpp stores it.
  CanonicalKv plain = RandomCanonical(CacheType::kF32, 8, 31);
  auto rotated = FromCanonical(plain, kShape, {CacheType::kQ8_0, CacheType::kQ8_0, 64, 32, false});
  ASSERT_TRUE(rotated.ok());
  CanonicalKv q;
  q.type = CacheType::kQ8_0;
  q.n_tokens = 8;
  q.k_rotation = 64;
  q.v_rotation = 32;
  for (uint32_t l = 0; l < kShape.n_layers; ++l) q.data.append(rotated->k[l]).append(rotated->v[l]);
  ASSIGN_OR_FAIL(LayerBuffers back, FromCanonical(q, kShape, {CacheType::kF32, CacheType::kF32, 0, 0, false}));
  for (uint32_t l = 0; l < kShape.n_layers; ++l) {
    std::vector<float> want = DecodeToF32(CacheType::kF32, std::string_view(plain.data).substr(plain.KOffset(kShape, l), plain.KBytes(kShape)));
    std::vector<float> got = DecodeToF32(CacheType::kF32, back.k[l]);
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(want[i]) - got[i]));
    EXPECT_LT(worst, 0.05) << "layer " << l;  // N(0,1) values, rotated amax ~3.5: step ~0.028
    EXPECT_GT(worst, 0.0) << "q8_0 cannot be lossless on random data";
  }
}

TEST(CacheConvertTest, WideningIsExact) {
  CanonicalKv h = RandomCanonical(CacheType::kF16, 5, 41);
  ASSIGN_OR_FAIL(LayerBuffers f, FromCanonical(h, kShape, {CacheType::kF32, CacheType::kF32, 0, 0, false}));
  for (uint32_t l = 0; l < kShape.n_layers; ++l) {
    EXPECT_EQ(EncodeFromF32(CacheType::kF16, DecodeToF32(CacheType::kF32, f.k[l])),
              std::string_view(h.data).substr(h.KOffset(kShape, l), h.KBytes(kShape)));
  }
}

TEST(CacheConvertTest, MismatchedSizesAndImpossibleLayoutsAreRefused) {
  CanonicalKv kv = RandomCanonical(CacheType::kF16, 5, 41);
  kv.data.pop_back();
  EXPECT_CODE(FromCanonical(kv, kShape, {}), StatusCode::kInvalidArgument);
  kv = RandomCanonical(CacheType::kF16, 5, 41);
  EXPECT_CODE(FromCanonical(kv, kShape, {CacheType::kF16, CacheType::kQ8_0, 0, 0, true}),
              StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vexfs::kv
