// Verifying and importing an agent bundle (vexfs/agent_bundle.h, Import).
//
// Order matters for "all or nothing": everything that can refuse the bundle
// (its digests and signatures, its manifest, the base it needs, names and
// branches it would take, extensions, free space, every object's id) is
// checked before the one write transaction commits. The KV state files are
// written to temporaries first and renamed into place after the commit, and the
// branch is made last; a crash between those steps leaves the snapshot
// imported, and running the import again completes them (each step is a no-op
// where it is done already).
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

#include "agent/bundle_layout.h"
#include "agent/manifest.h"
#include "agent/object_pack.h"
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

Result<BundleManifest> ReadManifest(const usxf::MappedFile& file) {
  auto i = file.Find(kManifestSection);
  if (!i.ok()) return Status::Corruption("the file has no manifest section: not an agent bundle");
  VEXFS_ASSIGN_OR_RETURN(BundleManifest m, DecodeManifest(file.StoredBytes(*i)));
  VEXFS_RETURN_IF_ERROR(CheckSections(file, m));
  return m;
}

Result<std::unique_ptr<usxf::MappedFile>> OpenVerified(const std::string& path, const usxf::VerifyOptions& options,
                                                       usxf::VerifyReport* report) {
  *report = usxf::VerifyFile(path, options);
  VEXFS_RETURN_IF_ERROR(report->status);
  return usxf::MappedFile::Open(path);
}

// The bundle, verified whole here unless the caller did (ImportOptions::verified).
Result<std::unique_ptr<usxf::MappedFile>> OpenForImport(const std::string& path, const ImportOptions& o,
                                                        ImportReport* report) {
  if (o.verified != nullptr) {
    VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::Open(path));
    if (file->summary().root != o.verified->root) return Status::Corruption("the file is not the one that was verified");
    return file;
  }
  usxf::VerifyOptions verify;
  verify.keyring = o.keyring;
  verify.threads = std::max(1, o.threads);
  usxf::VerifyReport verified;
  auto file = OpenVerified(path, verify, &verified);
  report->signatures = verified.signatures;
  return file;
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

// The KV state files, written but not yet in place.
Result<std::vector<std::unique_ptr<usxf::AtomicFileSink>>> StageKv(const usxf::MappedFile& file,
                                                                   const BundleManifest& m, const std::string& dir,
                                                                   std::vector<std::string>* paths) {
  std::vector<std::unique_ptr<usxf::AtomicFileSink>> staged;
  if (m.kv.empty()) return staged;
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::IOError("cannot create the KV directory " + dir + ": " + std::strerror(errno));
  }
  for (const BundleKv& kv : m.kv) {
    VEXFS_ASSIGN_OR_RETURN(std::string_view bytes, SectionBytes(file, kv.section));
    if (bytes.size() != kv.bytes) {
      return Status::Corruption("bundle section " + kv.section + " holds " + std::to_string(bytes.size()) +
                                " bytes; the manifest says " + std::to_string(kv.bytes));
    }
    VEXFS_ASSIGN_OR_RETURN(auto state, usxf::MappedFile::FromBytes(bytes));
    if (!state->Find("kv").ok()) return Status::Corruption("bundle section " + kv.section + " is not a KV state");
    paths->push_back(KvStatePath(dir, kv.cache));
    VEXFS_ASSIGN_OR_RETURN(auto sink, usxf::AtomicFileSink::Create(paths->back()));
    VEXFS_RETURN_IF_ERROR(sink->Write(bytes));
    staged.push_back(std::move(sink));
  }
  return staged;
}

Status MakeBranch(Store& store, const std::string& branch, const ObjectId& snapshot) {
  if (branch.empty()) return Status::Ok();
  Status st = store.CreateBranch(branch, snapshot.ToHex());
  if (st.code() == StatusCode::kAlreadyExists) return Status::Ok();  // checked: it is at the snapshot
  return st;
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
  VEXFS_ASSIGN_OR_RETURN(auto file, OpenVerified(path, options, &info.verify));
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
  VEXFS_ASSIGN_OR_RETURN(auto import, ObjectImport::Begin(db.store()));
  VEXFS_RETURN_IF_ERROR(AddObjects(**file, m, import.get(), options.progress));
  const std::string kv_dir = options.kv_dir.empty() ? DefaultKvDir(db) : options.kv_dir;
  VEXFS_ASSIGN_OR_RETURN(auto staged, StageKv(**file, m, kv_dir, &report.kv_files));
  VEXFS_RETURN_IF_ERROR(import->RequireCommit(m.snapshot).WithContext("the bundle's snapshot"));
  VEXFS_RETURN_IF_ERROR(import->Commit(m.names));
  report.objects_added = import->objects_added();
  report.bytes_added = import->bytes_added();
  import.reset();  // ends the write transaction before the branch takes its own
  for (auto& sink : staged) VEXFS_RETURN_IF_ERROR(sink->Commit());
  VEXFS_RETURN_IF_ERROR(MakeBranch(db.store(), options.branch, m.snapshot));
  report.import_seconds = SecondsSince(start);
  return report;
}

}  // namespace vexfs::agent
