// The C API's shared boundary helpers (c_handles.h).
#include "capi/c_handles.h"

#include <cstdlib>
#include <cstring>

namespace vexfs::capi {

std::string& LastError() {
  thread_local std::string last_error;
  return last_error;
}

int Fail(const Status& status) {
  LastError() = status.ToString();
  return -static_cast<int>(status.code());
}

int FailInvalid(const char* message) { return Fail(Status::InvalidArgument(message)); }

std::string OrEmpty(const char* s) { return s == nullptr ? "" : s; }

char* CopyOut(const std::string& bytes) {
  char* out = static_cast<char*>(std::malloc(bytes.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, bytes.data(), bytes.size());
  out[bytes.size()] = '\0';
  return out;
}

}  // namespace vexfs::capi
