// Ed25519 keys for USXF signatures, and the receiver's keyring.
//
// A signature is made over SignedMessage(root) (usxf.h). Trust comes only from the
// receiver's keyring: a directory of public key files (*.pub, PEM), one per trusted
// signer. The public key written next to a signature in a file only tells the
// verifier which keyring entry to try; a signature by a key not in the keyring is
// reported as untrusted, never as valid.
//
// Thread-safety: keys and keyrings are immutable values after loading.
#ifndef VEXFS_USXF_KEYS_H_
#define VEXFS_USXF_KEYS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "vexfs/usxf.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::usxf {

struct PublicKey {
  std::array<uint8_t, 32> raw{};
  // "ed25519:" + the first 16 bytes of SHA-256(raw), in hex.
  std::string Fingerprint() const;
  bool operator==(const PublicKey&) const = default;
};

struct SigningKey {
  std::array<uint8_t, 32> seed{};  // the Ed25519 private key
  PublicKey public_key;

  static Result<SigningKey> Generate();
  // The key of a given 32-byte seed (RFC 8032); for reproducible test vectors.
  static Result<SigningKey> FromSeed(const std::array<uint8_t, 32>& seed);
  // PEM (PKCS#8) private key file; kInvalidArgument if it is not an Ed25519 key.
  static Result<SigningKey> Load(const std::string& path);
  // Writes the private key (mode 0600, refuses to overwrite) and, beside it,
  // "<path>.pub" with the public key.
  Status Save(const std::string& path) const;
  Result<std::array<uint8_t, 64>> Sign(std::string_view message) const;
};

Result<PublicKey> LoadPublicKey(const std::string& path);  // PEM SubjectPublicKeyInfo
Status SavePublicKey(const std::string& path, const PublicKey& key);
bool VerifySignature(const PublicKey& key, std::string_view message,
                     const std::array<uint8_t, 64>& signature);

class Keyring {
 public:
  // Every *.pub file in `dir`. kNotFound if dir is missing; kInvalidArgument naming
  // a file that is not an Ed25519 public key.
  static Result<Keyring> Load(const std::string& dir);
  const PublicKey* Find(const std::array<uint8_t, 32>& raw) const;
  const std::vector<std::pair<std::string, PublicKey>>& keys() const { return keys_; }

 private:
  std::vector<std::pair<std::string, PublicKey>> keys_;  // file name, key
};

// ---------------------------------------------------------------------------
// Whole-file verification, as `vexfs usxf verify` does it.
struct SignatureCheck {
  std::string fingerprint;
  std::string keyring_name;  // the trusted key file's name; empty if untrusted
  bool trusted = false;      // the key is in the keyring
  bool valid = false;        // checked against the trusted key (false if untrusted)
};

struct VerifyOptions {
  VerifyLevel level = VerifyLevel::kFull;
  const Keyring* keyring = nullptr;  // when set, a valid trusted signature is required
  int threads = 1;
};

struct VerifyReport {
  Status status;  // ok only if everything asked for checks out
  FileSummary summary;
  std::vector<SignatureCheck> signatures;
};

// Structure, digests at options.level, the metadata of every KV section, then
// signatures: with a keyring, at least one valid signature by a trusted key and
// no invalid one claiming a trusted key (kPermissionDenied otherwise); a signed
// file verified without a keyring fails too. Signatures are only ever checked
// against a root this call has recomputed from the bytes.
VerifyReport VerifyFile(const std::string& path, const VerifyOptions& options);
// The same over a whole file's bytes held in memory: what a reader uses when the
// file on disk could change between verifying and using it.
VerifyReport VerifyBytes(std::string_view file, const VerifyOptions& options);

// What VerifyFile with a keyring checks beyond the digests (the metadata of
// every KV section, then the signatures), for a caller that recomputed
// `summary.root` from the bytes itself: a StreamReader's summary after ReadAll
// at kFull. A root read from a footer and not recomputed proves nothing. The
// same rules and errors as VerifyFile; `checks` gets one entry per signature.
Status CheckVerifiedSummary(const FileSummary& summary, const Keyring& keyring,
                            std::vector<SignatureCheck>* checks);

// Adds a signature by `key` to the file at `path`: a sealed file is verified fully;
// an unsealed one is checked (fast checksums) and sealed. The footer is then
// rewritten atomically, keeping the file's permissions, under an exclusive flock
// so that concurrent signers each keep their signature. kAlreadyExists if `key`
// has already signed it.
Status SignFile(const std::string& path, const SigningKey& key);

}  // namespace vexfs::usxf

#pragma GCC visibility pop

#endif  // VEXFS_USXF_KEYS_H_
