// SHA-256 via OpenSSL EVP (uses the CPU's SHA extensions where present).
#include "common/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace vexfs {

static EVP_MD_CTX* Ctx(void* p) { return static_cast<EVP_MD_CTX*>(p); }

// The algorithm, fetched from OpenSSL's providers once: with EVP_sha256() every
// init looks it up again in the provider store, under a lock all threads share
// (about a tenth of hashing a 4 KiB chunk, twice per hash as Finish re-inits).
static const EVP_MD* Sha256Algorithm() {
  static const EVP_MD* md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) std::abort();  // no default provider: nothing can be named
    return fetched;
  }();
  return md;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  // Allocation failure here means the process is out of memory; nothing sensible
  // can continue, and a wrong hash would be worse than stopping.
  if (ctx_ == nullptr || EVP_DigestInit_ex(Ctx(ctx_), Sha256Algorithm(), nullptr) != 1) {
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
  EVP_DigestInit_ex(Ctx(ctx_), Sha256Algorithm(), nullptr);
  return id;
}

ObjectId Sha256Of(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  return hasher.Finish();
}

}  // namespace vexfs
