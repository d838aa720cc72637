// Status: codes, names and message formatting.
#include "vexfs/status.h"

namespace vexfs {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kIOError: return "I/O error";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kAlreadyExists: return "already exists";
    case StatusCode::kNotEmpty: return "not empty";
    case StatusCode::kNotDirectory: return "not a directory";
    case StatusCode::kIsDirectory: return "is a directory";
    case StatusCode::kNoSpace: return "no space";
    case StatusCode::kReadOnly: return "read-only";
    case StatusCode::kBusy: return "busy";
    case StatusCode::kNameTooLong: return "name too long";
    case StatusCode::kFileTooLarge: return "file too large";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kPermissionDenied: return "permission denied";
  }
  return "unknown";
}

Status::Status(StatusCode code, std::string_view message) {
  if (code != StatusCode::kOk) {
    state_ = std::make_shared<const State>(State{code, std::string(message)});
  }
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(StatusCodeName(code())) + ": " + message();
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += ": ";
  msg += message();
  return Status(code(), msg);
}

}  // namespace vexfs
