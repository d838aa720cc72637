// Writing an agent bundle as a stream (vexfs/agent_bundle.h, Export).
//
// USXF declares each section's length before its bytes, so the export runs in
// two steps: the selection walk records each object's id and stored length and
// lays out the packs; then the objects are read again by id and copied out. An
// object's bytes never change under its id, so the plan holds; if one is
// collected meanwhile, the export fails (the writer also refuses a section
// that comes out shorter or longer than planned) rather than write a bad file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "agent/bundle_layout.h"
#include "agent/manifest.h"
#include "agent/object_pack.h"
#include "common/file_util.h"
#include "vexfs/agent_bundle.h"
#include "vexfs/graph.h"
#include "vexfs/object_transfer.h"
#include "vexfs/usxf_io.h"

namespace vexfs::agent {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct PlannedObject {
  ObjectId id;
  uint64_t stored_length;
};

struct Plan {
  BundleManifest manifest;
  std::vector<std::vector<PlannedObject>> packs;
  std::vector<uint64_t> pack_lengths;
  std::vector<uint64_t> kv_lengths;
  // Each KV state file, open from its check to its copy: a file renamed over
  // meanwhile does not mix into the bundle.
  std::vector<std::shared_ptr<const int>> kv_fds;
};

Result<CommitInfo> ResolveExported(Store& store, const std::string& snapshot) {
  if (!snapshot.empty()) return store.ResolveSnapshot(snapshot);
  VEXFS_ASSIGN_OR_RETURN(std::vector<BranchInfo> branches, store.ListBranches());
  for (const BranchInfo& b : branches) {
    if (!b.current) continue;
    if (!b.head) {
      return Status::NotFound("branch '" + b.name + "' has no snapshot to export; take one first (vexfs snapshot create)");
    }
    return store.ResolveSnapshot(b.head->ToHex());
  }
  return Status::NotFound("the store has no current branch");
}

Result<std::vector<ObjectId>> BaseCommits(Store& store, const ExportOptions& o) {
  std::vector<ObjectId> base = o.have;
  for (const std::string& s : o.since) {
    VEXFS_ASSIGN_OR_RETURN(CommitInfo c, store.ResolveSnapshot(s));
    base.push_back(c.id);
  }
  std::sort(base.begin(), base.end());
  base.erase(std::unique(base.begin(), base.end()), base.end());
  return base;
}

// Chooses the objects and cuts them into packs of about `pack_bytes`.
Status PlanObjects(Store& store, const std::vector<ObjectId>& want, uint64_t pack_bytes,
                   const std::map<ObjectId, std::vector<std::string>>& names, Plan* plan) {
  BundleManifest& m = plan->manifest;
  uint64_t current = 0;
  Status st = SelectObjects(store, want, m.base, [&](const ObjectId& id, std::string_view stored) {
    uint64_t record = PackRecordLength(stored.size());
    if (plan->packs.empty() || (current > 0 && current + record > pack_bytes)) {
      plan->packs.emplace_back();
      plan->pack_lengths.push_back(0);
      current = 0;
    }
    plan->packs.back().push_back({id, stored.size()});
    plan->pack_lengths.back() += record;
    current += record;
    m.objects++;
    m.object_bytes += stored.size();
    auto named = names.find(id);
    if (named != names.end()) {
      for (const std::string& name : named->second) m.names.emplace_back(name, id);
    }
    return Status::Ok();
  });
  VEXFS_RETURN_IF_ERROR(st);
  for (size_t i = 0; i < plan->packs.size(); ++i) m.object_sections.push_back(ObjectSection(i));
  return Status::Ok();
}

// Every snapshot name, by commit.
Result<std::map<ObjectId, std::vector<std::string>>> NamesByCommit(Store& store) {
  VEXFS_ASSIGN_OR_RETURN(std::vector<CommitInfo> snapshots, store.ListSnapshots());
  std::map<ObjectId, std::vector<std::string>> out;
  for (const CommitInfo& c : snapshots) out[c.id] = c.names;
  return out;
}

// The snapshot's graph nodes whose KV span names each attached cache.
Result<std::map<std::string, std::vector<std::string>>> NodesByCache(Db& db, const ObjectId& snapshot,
                                                                     const std::vector<KvAttachment>& kv) {
  std::map<std::string, std::vector<std::string>> out;
  for (const KvAttachment& a : kv) out[a.cache];
  if (kv.empty()) return out;
  GraphQuery query;
  query.read.snapshot = snapshot.ToHex();
  query.read.include_invalid = true;
  Status st = db.graph().VisitNodes(query, [&](GraphNode& node) {
    if (node.span) {
      auto it = out.find(node.span->cache);
      if (it != out.end()) it->second.push_back(node.id.ToHex());
    }
    return true;
  });
  VEXFS_RETURN_IF_ERROR(st);
  return out;
}

// Opens a KV state file and checks its structure cheaply through that same
// open file (the bundle's own digests cover its bytes; import and restore
// verify it whole).
Result<std::shared_ptr<const int>> OpenKvFile(const KvAttachment& a, uint64_t* length) {
  if (a.cache.empty() || a.cache.size() > 256) {
    return Status::InvalidArgument("KV cache identity '" + a.cache.substr(0, 80) + "' is not 1 to 256 bytes");
  }
  const int fd = ::open(a.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OutsideErrnoToStatus(errno, "open KV state " + a.path);
  std::shared_ptr<const int> held(new int(fd), [](const int* p) {
    ::close(*p);
    delete p;
  });
  VEXFS_ASSIGN_OR_RETURN(auto file, usxf::MappedFile::Open("/proc/self/fd/" + std::to_string(fd)));
  if (!file->Find("kv").ok()) return Status::InvalidArgument(a.path + " is a USXF file without a kv section, not a KV state");
  *length = file->summary().file_length;
  return held;
}

Status PlanKv(Db& db, const ExportOptions& o, Plan* plan) {
  std::set<std::string> seen;
  for (const KvAttachment& a : o.kv) {
    if (!seen.insert(a.cache).second) return Status::InvalidArgument("KV cache '" + a.cache + "' is given twice");
  }
  VEXFS_ASSIGN_OR_RETURN(auto nodes, NodesByCache(db, plan->manifest.snapshot, o.kv));
  for (size_t i = 0; i < o.kv.size(); ++i) {
    uint64_t length = 0;
    VEXFS_ASSIGN_OR_RETURN(auto fd, OpenKvFile(o.kv[i], &length));
    plan->kv_fds.push_back(std::move(fd));
    plan->manifest.kv.push_back({o.kv[i].cache, KvSection(i), length, nodes[o.kv[i].cache]});
    plan->kv_lengths.push_back(length);
  }
  return Status::Ok();
}

Result<Plan> MakePlan(Db& db, const ExportOptions& o) {
  Store& store = db.store();
  Plan plan;
  BundleManifest& m = plan.manifest;
  VEXFS_ASSIGN_OR_RETURN(CommitInfo commit, ResolveExported(store, o.snapshot));
  m.agent = o.agent.empty() ? commit.branch : o.agent;
  m.source_store = store.path();
  m.created = NowNs();
  m.snapshot = commit.id;
  m.parents = commit.parents;
  m.branch = commit.branch;
  for (const auto& [name, root] : commit.roots) m.extensions.push_back(name);
  VEXFS_ASSIGN_OR_RETURN(m.base, BaseCommits(store, o));
  VEXFS_ASSIGN_OR_RETURN(auto names, NamesByCommit(store));
  VEXFS_RETURN_IF_ERROR(PlanObjects(store, {commit.id}, std::max<uint64_t>(o.pack_bytes, 1), names, &plan));
  VEXFS_RETURN_IF_ERROR(PlanKv(db, o, &plan));
  return plan;
}

usxf::SectionInfo BlobSection(std::string name, uint64_t length) {
  usxf::SectionInfo s;
  s.name = std::move(name);
  s.stored_length = length;
  s.raw_length = length;
  return s;
}

// Copies out what the plan lays out, reporting progress in bytes.
class BundleCopier {
 public:
  BundleCopier(Store& store, usxf::Writer* writer, const ProgressFn& progress, uint64_t total)
      : store_(store), writer_(writer), progress_(progress), total_(total) {}

  Status Append(std::string_view bytes) {
    VEXFS_RETURN_IF_ERROR(writer_->Append(bytes));
    done_ += bytes.size();
    if (progress_ && (done_ - reported_ >= (8u << 20) || done_ == total_)) {
      progress_(done_, total_);
      reported_ = done_;
    }
    return Status::Ok();
  }

  Status CopyPack(const std::vector<PlannedObject>& pack) {
    std::vector<ObjectId> ids;
    ids.reserve(pack.size());
    for (const PlannedObject& p : pack) ids.push_back(p.id);
    size_t i = 0;
    return ReadStoredObjects(store_, ids, [&](const ObjectId& id, std::string_view stored) {
      if (stored.size() != pack[i++].stored_length) {
        return Status::Corruption("object " + id.ToHex() + " changed size while being exported");
      }
      VEXFS_RETURN_IF_ERROR(Append(PackRecordHead(id, stored.size())));
      return Append(stored);
    });
  }

  // The first `length` bytes of the open file `fd` (`path` names it in messages).
  Status CopyFile(int fd, const std::string& path, uint64_t length) {
    std::string buffer(1 << 20, '\0');
    uint64_t copied = 0;
    while (copied < length) {
      ssize_t n = ::pread(fd, buffer.data(), std::min<uint64_t>(buffer.size(), length - copied), copied);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return OutsideErrnoToStatus(errno, "read " + path);
      if (n == 0) return Status::InvalidArgument(path + " shrank while being exported");
      copied += n;
      VEXFS_RETURN_IF_ERROR(Append(std::string_view(buffer.data(), n)));
    }
    return Status::Ok();
  }

 private:
  Store& store_;
  usxf::Writer* writer_;
  const ProgressFn& progress_;
  uint64_t total_;
  uint64_t done_ = 0, reported_ = 0;
};

}  // namespace

Result<ExportReport> Export(Db& db, const ExportOptions& options, usxf::ByteSink* sink) {
  ExportReport report;
  auto start = Clock::now();
  VEXFS_ASSIGN_OR_RETURN(Plan plan, MakePlan(db, options));
  const std::string manifest = EncodeManifest(plan.manifest);
  std::vector<usxf::SectionInfo> sections = {BlobSection(kManifestSection, manifest.size())};
  uint64_t total = manifest.size();
  for (size_t i = 0; i < plan.packs.size(); ++i) {
    sections.push_back(BlobSection(ObjectSection(i), plan.pack_lengths[i]));
    total += plan.pack_lengths[i];
  }
  for (size_t i = 0; i < plan.kv_lengths.size(); ++i) {
    sections.push_back(BlobSection(KvSection(i), plan.kv_lengths[i]));
    total += plan.kv_lengths[i];
    report.kv_bytes += plan.kv_lengths[i];
  }
  if (sections.size() > usxf::kMaxSections) {
    return Status::InvalidArgument("the bundle would need " + std::to_string(sections.size()) +
                                   " sections, more than USXF's " + std::to_string(usxf::kMaxSections) +
                                   "; give a larger pack size");
  }
  report.select_seconds = SecondsSince(start);
  start = Clock::now();
  usxf::Metadata file_metadata;
  file_metadata.SetString(1, kBundleFormat);
  VEXFS_ASSIGN_OR_RETURN(auto writer, usxf::Writer::Start(sink, std::move(sections), file_metadata));
  BundleCopier copier(db.store(), writer.get(), options.progress, total);
  VEXFS_RETURN_IF_ERROR(copier.Append(manifest));
  for (const auto& pack : plan.packs) VEXFS_RETURN_IF_ERROR(copier.CopyPack(pack));
  for (size_t i = 0; i < options.kv.size(); ++i) {
    VEXFS_RETURN_IF_ERROR(copier.CopyFile(*plan.kv_fds[i], options.kv[i].path, plan.kv_lengths[i]));
  }
  VEXFS_RETURN_IF_ERROR(writer->Finish(options.signers));
  report.write_seconds = SecondsSince(start);
  report.manifest = std::move(plan.manifest);
  return report;
}

Result<ExportReport> ExportToPath(Db& db, const ExportOptions& options, const std::string& path) {
  VEXFS_ASSIGN_OR_RETURN(auto sink, usxf::AtomicFileSink::Create(path));
  VEXFS_ASSIGN_OR_RETURN(ExportReport report, Export(db, options, sink.get()));
  VEXFS_RETURN_IF_ERROR(sink->Commit());
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) report.file_bytes = st.st_size;
  return report;
}

}  // namespace vexfs::agent
