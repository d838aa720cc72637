// Agent bundles: one signed USXF file holding an agent's snapshot (its files and
// memory graph, as the store's own objects) and the KV caches of its prompt, so
// the agent moves to another store, host or runtime and resumes there. The
// sections and the import's guarantees are in docs/agent-bundle.md.
//
// Export writes the bundle as a stream: the objects are chosen once, their
// sizes planned from the store, then copied to the sink; nothing holds the
// bundle in memory. Import verifies the whole file (every section's SHA-256
// Merkle tree, and with a keyring a trusted signature) before it writes
// anything, then admits the objects in one transaction: the target holds the
// same commit ids and graph node ids as the source, or nothing of the bundle.
//
// Thread-safety: each call uses the Db it is given from the calling thread.
#ifndef VEXFS_AGENT_BUNDLE_H_
#define VEXFS_AGENT_BUNDLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "vexfs/db.h"
#include "vexfs/status.h"
#include "vexfs/types.h"
#include "vexfs/usxf.h"
#include "vexfs/usxf_keys.h"

#pragma GCC visibility push(default)

namespace vexfs::agent {

inline constexpr char kBundleFormat[] = "vexfs-agent-bundle-1";

// A KV state file (as `vexfs kv capture` writes it) and the identity graph
// nodes name it by in their KV spans (GraphNode::span->cache).
struct KvAttachment {
  std::string cache;  // 1-256 bytes
  std::string path;
};

struct ExportOptions {
  std::string agent;     // the agent's name ("" = the branch's name)
  std::string snapshot;  // name or commit id ("" = the current branch's head)
  // What the target holds already (snapshot names or commit ids here, or commit
  // ids the target listed): only the objects it lacks travel.
  std::vector<std::string> since;
  std::vector<ObjectId> have;
  std::vector<KvAttachment> kv;
  std::vector<const usxf::SigningKey*> signers;
  uint64_t pack_bytes = 64ull << 20;  // objects per section, about
  ProgressFn progress;                // bytes written of the total
};

// One KV state in a bundle.
struct BundleKv {
  std::string cache;
  std::string section;       // the section holding the state file, whole
  uint64_t bytes = 0;
  std::vector<std::string> nodes;  // graph nodes whose span names the cache (hex ids)
};

// What a bundle says it holds: its "manifest" section.
struct BundleManifest {
  std::string format = kBundleFormat;
  std::string agent;
  std::string source_store;  // the source store's path when exported
  TimeNs created = 0;
  ObjectId snapshot;
  std::vector<ObjectId> parents;
  std::string branch;                     // the branch it was taken on
  std::vector<ObjectId> base;             // commits the target must hold (incremental)
  // Names to give on import: each commit that travels, by the names it had.
  std::vector<std::pair<std::string, ObjectId>> names;
  std::vector<std::string> extensions;    // roots the commits carry besides files
  uint64_t objects = 0;
  uint64_t object_bytes = 0;
  std::vector<std::string> object_sections;  // "objects.0", ...
  std::vector<BundleKv> kv;
};

struct ExportReport {
  BundleManifest manifest;
  uint64_t file_bytes = 0;
  uint64_t kv_bytes = 0;
  double select_seconds = 0;  // choosing the objects and planning the sections
  double write_seconds = 0;   // copying them out, hashing, signing
};

// Writes the bundle to `sink`. kNotFound for an unknown snapshot or KV file,
// kInvalidArgument for a malformed option (named).
Result<ExportReport> Export(Db& db, const ExportOptions& options, usxf::ByteSink* sink);
// Export to a new file at `path`, atomically (temporary file, fsync, rename).
Result<ExportReport> ExportToPath(Db& db, const ExportOptions& options, const std::string& path);

struct ImportOptions {
  // When set, a valid signature by one of its keys is required (an unsigned
  // bundle or another signer is kPermissionDenied). Without one, a signed
  // bundle is refused too: its signatures could not be checked.
  const usxf::Keyring* keyring = nullptr;
  // A new branch at the bundle's snapshot. One of this name already at the
  // snapshot is kept; one elsewhere is kAlreadyExists, before anything is
  // written. A branch is never moved.
  std::string branch;
  // Where the KV state files go ("" = the store's kv/ directory).
  std::string kv_dir;
  int threads = 2;  // for hashing the bundle
  // The file's summary when the caller has verified it whole already, at
  // kFull and against its keyring (a receiver that checked it while it
  // arrived, into a file only it writes): the import then does not hash it
  // again. Each object is still proven by its id.
  const usxf::FileSummary* verified = nullptr;
  ProgressFn progress;
};

struct ImportReport {
  BundleManifest manifest;
  uint64_t objects_added = 0;  // new to this store
  uint64_t bytes_added = 0;
  std::vector<std::string> kv_files;  // where each KV state was written
  std::vector<usxf::SignatureCheck> signatures;
  double verify_seconds = 0;
  double import_seconds = 0;
};

// Verifies `path` whole, then imports it (see the top of this file). Errors:
// kCorruption (damage, named by section or object; a manifest that does not
// match the bundle), kPermissionDenied (signatures), kNotFound (a base commit
// this store lacks), kAlreadyExists (a branch or snapshot name held by another
// commit, another state under a KV cache identity), kNoSpace (the bundle's
// objects and KV states would not fit the free disk), kNotSupported (an
// extension this build lacks, a newer format). Each leaves the store
// unchanged. A failure after the commit (renaming a KV state into place,
// making the branch) leaves the snapshot imported; importing again completes it.
Result<ImportReport> Import(Db& db, const std::string& path, const ImportOptions& options);

// The manifest as the bundle's "manifest" section holds it (JSON text,
// docs/agent-bundle.md): what `agent export|import|inspect --json` show too.
std::string EncodeManifest(const BundleManifest& manifest);

// Whether a USXF file is an agent bundle (its file metadata says so).
bool IsBundle(const usxf::FileSummary& summary);

// Reads the manifest of a verified bundle (for `vexfs agent inspect`).
struct BundleInfo {
  BundleManifest manifest;
  usxf::VerifyReport verify;
};
Result<BundleInfo> Inspect(const std::string& path, const usxf::VerifyOptions& options);

// Where Import puts the state file of KV cache `cache` under `kv_dir`: a name
// from the SHA-256 of the identity, which may hold any byte.
std::string KvStatePath(const std::string& kv_dir, std::string_view cache);
// The default KV directory of a store.
std::string DefaultKvDir(const Db& db);

}  // namespace vexfs::agent

#pragma GCC visibility pop

#endif  // VEXFS_AGENT_BUNDLE_H_
