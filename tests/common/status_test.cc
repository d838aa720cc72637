// Tests for Status and Result: codes, messages, context, copying, the
// propagation macros, and the errno mapping (common/file_util.h).
#include "vexfs/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/file_util.h"
#include "test_util.h"

namespace vexfs {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOk);
  EXPECT_EQ(st.message(), "");
  EXPECT_EQ(st.ToString(), "ok");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, FactoriesSetCodeAndMessage) {
  struct Case {
    Status status;
    StatusCode code;
  } cases[] = {
      {Status::NotFound("m"), StatusCode::kNotFound},
      {Status::Corruption("m"), StatusCode::kCorruption},
      {Status::IOError("m"), StatusCode::kIOError},
      {Status::InvalidArgument("m"), StatusCode::kInvalidArgument},
      {Status::AlreadyExists("m"), StatusCode::kAlreadyExists},
      {Status::NotEmpty("m"), StatusCode::kNotEmpty},
      {Status::NotDirectory("m"), StatusCode::kNotDirectory},
      {Status::IsDirectory("m"), StatusCode::kIsDirectory},
      {Status::NoSpace("m"), StatusCode::kNoSpace},
      {Status::ReadOnly("m"), StatusCode::kReadOnly},
      {Status::Busy("m"), StatusCode::kBusy},
      {Status::NameTooLong("m"), StatusCode::kNameTooLong},
      {Status::FileTooLarge("m"), StatusCode::kFileTooLarge},
      {Status::NotSupported("m"), StatusCode::kNotSupported},
      {Status::PermissionDenied("m"), StatusCode::kPermissionDenied},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(c.status.message(), "m");
    EXPECT_STRNE(StatusCodeName(c.code), "unknown");
  }
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_FALSE(Status::Corruption("x").IsNotFound());
}

TEST(StatusTest, ToStringJoinsCodeNameAndMessage) {
  EXPECT_EQ(Status::NotFound("snapshot 'v2' not found").ToString(),
            "not found: snapshot 'v2' not found");
  EXPECT_STREQ(StatusCodeName(StatusCode::kNoSpace), "no space");
}

TEST(StatusTest, OkCodeWithMessageIsStillOk) {
  Status st(StatusCode::kOk, "ignored");
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.message(), "");
}

TEST(StatusTest, WithContextPrefixesAndKeepsCode) {
  Status st = Status::Corruption("bad hash").WithContext("object 12");
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_EQ(st.message(), "object 12: bad hash");
  EXPECT_TRUE(Status::Ok().WithContext("anything").ok());
}

TEST(StatusTest, CopiesAreIndependentValues) {
  Status a = Status::Busy("locked");
  Status b = a;
  a = Status::Ok();
  EXPECT_TRUE(a.ok());
  EXPECT_EQ(b.code(), StatusCode::kBusy);
  EXPECT_EQ(b.message(), "locked");
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  VEXFS_ASSIGN_OR_RETURN(int half, Half(x));
  VEXFS_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status CheckEven(int x) {
  VEXFS_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(ResultTest, HoldsValueOrStatus) {
  Result<std::string> good(std::string("v"));
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, "v");
  EXPECT_EQ(good->size(), 1u);
  Result<std::string> bad(Status::NotFound("gone"));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "gone");
}

TEST(ResultTest, MacrosPropagateFirstFailure) {
  ASSIGN_OR_FAIL(int q, Quarter(8));
  EXPECT_EQ(q, 2);
  EXPECT_CODE(Quarter(6), StatusCode::kInvalidArgument);  // 6 -> 3 is odd
  EXPECT_CODE(Quarter(5), StatusCode::kInvalidArgument);
  EXPECT_OK(CheckEven(4));
  EXPECT_CODE(CheckEven(3), StatusCode::kInvalidArgument);
}

// The one errno mapping of src/: every kind a caller tells apart, and the rest
// as I/O errors, each message naming what was being done and why.
TEST(ErrnoToStatusTest, MapsEachErrnoToItsKind) {
  const std::pair<int, StatusCode> cases[] = {
      {ENOSPC, StatusCode::kNoSpace},      {EDQUOT, StatusCode::kNoSpace},
      {EROFS, StatusCode::kReadOnly},      {EACCES, StatusCode::kReadOnly},
      {EPERM, StatusCode::kReadOnly},      {ENOENT, StatusCode::kNotFound},
      {EAGAIN, StatusCode::kBusy},         {EWOULDBLOCK, StatusCode::kBusy},
      {EIO, StatusCode::kIOError},         {ECONNREFUSED, StatusCode::kIOError},
      {EPIPE, StatusCode::kIOError},       {EMFILE, StatusCode::kIOError},
      {0, StatusCode::kIOError},
  };
  for (const auto& [err, code] : cases) {
    const Status st = ErrnoToStatus(err, "write 'x'");
    EXPECT_EQ(st.code(), code) << std::strerror(err);
    EXPECT_EQ(st.message(), std::string("write 'x': ") + std::strerror(err));
  }
}

TEST(ErrnoToStatusTest, ErrnoStatusReadsErrno) {
  errno = EDQUOT;
  const Status st = ErrnoStatus("sync 'y'");
  EXPECT_CODE(st, StatusCode::kNoSpace);
  EXPECT_EQ(st.message(), std::string("sync 'y': ") + std::strerror(EDQUOT));
}

// Sockets, pipes, processes and local files never report a store-wide kind:
// a refused bind is not a read-only store, and the KV sender retries I/O errors.
TEST(ErrnoToStatusTest, OutsideTheStoreOnlyMissingPathsAreNotIoErrors) {
  const std::pair<int, StatusCode> cases[] = {
      {ENOENT, StatusCode::kNotFound}, {EACCES, StatusCode::kIOError},
      {EPERM, StatusCode::kIOError},   {ENOSPC, StatusCode::kIOError},
      {EAGAIN, StatusCode::kIOError},  {ECONNREFUSED, StatusCode::kIOError},
  };
  for (const auto& [err, code] : cases) {
    const Status st = OutsideErrnoToStatus(err, "bind ':80'");
    EXPECT_EQ(st.code(), code) << std::strerror(err);
    EXPECT_EQ(st.message(), std::string("bind ':80': ") + std::strerror(err));
  }
}

}  // namespace
}  // namespace vexfs
