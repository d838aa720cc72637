// Whole-file verification with signatures checked against the receiver's keyring,
// and adding a signature to an existing file.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_util.h"
#include "usxf/digests.h"
#include "usxf/layout.h"
#include "usxf/mapping.h"
#include "vexfs/usxf_io.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::usxf {
namespace {

std::string Fingerprint(const std::array<uint8_t, 32>& raw) { return PublicKey{raw}.Fingerprint(); }

// An exclusive flock on the file `path` names when the lock is granted: a
// concurrent signer may have renamed a new file over it while this one waited,
// and signing the old one would drop that signer's signature.
class FileLock {
 public:
  static Result<std::unique_ptr<FileLock>> Acquire(const std::string& path) {
    for (;;) {
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return ErrnoStatus("open " + path);
      auto lock = std::unique_ptr<FileLock>(new FileLock(fd));
      if (::flock(fd, LOCK_EX) != 0) return ErrnoStatus("lock " + path);
      struct stat held, now;
      if (::fstat(fd, &held) != 0) return ErrnoStatus("stat " + path);
      if (::stat(path.c_str(), &now) == 0 && now.st_ino == held.st_ino && now.st_dev == held.st_dev) {
        lock->mode_ = held.st_mode & 07777;
        return lock;
      }
    }
  }
  ~FileLock() { ::close(fd_); }  // closing releases the lock
  int fd() const { return fd_; }
  mode_t mode() const { return mode_; }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
  mode_t mode_ = 0644;
};

// KV sections must mean something consistent (structure, block hashes over the
// token ids). A section using fields or codes this reader does not know is left
// uninterpreted rather than failing the file.
Status CheckKvSections(const FileSummary& s) {
  for (size_t i = 0; i < s.sections.size(); ++i) {
    const SectionInfo& sec = s.sections[i];
    if (sec.kind != static_cast<uint32_t>(SectionKind::kKvCache)) continue;
    auto kv = KvCacheInfo::FromSection(sec);
    if (!kv.ok() && kv.status().code() != StatusCode::kNotSupported) {
      return Status::Corruption(DescribeSection(sec, i) + ": " + kv.status().message());
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckSignatures(const FileSummary& summary, const Keyring& keyring,
                       std::vector<SignatureCheck>* checks) {
  const std::string message = SignedMessage(summary.root);
  Status failure;
  bool any_valid = false;
  for (const Signature& sig : summary.signatures) {
    SignatureCheck check;
    check.fingerprint = Fingerprint(sig.public_key);
    const PublicKey* trusted = sig.algorithm == 1 ? keyring.Find(sig.public_key) : nullptr;
    if (trusted != nullptr) {
      check.trusted = true;
      for (const auto& [name, key] : keyring.keys()) {
        if (&key == trusted) check.keyring_name = name;
      }
      check.valid = VerifySignature(*trusted, message, sig.signature);
      if (!check.valid && failure.ok()) {
        failure = Status::PermissionDenied("signature by trusted key " + check.fingerprint + " (" +
                                           check.keyring_name +
                                           ") does not verify: the file changed after signing");
      }
      any_valid = any_valid || check.valid;
    }
    checks->push_back(check);
  }
  if (!failure.ok()) return failure;
  if (any_valid) return Status::Ok();
  if (summary.signatures.empty()) {
    return Status::PermissionDenied("the file is not signed, and a keyring requires a trusted signature");
  }
  return Status::PermissionDenied("signed only by keys outside the keyring (" + (*checks)[0].fingerprint +
                                  (checks->size() > 1 ? ", ..." : "") + ")");
}

Status CheckVerifiedSummary(const FileSummary& summary, const Keyring& keyring,
                            std::vector<SignatureCheck>* checks) {
  VEXFS_RETURN_IF_ERROR(CheckKvSections(summary));
  return CheckSignatures(summary, keyring, checks);
}

VerifyReport VerifyFile(const std::string& path, const VerifyOptions& options) {
  auto mapping = Mapping::Open(path);
  if (!mapping.ok()) {
    VerifyReport report;
    report.status = mapping.status();
    return report;
  }
  return VerifyBytes((*mapping)->bytes(), options);
}

VerifyReport VerifyBytes(std::string_view file, const VerifyOptions& options) {
  VerifyReport report;
  auto parsed = ParseFile(file);
  if (!parsed.ok()) {
    report.status = parsed.status();
    return report;
  }
  report.summary = parsed->summary;
  report.status = VerifySections(*parsed, file, options.level, options.threads);
  if (report.status.ok()) report.status = CheckKvSections(report.summary);
  if (!report.status.ok()) return report;
  if (options.keyring != nullptr) {
    if (options.level != VerifyLevel::kFull) {
      report.status = Status::InvalidArgument("signatures can only be checked by a full verification");
      return report;
    }
    report.status = CheckSignatures(report.summary, *options.keyring, &report.signatures);
  } else if (!report.summary.signatures.empty()) {
    for (const Signature& sig : report.summary.signatures) {
      report.signatures.push_back({Fingerprint(sig.public_key), "", false, false});
    }
    report.status = Status::PermissionDenied(
        "the file is signed by " + report.signatures[0].fingerprint +
        " but no keyring was given to check it against (a key inside the file proves nothing)");
  }
  return report;
}

Status SignFile(const std::string& path, const SigningKey& key) {
  VEXFS_ASSIGN_OR_RETURN(auto lock, FileLock::Acquire(path));
  VEXFS_ASSIGN_OR_RETURN(auto mapping, Mapping::FromFd(lock->fd(), path));
  std::string_view file = mapping->bytes();
  VEXFS_ASSIGN_OR_RETURN(ParsedFile parsed, ParseFile(file));
  FileSummary& s = parsed.summary;
  for (const Signature& sig : s.signatures) {
    if (sig.public_key == key.public_key.raw) {
      return Status::AlreadyExists(path + " is already signed by " + key.public_key.Fingerprint());
    }
  }
  if (s.signatures.size() >= kMaxSignatures) return Status::InvalidArgument(path + " already has 16 signatures");
  Footer footer;
  footer.sealed = true;
  footer.checksums = s.section_checksums;
  if (s.sealed) {
    // A full verification recomputes the root; the footer's digests then hold.
    VEXFS_RETURN_IF_ERROR(VerifySections(parsed, file, VerifyLevel::kFull, 2));
    footer.section_digests = s.section_digests;
    footer.header_digest = s.header_digest;
  } else {
    // Sealing: the fast checksums vouch for the bytes being the ones that were
    // written before SHA-256 is computed over them.
    VEXFS_RETURN_IF_ERROR(VerifySections(parsed, file, VerifyLevel::kFast, 2));
    ComputeDigests(parsed, file, 2, &footer.section_digests, &footer.header_digest);
  }
  footer.root = RootOf(footer.header_digest, footer.section_digests);
  footer.signatures = s.signatures;
  VEXFS_ASSIGN_OR_RETURN(auto sig, key.Sign(SignedMessage(footer.root)));
  footer.signatures.push_back({1, key.public_key.raw, sig});
  VEXFS_ASSIGN_OR_RETURN(auto sink, AtomicFileSink::Create(path));
  VEXFS_RETURN_IF_ERROR(sink->SetMode(lock->mode()));
  VEXFS_RETURN_IF_ERROR(sink->Write(file.substr(0, s.footer_offset)));
  VEXFS_RETURN_IF_ERROR(sink->Write(EncodeFooter(footer)));
  return sink->Commit();
}

}  // namespace vexfs::usxf
