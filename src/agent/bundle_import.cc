// Verifying and importing an agent bundle (vexfs/agent_bundle.h, Import).
//
// Order matters for "all or nothing": everything that can refuse the bundle
// (its digests and signatures, its manifest, the base it needs, the names,
// branch and KV states it would take, free space, every object's id, the
// extensions its commits carry) is checked before the one write transaction
// commits. The KV state files are staged as temporaries before the
// transaction begins (so no multi-gigabyte write holds the store's lock) and
// renamed into place after the commit; the branch is made last. A crash
// between those steps leaves the snapshot imported, and running the import
// again completes them (each step is a no-op where it is done already).
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "agent/bundle_layout.h"
#include "agent/manifest.h"
#include "agent/object_pack.h"
#include "common/file_util.h"
#include "common/sha256.h"
#include "vexfs/agent_bundle.h"
#include "vexfs/extension.h"
#include "vexfs/object_transfer.h"
#include "vexfs/paths.h"
#include "vexfs/usxf_io.h"

namespace vexfs::agent {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Result<std::string_view> SectionBytes(const usxf::MappedFile& file, const std::string& name) {
  auto i = file.Find(name);
  if (!i.ok()) return Status::Corruption("the bundle's manifest names section '" + name + "', which it lacks");
  return file.StoredBytes(*i);
}

// Each section of the file is one the manifest accounts for, and none is
// compressed or typed: what a bundle's writer makes.
Status CheckSections(const usxf::MappedFile& file, const BundleManifest& m) {
  std::set<std::string> expected = {kManifestSection};
  for (const std::string& s : m.object_sections) expected.insert(s);
  for (const BundleKv& kv : m.kv) expected.insert(kv.section);
  if (expected.size() != 1 + m.object_sections.size() + m.kv.size()) {
    return Status::Corruption("the bundle's manifest names a section twice");
  }
  for (const usxf::SectionInfo& s : file.sections()) {
    if (!expected.count(s.name)) return Status::Corruption("bundle section '" + s.name + "' is not in its manifest");
    if (s.compression != static_cast<uint32_t>(usxf::Compression::kNone) ||
        s.kind != static_cast<uint32_t>(usxf::SectionKind::kBlob)) {
      return Status::Corruption("bundle section '" + s.name + "' is not a plain blob");
    }
  }
  for (const std::string& name : expected) VEXFS_RETURN_IF_ERROR(SectionBytes(file, name).status());
  return Status::Ok();
}

// Far more than any real manifest (names and KV entries of a long history):
// a larger one is not parsed into memory.
constexpr uint64_t kMaxManifestBytes = 64ull << 20;

Result<BundleManifest> ReadManifest(const usxf::MappedFile& file) {
  auto i = file.Find(kManifestSection);
  if (!i.ok()) return Status::Corruption("the file has no manifest section: not an agent bundle");
  if (file.StoredBytes(*i).size() > kMaxManifestBytes) {
    return Status::Corruption("the bundle's manifest is " + std::to_string(file.StoredBytes(*i).size()) +
                              " bytes, more than the " + std::to_string(kMaxManifestBytes) + " a manifest may have");
  }
  VEXFS_ASSIGN_OR_RETURN(BundleManifest m, DecodeManifest(file.StoredBytes(*i)));
  VEXFS_RETURN_IF_ERROR(CheckSections(file, m));
  return m;
}

// Maps the file once and verifies that mapping (every digest, the root, then
// the signatures over the recomputed root), so what is imported is what was
// verified even if the path is renamed over meanwhile. Like every MappedFile
// (vexfs/usxf.h) this is sound for a file only the importer can write.
Result<std::unique_ptr<usxf::MappedFile>> OpenVerified(const std::string& path, const usxf::Keyring* keyring,
                                                       int threads, std::vector<usxf::SignatureCheck>* checks) {
  VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::Open(path));
  VEXFS_RETURN_IF_ERROR(file->Verify(usxf::VerifyLevel::kFull, threads));
  const usxf::FileSummary& summary = file->summary();
  if (keyring != nullptr) {
    VEXFS_RETURN_IF_ERROR(usxf::CheckVerifiedSummary(summary, *keyring, checks));
  } else if (!summary.signatures.empty()) {
    const std::string signer = usxf::PublicKey{summary.signatures[0].public_key}.Fingerprint();
    return Status::PermissionDenied("the bundle is signed by " + signer +
                                    " but no keyring was given to check it against (a key inside the file proves "
                                    "nothing)");
  }
  return file;
}

// The bundle, verified whole here unless the caller did (ImportOptions::verified).
Result<std::unique_ptr<usxf::MappedFile>> OpenForImport(const std::string& path, const ImportOptions& o,
                                                        ImportReport* report) {
  if (o.verified != nullptr) {
    VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::Open(path));
    if (file->summary().root != o.verified->root) return Status::Corruption("the file is not the one that was verified");
    return file;
  }
  return OpenVerified(path, o.keyring, std::max(1, o.threads), &report->signatures);
}

