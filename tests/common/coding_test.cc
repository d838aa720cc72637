// Tests for the Encoder/Decoder primitives: round trips at the edges of every
// width, and rejection (not a crash, not a wrong value) of truncated or overlong input.
#include "common/coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "test_util.h"

namespace vexfs {
namespace {

const std::vector<uint64_t> kUnsigned = {0,
                                         1,
                                         127,
                                         128,
                                         255,
                                         256,
                                         16383,
                                         16384,
                                         (uint64_t{1} << 32) - 1,
                                         uint64_t{1} << 32,
                                         (uint64_t{1} << 63) - 1,
                                         uint64_t{1} << 63,
                                         std::numeric_limits<uint64_t>::max()};

const std::vector<int64_t> kSigned = {0,  1,  -1, 63, -64, 64, -65, 1000000, -1000000,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};

TEST(CodingTest, VarintRoundTrip) {
  for (uint64_t v : kUnsigned) {
    Encoder e;
    e.PutVarint(v);
    Decoder d(e.data());
    uint64_t out = 0;
    ASSERT_TRUE(d.GetVarint(&out)) << v;
    EXPECT_EQ(out, v);
    EXPECT_TRUE(d.done());
  }
}

TEST(CodingTest, VarintLengths) {
  auto length = [](uint64_t v) {
    Encoder e;
    e.PutVarint(v);
    return e.data().size();
  };
  EXPECT_EQ(length(0), 1u);
  EXPECT_EQ(length(127), 1u);
  EXPECT_EQ(length(128), 2u);
  EXPECT_EQ(length(std::numeric_limits<uint64_t>::max()), 10u);
}

TEST(CodingTest, SignedVarintRoundTrip) {
  for (int64_t v : kSigned) {
    Encoder e;
    e.PutSignedVarint(v);
    Decoder d(e.data());
    int64_t out = 0;
    ASSERT_TRUE(d.GetSignedVarint(&out)) << v;
    EXPECT_EQ(out, v);
    EXPECT_TRUE(d.done());
  }
}

TEST(CodingTest, ZigzagKeepsSmallNegativesShort) {
  Encoder e;
  e.PutSignedVarint(-1);
  EXPECT_EQ(e.data().size(), 1u);
}

TEST(CodingTest, FixedBigEndianRoundTripAndOrder) {
  Encoder e;
  e.PutFixed32BE(0x01020304);
  e.PutFixed64BE(0x0102030405060708ull);
  EXPECT_EQ(e.data(), std::string("\x01\x02\x03\x04\x01\x02\x03\x04\x05\x06\x07\x08", 12));
  Decoder d(e.data());
  uint32_t a = 0;
  uint64_t b = 0;
  ASSERT_TRUE(d.GetFixed32BE(&a));
  ASSERT_TRUE(d.GetFixed64BE(&b));
  EXPECT_EQ(a, 0x01020304u);
  EXPECT_EQ(b, 0x0102030405060708ull);
  EXPECT_TRUE(d.done());
}

TEST(CodingTest, BigEndianKeysSortNumerically) {
  Encoder small, large;
  small.PutFixed64BE(255);
  large.PutFixed64BE(256);
  EXPECT_LT(small.data(), large.data());
}

TEST(CodingTest, BytesAndIdRoundTrip) {
  ObjectId id;
  for (size_t i = 0; i < id.bytes.size(); ++i) id.bytes[i] = static_cast<uint8_t>(i * 7);
  std::string binary("a\0b\xff", 4);
  Encoder e;
  e.PutBytes(binary);
  e.PutBytes("");
  e.PutId(id);
  e.PutU8(0xab);
  Decoder d(e.data());
  std::string_view got, empty;
  ObjectId got_id;
  uint8_t tail = 0;
  ASSERT_TRUE(d.GetBytes(&got));
  ASSERT_TRUE(d.GetBytes(&empty));
  ASSERT_TRUE(d.GetId(&got_id));
  ASSERT_TRUE(d.GetU8(&tail));
  EXPECT_EQ(got, binary);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(got_id, id);
  EXPECT_EQ(tail, 0xab);
  EXPECT_TRUE(d.done());
}

// Every proper prefix of an encoding must be refused by the matching getter.
TEST(CodingTest, TruncatedInputIsRejected) {
  Encoder e;
  e.PutVarint(std::numeric_limits<uint64_t>::max());
  const std::string varint = e.Take();
  for (size_t n = 0; n < varint.size(); ++n) {
    Decoder d(std::string_view(varint).substr(0, n));
    uint64_t v;
    EXPECT_FALSE(d.GetVarint(&v)) << n;
  }
  Encoder b;
  b.PutBytes("hello world");
  const std::string bytes = b.Take();
  for (size_t n = 0; n < bytes.size(); ++n) {
    Decoder d(std::string_view(bytes).substr(0, n));
    std::string_view v;
    EXPECT_FALSE(d.GetBytes(&v)) << n;
  }
  for (size_t n = 0; n < 32; ++n) {
    std::string raw(n, 'x');
    Decoder d(raw);
    ObjectId id;
    EXPECT_FALSE(d.GetId(&id)) << n;
    uint64_t f64;
    if (n < 8) {
      EXPECT_FALSE(Decoder(raw).GetFixed64BE(&f64)) << n;
    }
    uint32_t f32;
    if (n < 4) {
      EXPECT_FALSE(Decoder(raw).GetFixed32BE(&f32)) << n;
    }
  }
  uint8_t u8;
  EXPECT_FALSE(Decoder("").GetU8(&u8));
}

TEST(CodingTest, OverlongVarintIsRejected) {
  // Eleven continuation bytes: longer than any 64-bit value needs.
  std::string eleven(11, '\x80');
  uint64_t v;
  EXPECT_FALSE(Decoder(eleven).GetVarint(&v));
  // Ten bytes whose last carries bits past bit 63.
  std::string overflow(9, '\xff');
  overflow.push_back('\x02');
  EXPECT_FALSE(Decoder(overflow).GetVarint(&v));
}

TEST(CodingTest, Varint32RefusesWideValues) {
  Encoder e;
  e.PutVarint(uint64_t{1} << 32);
  uint32_t v;
  EXPECT_FALSE(Decoder(e.data()).GetVarint32(&v));
  Encoder ok;
  ok.PutVarint(UINT32_MAX);
  ASSERT_TRUE(Decoder(ok.data()).GetVarint32(&v));
  EXPECT_EQ(v, UINT32_MAX);
}

TEST(CodingTest, BytesLengthPastEndIsRejected) {
  Encoder e;
  e.PutVarint(1000);  // claims 1000 bytes
  e.PutRaw("short");
  std::string_view v;
  Decoder d(e.data());
  EXPECT_FALSE(d.GetBytes(&v));
  // A huge claimed length must not wrap around the bounds check.
  Encoder huge;
  huge.PutVarint(std::numeric_limits<uint64_t>::max());
  huge.PutRaw("abc");
  EXPECT_FALSE(Decoder(huge.data()).GetBytes(&v));
}

TEST(CodingTest, GetRawConsumesExactly) {
  Decoder d("abcdef");
  std::string_view v;
  ASSERT_TRUE(d.GetRaw(2, &v));
  EXPECT_EQ(v, "ab");
  EXPECT_EQ(d.remaining(), 4u);
  EXPECT_FALSE(d.GetRaw(5, &v));
  EXPECT_EQ(d.remaining(), 4u);  // a failed read consumes nothing
  ASSERT_TRUE(d.GetRaw(4, &v));
  EXPECT_EQ(v, "cdef");
  EXPECT_TRUE(d.done());
}

}  // namespace
}  // namespace vexfs
