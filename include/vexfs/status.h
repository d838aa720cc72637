// Status and Result<T>: how every VexFS call reports success or failure.
//
// The core never throws. A call returns a Status (or a Result<T> carrying either a
// value or a non-ok Status). An ok Status holds no allocation, so success costs
// nothing; a failure carries a code that callers branch on and a one-line message
// that names the thing that is wrong ("snapshot 'v2' not found").
//
// Thread-safety: Status and Result are values; distinct objects may be used from
// different threads freely.
#ifndef VEXFS_STATUS_H_
#define VEXFS_STATUS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs {

enum class StatusCode : int {
  kOk = 0,
  kNotFound = 1,          // a path, snapshot, branch or object does not exist
  kCorruption = 2,        // stored bytes fail their hash or do not decode
  kIOError = 3,           // the operating system refused a read, write or sync
  kInvalidArgument = 4,   // a caller's input is malformed (bad name, bad path)
  kAlreadyExists = 5,     // create of something that is already there
  kNotEmpty = 6,          // rmdir or replace of a non-empty directory
  kNotDirectory = 7,      // a path component, or target, is not a directory
  kIsDirectory = 8,       // a file operation named a directory
  kNoSpace = 9,           // the store's map or the disk is full
  kReadOnly = 10,         // the store or view cannot be written
  kBusy = 11,             // another process holds what is needed
  kNameTooLong = 12,      // a path component longer than kMaxNameLength
  kFileTooLarge = 13,     // beyond kMaxFileSize
  kNotSupported = 14,     // the operation does not apply to this object
  kPermissionDenied = 15, // a signature or key is not trusted
};

// Short stable name of a code ("not found", "corruption", ...).
const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string_view message);

  static Status Ok() { return Status(); }
  static Status NotFound(std::string_view msg) { return {StatusCode::kNotFound, msg}; }
  static Status Corruption(std::string_view msg) { return {StatusCode::kCorruption, msg}; }
  static Status IOError(std::string_view msg) { return {StatusCode::kIOError, msg}; }
  static Status InvalidArgument(std::string_view msg) {
    return {StatusCode::kInvalidArgument, msg};
  }
  static Status AlreadyExists(std::string_view msg) {
    return {StatusCode::kAlreadyExists, msg};
  }
  static Status NotEmpty(std::string_view msg) { return {StatusCode::kNotEmpty, msg}; }
  static Status NotDirectory(std::string_view msg) {
    return {StatusCode::kNotDirectory, msg};
  }
  static Status IsDirectory(std::string_view msg) { return {StatusCode::kIsDirectory, msg}; }
  static Status NoSpace(std::string_view msg) { return {StatusCode::kNoSpace, msg}; }
  static Status ReadOnly(std::string_view msg) { return {StatusCode::kReadOnly, msg}; }
  static Status Busy(std::string_view msg) { return {StatusCode::kBusy, msg}; }
  static Status NameTooLong(std::string_view msg) { return {StatusCode::kNameTooLong, msg}; }
  static Status FileTooLarge(std::string_view msg) {
    return {StatusCode::kFileTooLarge, msg};
  }
  static Status NotSupported(std::string_view msg) {
    return {StatusCode::kNotSupported, msg};
  }
  static Status PermissionDenied(std::string_view msg) {
    return {StatusCode::kPermissionDenied, msg};
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }

  // The message alone ("" when ok).
  const std::string& message() const;
  // "<code name>: <message>", or "ok".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>"; ok stays ok.
  Status WithContext(std::string_view prefix) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;  // null when ok; shared so copies are cheap
};

// Either a value or a failure. Accessing value() of a failed Result is a bug.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: must not be ok

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace vexfs

// Propagate a failed Status out of the current function.
#define VEXFS_RETURN_IF_ERROR(expr)             \
  do {                                          \
    ::vexfs::Status vexfs_status_ = (expr);     \
    if (!vexfs_status_.ok()) return vexfs_status_; \
  } while (0)

#define VEXFS_CONCAT_INNER_(a, b) a##b
#define VEXFS_CONCAT_(a, b) VEXFS_CONCAT_INNER_(a, b)

// `VEXFS_ASSIGN_OR_RETURN(auto x, Call());` binds the value or returns the failure.
#define VEXFS_ASSIGN_OR_RETURN(decl, expr) \
  VEXFS_ASSIGN_OR_RETURN_IMPL_(VEXFS_CONCAT_(vexfs_result_, __LINE__), decl, expr)
#define VEXFS_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  decl = std::move(tmp).value()

#pragma GCC visibility pop

#endif  // VEXFS_STATUS_H_
