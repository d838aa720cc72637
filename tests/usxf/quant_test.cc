// Transfer quantisation: conversions are exact where they must be, round to
// nearest even, agree with the CPU's own f16 conversion, and stay within the
// documented error bounds (usxf_quant.h, docs/usxf.md).
#include <gtest/gtest.h>
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <random>

#include "test_util.h"
#include "usxf/usxf_test_util.h"
#include "vexfs/usxf_kv.h"
#include "vexfs/usxf_quant.h"

namespace vexfs::usxf {
namespace {

// Computed independently with Python's hashlib from the definition in the spec.
constexpr char kExampleModelId[] = "b286c8f36449827754a67d2d914d71b45e3930385ef045fac03591fcc8d3c8cb";
constexpr char kExampleBlock0[] = "00dfd30be4708548fecfba9e0180eb3541a3a7e40a395fddf0f4976b45517c0f";
constexpr char kExampleBlock1[] = "0522f3cb4aa396ab1c52b57fa602471f06ae780e2b668e9195c9ec7629f9b09b";

__attribute__((target("f16c"))) uint16_t HardwareF16(float x) {
  return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

TEST(UsxfQuantTest, EveryF16AndBF16ValueSurvivesARoundTrip) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = F16ToF32(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(F32ToF16(f), h) << "f16 0x" << std::hex << h;
    const float b = BF16ToF32(static_cast<uint16_t>(h));
    if (std::isnan(b)) continue;
    ASSERT_EQ(F32ToBF16(b), h) << "bf16 0x" << std::hex << h;
  }
}

TEST(UsxfQuantTest, TiesRoundToEven) {
  EXPECT_EQ(F16ToF32(F32ToF16(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(F16ToF32(F32ToF16(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);
  EXPECT_EQ(BF16ToF32(F32ToBF16(1.0f + 0x1p-8f)), 1.0f);
  EXPECT_EQ(BF16ToF32(F32ToBF16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
  EXPECT_EQ(F32ToF16(65504.0f), 0x7bff);
  EXPECT_EQ(F32ToF16(65520.0f), 0x7c00);  // the tie above the largest f16 is infinity
  EXPECT_EQ(F32ToF16(0x1p-25f), 0);        // half the smallest subnormal: tie to zero
  EXPECT_EQ(F32ToF16(0x1p-24f * 1.5f), 2); // tie between subnormals 1 and 2: even
}

TEST(UsxfQuantTest, F16ConversionAgreesWithTheCpu) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "CPU without F16C";
  std::mt19937_64 rng(17);
  for (int i = 0; i < 2000000; ++i) {
    // Random bit patterns cover every exponent, subnormals and the overflow edge.
    const float x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(x)) continue;
    ASSERT_EQ(F32ToF16(x), HardwareF16(x)) << x;
  }
}

TEST(UsxfQuantTest, Int8GroupsMeetTheirBoundAndZeroGroupsStayZero) {
  std::vector<float> values = test::RandomFloats(10000, 21, 3.0f);
  std::fill(values.begin() + 64, values.begin() + 128, 0.0f);  // one all-zero group
  const std::string in = test::Pack(values);
  std::string payload, out;
  ASSERT_OK(EncodeValues(DType::kF32, Encoding::kInt8Group, 64, in, &payload));
  auto len = EncodedLength(static_cast<uint32_t>(DType::kF32), static_cast<uint32_t>(Encoding::kInt8Group), 64, values.size());
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(payload.size(), *len);
  EXPECT_EQ(payload.size(), 10048u + 4 * 157);
  ASSERT_OK(DecodeValues(DType::kF32, Encoding::kInt8Group, 64, payload, values.size(), &out));
  std::vector<float> back = test::Unpack<float>(out);
  for (size_t g = 0; g * 64 < values.size(); ++g) {
    float max_abs = 0;
    for (size_t i = g * 64; i < std::min(values.size(), g * 64 + 64); ++i) max_abs = std::max(max_abs, std::fabs(values[i]));
    for (size_t i = g * 64; i < std::min(values.size(), g * 64 + 64); ++i) {
      ASSERT_LE(std::fabs(back[i] - values[i]), max_abs / 254 * (1 + 1e-6)) << i;
    }
  }
  for (size_t i = 64; i < 128; ++i) EXPECT_EQ(back[i], 0.0f);
}

TEST(UsxfQuantTest, DisallowedCombinationsAndDamagedPayloadsAreNamed) {
  std::string out;
  EXPECT_CODE(EncodeValues(DType::kI32, Encoding::kF16, 0, std::string(8, '\0'), &out),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(EncodeValues(DType::kF16, Encoding::kF16, 0, std::string(8, '\0'), &out),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(EncodeValues(DType::kF32, Encoding::kInt8Group, 0, std::string(8, '\0'), &out),
              StatusCode::kInvalidArgument);
  // A scale that is not finite is refused rather than spread into the values.
  std::string payload;
  ASSERT_OK(EncodeValues(DType::kF32, Encoding::kInt8Group, 2, test::Pack(std::vector<float>{1, 2}), &payload));
  std::string bad = payload;
  const float inf = INFINITY;
  std::memcpy(bad.data() + 64, &inf, 4);
  Status st = DecodeValues(DType::kF32, Encoding::kInt8Group, 2, bad, 2, &out);
  EXPECT_CODE(st, StatusCode::kCorruption);
  EXPECT_NE(st.message().find("group 0"), std::string::npos);
  EXPECT_CODE(DecodeValues(DType::kF32, Encoding::kInt8Group, 2, payload.substr(1), 2, &out),
              StatusCode::kCorruption);
}

TEST(UsxfQuantTest, ChainedBlockHashesMatchTheDocumentedExample) {
  // docs/usxf.md, "Chained block hashes": all fingerprints zero, block size 2,
  // tokens [1, 2, 3].
  KvCacheInfo kv;
  auto hashes = ChainedBlockHashes(kv.ModelId(), 2, {1, 2, 3});
  ASSERT_EQ(hashes.size(), 2u);
  // A change in any token changes its block's hash and every later one, not the
  // earlier ones: a prefix match is a hash match.
  auto changed = ChainedBlockHashes(kv.ModelId(), 2, {1, 2, 4});
  EXPECT_EQ(changed[0], hashes[0]);
  EXPECT_NE(changed[1], hashes[1]);
  auto first = ChainedBlockHashes(kv.ModelId(), 2, {9, 2, 3});
  EXPECT_NE(first[0], hashes[0]);
  EXPECT_NE(first[1], hashes[1]);
  KvCacheInfo other;
  other.weights_fingerprint[0] = 1;  // another model: no block matches
  EXPECT_NE(ChainedBlockHashes(other.ModelId(), 2, {1, 2, 3})[0], hashes[0]);
  EXPECT_EQ(HexOf(kv.ModelId()), kExampleModelId);
  EXPECT_EQ(HexOf(hashes[0]), kExampleBlock0);
  EXPECT_EQ(HexOf(hashes[1]), kExampleBlock1);
}

}  // namespace
}  // namespace vexfs::usxf

namespace vexfs::usxf {
namespace {

TEST(UsxfQuantTest, Int8PayloadsWithMinus128OrDirtyPaddingAreRefused) {
  std::string payload, out;
  ASSERT_OK(EncodeValues(DType::kF32, Encoding::kInt8Group, 4, test::Pack(std::vector<float>{1, -1, 0.5f}), &payload));
  std::string bad = payload;
  bad[1] = static_cast<char>(-128);
  EXPECT_CODE(DecodeValues(DType::kF32, Encoding::kInt8Group, 4, bad, 3, &out), StatusCode::kCorruption);
  bad = payload;
  bad[10] = 1;  // padding between values and scales
  EXPECT_CODE(DecodeValues(DType::kF32, Encoding::kInt8Group, 4, bad, 3, &out), StatusCode::kCorruption);
  EXPECT_OK(DecodeValues(DType::kF32, Encoding::kInt8Group, 4, payload, 3, &out));
  // bf16 cannot carry what rounds past f32's range, nor past f16's for f16 values.
  EXPECT_CODE(EncodeValues(DType::kF32, Encoding::kBF16, 0, test::Pack(std::vector<float>{3.4028235e38f}), &out),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(EncodeValues(DType::kF16, Encoding::kBF16, 0, test::Pack(std::vector<uint16_t>{0x7bff}), &out),
              StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vexfs::usxf
