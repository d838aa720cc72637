// Tests for the public value types: ObjectId hex round trips and parsing errors,
// names of file types, and the clock.
#include "vexfs/types.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace vexfs {
namespace {

TEST(ObjectIdTest, HexRoundTrip) {
  ObjectId id;
  for (size_t i = 0; i < id.bytes.size(); ++i) id.bytes[i] = static_cast<uint8_t>(255 - i * 3);
  std::string hex = id.ToHex();
  EXPECT_EQ(hex.size(), 64u);
  ASSIGN_OR_FAIL(ObjectId back, ObjectId::FromHex(hex));
  EXPECT_EQ(back, id);
}

TEST(ObjectIdTest, FromHexAcceptsUpperCase) {
  std::string hex(64, 'A');
  ASSIGN_OR_FAIL(ObjectId id, ObjectId::FromHex(hex));
  EXPECT_EQ(id.ToHex(), std::string(64, 'a'));
}

TEST(ObjectIdTest, FromHexRejectsBadInput) {
  EXPECT_CODE(ObjectId::FromHex(""), StatusCode::kInvalidArgument);
  EXPECT_CODE(ObjectId::FromHex(std::string(63, 'a')), StatusCode::kInvalidArgument);
  EXPECT_CODE(ObjectId::FromHex(std::string(65, 'a')), StatusCode::kInvalidArgument);
  EXPECT_CODE(ObjectId::FromHex(std::string(63, 'a') + "g"), StatusCode::kInvalidArgument);
}

TEST(ObjectIdTest, ZeroAndOrdering) {
  ObjectId zero;
  EXPECT_TRUE(zero.IsZero());
  ObjectId one;
  one.bytes[31] = 1;
  EXPECT_FALSE(one.IsZero());
  EXPECT_LT(zero, one);
  EXPECT_NE(ObjectIdHash()(zero), ObjectIdHash()(ObjectId::FromBytes(std::string(32, 'x'))));
  EXPECT_EQ(ObjectId::FromBytes(one.AsBytes()), one);
}

TEST(TypesTest, FileTypeNames) {
  EXPECT_STREQ(FileTypeName(FileType::kRegular), "file");
  EXPECT_STREQ(FileTypeName(FileType::kDirectory), "dir");
  EXPECT_STREQ(FileTypeName(FileType::kSymlink), "symlink");
}

TEST(TypesTest, NowIsAfter2020) {
  EXPECT_GT(NowNs(), int64_t{1577836800} * 1000000000);  // 2020-01-01
}

}  // namespace
}  // namespace vexfs
