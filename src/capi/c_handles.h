// What every file of the C API shares: the store handle's C++ insides, and the
// rule each call follows at the boundary (a Status becomes an error code and
// the thread's last message; no exception crosses into C).
#ifndef VEXFS_CAPI_C_HANDLES_H_
#define VEXFS_CAPI_C_HANDLES_H_

#include <exception>
#include <memory>
#include <string>

#include "vexfs/db.h"
#include "vexfs/status.h"
#include "vexfs/vexfs.h"

struct vexfs_store {
  std::unique_ptr<vexfs::Db> db;  // with its search index, opened by the first search
  std::string branch;             // "" = the current branch
};

namespace vexfs::capi {

// The calling thread's last error message.
std::string& LastError();
// Records `status` as the last error; returns its (negative) code.
int Fail(const Status& status);
int FailInvalid(const char* message);
std::string OrEmpty(const char* s);
// A malloc'ed, NUL-terminated copy (released with vexfs_free); null when out of memory.
char* CopyOut(const std::string& bytes);

// Runs `body`, a function returning int, with no exception escaping into C.
template <typename Body>
int Guard(Body&& body) {
  LastError().clear();
  try {
    return body();
  } catch (const std::exception& e) {
    return Fail(Status::IOError(std::string("internal error: ") + e.what()));
  }
}

}  // namespace vexfs::capi

#endif  // VEXFS_CAPI_C_HANDLES_H_
