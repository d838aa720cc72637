// Ed25519 keys through OpenSSL's EVP interface, and the keyring of trusted keys.
#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "common/file_util.h"
#include "common/sha256.h"
#include "vexfs/usxf_keys.h"

namespace vexfs::usxf {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
using Bio = std::unique_ptr<BIO, BioFree>;

Pkey PrivateFromSeed(const std::array<uint8_t, 32>& seed) {
  return Pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), 32));
}

Result<SigningKey> FromPkey(EVP_PKEY* pkey, const std::string& what) {
  if (pkey == nullptr || EVP_PKEY_id(pkey) != EVP_PKEY_ED25519) {
    return Status::InvalidArgument(what + " is not an Ed25519 private key");
  }
  SigningKey key;
  size_t len = 32;
  if (EVP_PKEY_get_raw_private_key(pkey, key.seed.data(), &len) != 1 || len != 32) {
    return Status::InvalidArgument(what + ": cannot read the private key");
  }
  len = 32;
  if (EVP_PKEY_get_raw_public_key(pkey, key.public_key.raw.data(), &len) != 1 || len != 32) {
    return Status::InvalidArgument(what + ": cannot derive the public key");
  }
  return key;
}

Result<std::string> PemOf(EVP_PKEY* pkey, bool private_key) {
  Bio bio(BIO_new(BIO_s_mem()));
  int ok = private_key ? PEM_write_bio_PrivateKey(bio.get(), pkey, nullptr, nullptr, 0, nullptr, nullptr)
                       : PEM_write_bio_PUBKEY(bio.get(), pkey);
  if (ok != 1) return Status::IOError("cannot encode the key as PEM");
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Status WriteNewFile(const std::string& path, std::string_view bytes, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST) return Status::AlreadyExists(path + " already exists; not overwriting a key");
    return ErrnoStatus("create " + path);
  }
  bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
            ::fsync(fd) == 0;
  Status st = ok ? Status::Ok() : ErrnoStatus("write " + path);
  ::close(fd);
  if (!st.ok()) ::unlink(path.c_str());  // a partial key must not block the next try
  return st;
}

}  // namespace

std::string PublicKey::Fingerprint() const {
  ObjectId h = Sha256Of(std::string_view(reinterpret_cast<const char*>(raw.data()), 32));
  return "ed25519:" + HexOf(h.bytes.data(), 16);
}

Result<SigningKey> SigningKey::Generate() {
  Pkey pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!pkey) return Status::IOError("Ed25519 key generation failed");
  return FromPkey(pkey.get(), "generated key");
}

Result<SigningKey> SigningKey::FromSeed(const std::array<uint8_t, 32>& seed) {
  Pkey pkey = PrivateFromSeed(seed);
  return FromPkey(pkey.get(), "seed");
}

Result<SigningKey> SigningKey::Load(const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(std::string pem, ReadWholeFile(path));
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Pkey pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!pkey) return Status::InvalidArgument(path + " is not a PEM private key");
  return FromPkey(pkey.get(), path);
}

Status SigningKey::Save(const std::string& path) const {
  Pkey pkey = PrivateFromSeed(seed);
  if (!pkey) return Status::InvalidArgument("invalid Ed25519 seed");
  VEXFS_ASSIGN_OR_RETURN(std::string private_pem, PemOf(pkey.get(), true));
  VEXFS_ASSIGN_OR_RETURN(std::string public_pem, PemOf(pkey.get(), false));
  if (::access((path + ".pub").c_str(), F_OK) == 0) {
    return Status::AlreadyExists(path + ".pub already exists; not overwriting a key");
  }
  VEXFS_RETURN_IF_ERROR(WriteNewFile(path, private_pem, 0600));
  return WriteNewFile(path + ".pub", public_pem, 0644);
}

Result<std::array<uint8_t, 64>> SigningKey::Sign(std::string_view message) const {
  Pkey pkey = PrivateFromSeed(seed);
  MdCtx ctx(EVP_MD_CTX_new());
  std::array<uint8_t, 64> sig{};
  size_t len = sig.size();
  if (!pkey || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), sig.data(), &len, reinterpret_cast<const uint8_t*>(message.data()),
                     message.size()) != 1 || len != 64) {
    return Status::IOError("Ed25519 signing failed");
  }
  return sig;
}

Result<PublicKey> LoadPublicKey(const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(std::string pem, ReadWholeFile(path));
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Pkey pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  PublicKey key;
  size_t len = 32;
  if (!pkey || EVP_PKEY_id(pkey.get()) != EVP_PKEY_ED25519 ||
      EVP_PKEY_get_raw_public_key(pkey.get(), key.raw.data(), &len) != 1 || len != 32) {
    return Status::InvalidArgument(path + " is not a PEM Ed25519 public key");
  }
  return key;
}

Status SavePublicKey(const std::string& path, const PublicKey& key) {
  Pkey pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.raw.data(), 32));
  if (!pkey) return Status::InvalidArgument("invalid Ed25519 public key");
  VEXFS_ASSIGN_OR_RETURN(std::string pem, PemOf(pkey.get(), false));
  return WriteNewFile(path, pem, 0644);
}

bool VerifySignature(const PublicKey& key, std::string_view message,
                     const std::array<uint8_t, 64>& signature) {
  Pkey pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.raw.data(), 32));
  MdCtx ctx(EVP_MD_CTX_new());
  return pkey && ctx &&
         EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                          reinterpret_cast<const uint8_t*>(message.data()), message.size()) == 1;
}

Result<Keyring> Keyring::Load(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoStatus("keyring directory " + dir);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".pub") == 0) names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  Keyring ring;
  for (const std::string& name : names) {
    auto key = LoadPublicKey(dir + "/" + name);
    if (!key.ok()) return Status::InvalidArgument("keyring: " + key.status().message());
    ring.keys_.emplace_back(name, *key);
  }
  return ring;
}

const PublicKey* Keyring::Find(const std::array<uint8_t, 32>& raw) const {
  for (const auto& [name, key] : keys_) {
    if (key.raw == raw) return &key;
  }
  return nullptr;
}

}  // namespace vexfs::usxf
