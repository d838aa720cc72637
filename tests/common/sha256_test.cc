// Tests for SHA-256 against published vectors (FIPS 180-2 / NIST), incremental
// hashing, and hasher reuse after Finish().
#include "common/sha256.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace vexfs {
namespace {

std::string Hex(std::string_view data) { return Sha256Of(data).ToHex(); }

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalEqualsOneShot) {
  std::string data = test::RandomBytes(7, 100000);
  Sha256 hasher;
  for (size_t pos = 0; pos < data.size(); pos += 997) {
    hasher.Update(std::string_view(data).substr(pos, 997));
  }
  EXPECT_EQ(hasher.Finish(), Sha256Of(data));
}

TEST(Sha256Test, FinishResetsForReuse) {
  Sha256 hasher;
  hasher.Update("something else");
  (void)hasher.Finish();
  hasher.Update("abc");
  EXPECT_EQ(hasher.Finish().ToHex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, DifferentInputsDiffer) {
  EXPECT_NE(Sha256Of("a"), Sha256Of("b"));
  EXPECT_NE(Sha256Of(std::string("\0", 1)), Sha256Of(""));
}

}  // namespace
}  // namespace vexfs