// What the target must already have and must not hold otherwise.
Status CheckTarget(Db& db, const BundleManifest& m, const ImportOptions& o) {
  Store& store = db.store();
  for (const std::string& name : m.extensions) {
    if (FindExtension(&store, name) == nullptr) {
      return Status::NotSupported("the bundle's snapshots carry data of extension '" + name +
                                  "', which this program does not have");
    }
  }
  for (const ObjectId& base : m.base) {
    auto held = store.ResolveSnapshot(base.ToHex());
    if (!held.ok() && held.status().IsNotFound()) {
      return Status::NotFound("the bundle is incremental on commit " + base.ToHex() +
                              ", which this store lacks: import the bundle it was made against first");
    }
    VEXFS_RETURN_IF_ERROR(held.status());
  }
  if (o.branch.empty()) return Status::Ok();
  VEXFS_RETURN_IF_ERROR(ValidateRefName(o.branch, "branch"));
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, store.ListBranches());
  for (const BranchInfo& b : branches) {
    if (b.name != o.branch || (b.head && *b.head == m.snapshot)) continue;
    return Status::AlreadyExists("branch '" + o.branch + "' exists " +
                                 (b.head ? "at commit " + b.head->ToHex() : std::string("without a snapshot")) +
                                 ", not at the bundle's snapshot " + m.snapshot.ToHex() +
                                 "; import it under another --branch");
  }
  return Status::Ok();
}

Status CheckFreeSpace(const std::string& dir, uint64_t needed) {
  struct statvfs fs;
  if (::statvfs(dir.c_str(), &fs) != 0) return Status::Ok();  // nothing to judge by; the writes will tell
  const uint64_t free_bytes = uint64_t{fs.f_bavail} * fs.f_frsize;
  if (free_bytes >= needed) return Status::Ok();
  return Status::NoSpace("the bundle needs " + std::to_string(needed) + " bytes in " + dir + ", which has " +
                         std::to_string(free_bytes) + " free");
}

// Adds every object of every pack, proving each, and checks the counts the
// manifest states.
Status AddObjects(const usxf::MappedFile& file, const BundleManifest& m, ObjectImport* import,
                  const ProgressFn& progress) {
  uint64_t objects = 0, bytes = 0;
  for (const std::string& section : m.object_sections) {
    VEXFS_ASSIGN_OR_RETURN(std::string_view pack, SectionBytes(file, section));
    VEXFS_RETURN_IF_ERROR(DecodePack(pack, section, [&](const ObjectId& id, std::string_view stored) {
      objects++;
      bytes += stored.size();
      return import->Add(id, stored);
    }));
    if (progress) progress(bytes, m.object_bytes);
  }
  if (objects != m.objects || bytes != m.object_bytes) {
    return Status::Corruption("the bundle holds " + std::to_string(objects) + " objects of " + std::to_string(bytes) +
                              " bytes; its manifest says " + std::to_string(m.objects) + " of " +
                              std::to_string(m.object_bytes));
  }
  return Status::Ok();
}

// The KV state files, written but not yet in place (their temporaries are
// removed if the import stops before it commits). A state already here under
// the same identity is kept when it is the same file and refused when it is
// not: an import never replaces what the target holds.
Result<std::vector<std::unique_ptr<usxf::AtomicFileSink>>> StageKv(const usxf::MappedFile& file,
                                                                   const BundleManifest& m, const std::string& dir,
                                                                   std::vector<std::string>* paths) {
  std::vector<std::unique_ptr<usxf::AtomicFileSink>> staged;
  for (const BundleKv& kv : m.kv) {
    VEXFS_ASSIGN_OR_RETURN(std::string_view bytes, SectionBytes(file, kv.section));
    if (bytes.size() != kv.bytes) {
      return Status::Corruption("bundle section " + kv.section + " holds " + std::to_string(bytes.size()) +
                                " bytes; the manifest says " + std::to_string(kv.bytes));
    }
    // Its structure and checksums (its digests, and signatures when a keyring
    // asks, are checked where it is restored).
    usxf::VerifyOptions fast;
    fast.level = usxf::VerifyLevel::kFast;
    usxf::VerifyReport state = usxf::VerifyBytes(bytes, fast);
    if (!state.status.ok() && state.status.code() != StatusCode::kPermissionDenied) {
      return Status::Corruption("bundle section " + kv.section + " (KV cache '" + kv.cache +
                                "') is not an intact state file: " + state.status.message());
    }
    if (std::find_if(state.summary.sections.begin(), state.summary.sections.end(),
                     [](const usxf::SectionInfo& s) { return s.name == "kv"; }) == state.summary.sections.end()) {
      return Status::Corruption("bundle section " + kv.section + " is not a KV state");
    }
    const std::string path = KvStatePath(dir, kv.cache);
    auto held = ReadWholeFile(path);
    if (held.ok() && *held == bytes) continue;  // the same state, imported before
    if (held.ok()) {
      return Status::AlreadyExists("this store holds another state for KV cache '" + kv.cache + "' (" + path +
                                   "); a changed cache takes a new identity");
    }
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::IOError("cannot create the KV directory " + dir + ": " + std::strerror(errno));
    }
    paths->push_back(path);
    VEXFS_ASSIGN_OR_RETURN(auto sink, usxf::AtomicFileSink::Create(path));
    VEXFS_RETURN_IF_ERROR(sink->Write(bytes));
    staged.push_back(std::move(sink));
  }
  return staged;
}

