// SHA-256 via OpenSSL EVP (uses the CPU's SHA extensions where present).
#include "common/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace vexfs {

static EVP_MD_CTX* Ctx(void* p) { return static_cast<EVP_MD_CTX*>(p); }

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  // Allocation failure here means the process is out of memory; nothing sensible
  // can continue, and a wrong hash would be worse than stopping.
  if (ctx_ == nullptr || EVP_DigestInit_ex(Ctx(ctx_), EVP_sha256(), nullptr) != 1) {
    std::abort();
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(Ctx(ctx_)); }

void Sha256::Update(std::string_view data) {
  EVP_DigestUpdate(Ctx(ctx_), data.data(), data.size());
}

ObjectId Sha256::Finish() {
  ObjectId id;
  unsigned int len = 0;
  EVP_DigestFinal_ex(Ctx(ctx_), id.bytes.data(), &len);
  EVP_DigestInit_ex(Ctx(ctx_), EVP_sha256(), nullptr);
  return id;
}

ObjectId Sha256Of(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  return hasher.Finish();
}

}  // namespace vexfs
