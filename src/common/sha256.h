// SHA-256 through OpenSSL's EVP interface, the hash that names every object.
#ifndef VEXFS_COMMON_SHA256_H_
#define VEXFS_COMMON_SHA256_H_

#include <string_view>

#include "vexfs/types.h"

namespace vexfs {

// Incremental hasher. Not thread-safe; one per thread.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view data);
  ObjectId Finish();  // resets the hasher for reuse

 private:
  void* ctx_;  // EVP_MD_CTX*, kept opaque so OpenSSL headers stay private
};

ObjectId Sha256Of(std::string_view data);

}  // namespace vexfs

#endif  // VEXFS_COMMON_SHA256_H_