// Removes what a killed import left in `dir`: temporaries of processes that are
// gone ("<name>.tmp.<pid>.<random>").
void RemoveDeadTemporaries(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.find(".usxf.tmp.");
    if (at == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + at + 10, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

Status MakeBranch(Store& store, const std::string& branch, const ObjectId& snapshot) {
  if (branch.empty()) return Status::Ok();
  Status st = store.CreateBranch(branch, snapshot.ToHex());
  if (st.code() != StatusCode::kAlreadyExists) return st;
  // Made before this import (or by another writer since it checked): fine
  // only where it stands at the snapshot.
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, store.ListBranches());
  for (const BranchInfo& b : branches) {
    if (b.name == branch && b.head && *b.head == snapshot) return Status::Ok();
  }
  return Status::AlreadyExists("the snapshot is imported, but branch '" + branch +
                               "' was made elsewhere meanwhile; make another with vexfs branch NAME --from " +
                               snapshot.ToHex());
}

// Stages the KV states, adds and proves every object, commits, then puts the
// KV states in place.
Status ImportObjects(Db& db, const usxf::MappedFile& file, const BundleManifest& m, const std::string& kv_dir,
                     const ImportOptions& options, ImportReport* report) {
  VEXFS_ASSIGN_OR_RETURN(auto staged, StageKv(file, m, kv_dir, &report->kv_files));
  VEXFS_ASSIGN_OR_RETURN(auto import, ObjectImport::Begin(db.store()));
  VEXFS_RETURN_IF_ERROR(AddObjects(file, m, import.get(), options.progress));
  Status snapshot = import->RequireCommit(m.snapshot);
  if (!snapshot.ok()) {
    return Status::Corruption("the bundle's manifest names snapshot " + m.snapshot.ToHex() +
                              ", which is neither a commit of the bundle nor of this store: " + snapshot.message());
  }
  VEXFS_RETURN_IF_ERROR(import->Commit(m.names));
  report->objects_added = import->objects_added();
  report->bytes_added = import->bytes_added();
  import.reset();  // ends the write transaction before the branch takes its own
  for (auto& sink : staged) VEXFS_RETURN_IF_ERROR(sink->Commit());
  return Status::Ok();
}

}  // namespace

bool IsBundle(const usxf::FileSummary& summary) {
  auto metadata = usxf::Metadata::Decode(summary.file_metadata);
  if (!metadata.ok()) return false;
  auto format = metadata->GetString(1, "format");
  return format.ok() && *format == kBundleFormat;
}

std::string KvStatePath(const std::string& kv_dir, std::string_view cache) {
  return kv_dir + "/" + Sha256Of(cache).ToHex() + ".usxf";
}

std::string DefaultKvDir(const Db& db) { return const_cast<Db&>(db).store().path() + "/kv"; }

Result<BundleInfo> Inspect(const std::string& path, const usxf::VerifyOptions& options) {
  BundleInfo info;
  VEXFS_ASSIGN_OR_RETURN(auto file, OpenVerified(path, options.keyring, std::max(1, options.threads),
                                                 &info.verify.signatures));
  info.verify.summary = file->summary();
  VEXFS_ASSIGN_OR_RETURN(info.manifest, ReadManifest(*file));
  return info;
}

Result<ImportReport> Import(Db& db, const std::string& path, const ImportOptions& options) {
  ImportReport report;
  auto start = Clock::now();
  auto file = OpenForImport(path, options, &report);
  VEXFS_RETURN_IF_ERROR(file.status().WithContext(path));
  VEXFS_ASSIGN_OR_RETURN(report.manifest, ReadManifest(**file));
  const BundleManifest& m = report.manifest;
  VEXFS_RETURN_IF_ERROR(CheckTarget(db, m, options));
  uint64_t kv_bytes = 0;
  for (const BundleKv& kv : m.kv) kv_bytes += kv.bytes;
  VEXFS_RETURN_IF_ERROR(CheckFreeSpace(db.store().path(), m.object_bytes + kv_bytes));
  report.verify_seconds = SecondsSince(start);

  start = Clock::now();
  const std::string kv_dir = options.kv_dir.empty() ? DefaultKvDir(db) : options.kv_dir;
  const bool kv_dir_existed = std::filesystem::exists(kv_dir);
  if (kv_dir_existed) RemoveDeadTemporaries(kv_dir);
  Status st = ImportObjects(db, **file, m, kv_dir, options, &report);
  if (!st.ok()) {
    std::error_code ec;
    if (!kv_dir_existed) std::filesystem::remove(kv_dir, ec);  // only if empty
    return st;
  }
  VEXFS_RETURN_IF_ERROR(MakeBranch(db.store(), options.branch, m.snapshot));
  report.import_seconds = SecondsSince(start);
  return report;
}

}  // namespace vexfs::agent
