// Tests for name and path validation: the gate that keeps every path inside the
// tree and every ref name usable as a key.
#include "vexfs/paths.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace vexfs {
namespace {

TEST(ValidateFileNameTest, AcceptsOrdinaryNames) {
  for (const char* name : {"a", "file.txt", "...", ".hidden", "with space", "ünïcode", "a..b"}) {
    EXPECT_OK(ValidateFileName(name)) << name;
  }
}

TEST(ValidateFileNameTest, RejectsDotNamesSlashAndNul) {
  EXPECT_CODE(ValidateFileName(""), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateFileName("."), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateFileName(".."), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateFileName("a/b"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateFileName("/"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateFileName(std::string("a\0b", 3)), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateFileName(std::string(1, '\0')), StatusCode::kInvalidArgument);
}

TEST(ValidateFileNameTest, LengthLimitIs255Bytes) {
  EXPECT_OK(ValidateFileName(std::string(kMaxNameLength, 'x')));
  Status st = ValidateFileName(std::string(256, 'x'));
  EXPECT_EQ(st.code(), StatusCode::kNameTooLong);
  EXPECT_NE(st.message().find("256"), std::string::npos) << st.ToString();
}

TEST(ValidateFileNameTest, MessageNamesTheProblem) {
  Status st = ValidateFileName("a/b");
  EXPECT_NE(st.message().find("a/b"), std::string::npos) << st.ToString();
}

TEST(SplitStorePathTest, SplitsAndTrimsSlashes) {
  ASSIGN_OR_FAIL(auto parts, SplitStorePath("/a/b/c/"));
  EXPECT_EQ(parts, (std::vector<std::string>{"a", "b", "c"}));
  ASSIGN_OR_FAIL(auto plain, SplitStorePath("x/y"));
  EXPECT_EQ(plain, (std::vector<std::string>{"x", "y"}));
}

TEST(SplitStorePathTest, RootIsEmpty) {
  for (const char* root : {"", "/", "//"}) {
    ASSIGN_OR_FAIL(auto parts, SplitStorePath(root));
    EXPECT_TRUE(parts.empty()) << root;
  }
}

TEST(SplitStorePathTest, RejectsEscapesAndEmptyComponents) {
  for (const char* bad : {"..", "../x", "a/../b", "a/..", "/..", "a//b", "a/./b", "."}) {
    auto r = SplitStorePath(bad);
    EXPECT_CODE(r, StatusCode::kInvalidArgument) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find(bad), std::string::npos) << bad;
    }
  }
}

TEST(SplitStorePathTest, RejectsNulAndLongComponents) {
  EXPECT_CODE(SplitStorePath(std::string("a/b\0c", 5)), StatusCode::kInvalidArgument);
  EXPECT_CODE(SplitStorePath("a/" + std::string(256, 'n')), StatusCode::kNameTooLong);
  ASSIGN_OR_FAIL(auto ok, SplitStorePath("a/" + std::string(255, 'n')));
  EXPECT_EQ(ok.size(), 2u);
}

TEST(ValidateRefNameTest, AcceptsPortableNames) {
  for (const char* name : {"main", "v1.2", "feature_x", "a-b", "A9", "x.."}) {
    EXPECT_OK(ValidateRefName(name, "branch")) << name;
  }
  EXPECT_OK(ValidateRefName(std::string(255, 'r'), "snapshot"));
}

TEST(ValidateRefNameTest, RejectsBadNames) {
  EXPECT_CODE(ValidateRefName("", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName(".", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName("..", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName(".hidden", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName("-flag", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName("a/b", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName("a b", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName(std::string("a\0b", 3), "snapshot"),
              StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName("WORKING", "snapshot"), StatusCode::kInvalidArgument);
  EXPECT_CODE(ValidateRefName(std::string(256, 'r'), "snapshot"), StatusCode::kNameTooLong);
}

TEST(ValidateRefNameTest, MessageSaysWhichKind) {
  Status st = ValidateRefName("a/b", "branch");
  EXPECT_EQ(st.message().rfind("branch", 0), 0u) << st.ToString();
}

}  // namespace
}  // namespace vexfs
