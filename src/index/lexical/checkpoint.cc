// Building, publishing and verifying lexical checkpoints (see the header).
#include "index/lexical/checkpoint.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "common/coding.h"
#include "common/file_util.h"
#include "index/lexical/analysis.h"
#include "index/lexical/build.h"
#include "index/lexical/log.h"
#include "index/model_registry.h"

namespace vexfs::index {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMetaMagic = "VXLEXMT1";
constexpr std::string_view kCountKey = "vexfs:count";
constexpr std::string_view kFingerprintKey = "vexfs:fingerprint";
// Xapian's own lock file is written by writers only and is not part of the data.
constexpr std::string_view kXapianLockFile = "flintlock";
constexpr uint64_t kMinCheckpointRecords = 1000;

struct Meta {
  uint32_t model = 0;
  std::string fingerprint;
  uint64_t generation = 0;
  uint64_t count = 0;
  ObjectId last_hash;
  std::string digest;  // XXH3-128 of the generation's files, 16 bytes
};

std::string ModelDir(const std::string& dir, uint32_t id) {
  return dir + "/lexical-m" + std::to_string(id);
}
std::string MetaPath(const std::string& dir, uint32_t id) { return ModelDir(dir, id) + ".meta"; }
std::string LockPath(const std::string& dir, uint32_t id) { return ModelDir(dir, id) + ".lock"; }
std::string GenerationDir(const std::string& dir, uint32_t id, uint64_t gen) {
  return ModelDir(dir, id) + "/g" + std::to_string(gen);
}

std::string EncodeMeta(const Meta& m) {
  Encoder e;
  e.PutRaw(kMetaMagic);
  e.PutFixed32BE(m.model);
  e.PutBytes(m.fingerprint);
  e.PutFixed64BE(m.generation);
  e.PutFixed64BE(m.count);
  e.PutRaw(m.last_hash.AsBytes());
  e.PutBytes(m.digest);
  std::string out = e.Take();
  Encoder sum;
  sum.PutFixed64BE(XXH3_64bits(out.data(), out.size()));
  return out + sum.Take();
}

std::optional<Meta> DecodeMeta(std::string_view raw) {
  if (raw.size() < kMetaMagic.size() + 8 || !raw.starts_with(kMetaMagic)) return std::nullopt;
  std::string_view body = raw.substr(0, raw.size() - 8);
  Decoder sum(raw.substr(body.size()));
  uint64_t want = 0;
  if (!sum.GetFixed64BE(&want) || want != XXH3_64bits(body.data(), body.size())) {
    return std::nullopt;
  }
  Decoder d(body.substr(kMetaMagic.size()));
  Meta m;
  std::string_view fingerprint, hash, digest;
  bool ok = d.GetFixed32BE(&m.model) && d.GetBytes(&fingerprint) &&
            d.GetFixed64BE(&m.generation) && d.GetFixed64BE(&m.count) && d.GetRaw(32, &hash) &&
            d.GetBytes(&digest) && d.done() && digest.size() == 16;
  if (!ok) return std::nullopt;
  m.fingerprint = std::string(fingerprint);
  m.last_hash = ObjectId::FromBytes(hash);
  m.digest = std::string(digest);
  return m;
}

// XXH3-128 over every data file of a directory: names, sizes and bytes, in name
// order. Any file that cannot be read makes the digest fail.
Result<std::string> DigestDirectory(const std::string& path) {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    std::string name = entry.path().filename().string();
    if (name != kXapianLockFile) names.push_back(name);
  }
  if (ec) return Status::IOError("list '" + path + "': " + ec.message());
  std::sort(names.begin(), names.end());
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  std::vector<char> buf(size_t{1} << 20);
  Status st;
  for (const std::string& name : names) {
    std::string file = path + "/" + name;
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      st = ErrnoStatus("open '" + file + "'");
      break;
    }
    XXH3_128bits_update(state, name.data(), name.size() + 1);
    ssize_t n = 0;
    while ((n = ::read(fd, buf.data(), buf.size())) > 0) XXH3_128bits_update(state, buf.data(), n);
    if (n < 0) st = ErrnoStatus("read '" + file + "'");
    ::close(fd);
    if (!st.ok()) break;
  }
  XXH128_canonical_t canon;
  XXH128_canonicalFromHash(&canon, XXH3_128bits_digest(state));
  XXH3_freeState(state);
  if (!st.ok()) return st;
  return std::string(reinterpret_cast<const char*>(canon.digest), sizeof(canon.digest));
}

// flock on the model's lock file, released when it goes out of scope.
class DirLock {
 public:
  Status Acquire(const std::string& path, int how) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return ErrnoStatus("open '" + path + "'");
    while (::flock(fd_, how) != 0) {
      if (errno != EINTR) return ErrnoStatus("lock '" + path + "'");
    }
    return Status::Ok();
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

std::optional<Meta> ReadMeta(const std::string& dir, uint32_t id) {
  auto raw = ReadWholeFile(MetaPath(dir, id));
  if (!raw.ok()) return std::nullopt;
  return DecodeMeta(*raw);
}

// Whether `meta` describes records of this model that the log still holds, and
// its files are the ones it describes.
Result<bool> MetaMatchesStore(Store* store, const ModelRecord& model,
                              const std::string& dir, const Meta& meta) {
  if (meta.model != model.id || meta.fingerprint != model.info.fingerprint ||
      meta.count > model.next_vector) {
    return false;
  }
  if (meta.count > 0) {
    VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store));
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store, false));
    auto hash = LexicalRecordHash(txn, ix, model, meta.count - 1);
    if (hash.status().IsCorruption()) return false;
    VEXFS_RETURN_IF_ERROR(hash.status());
    if (*hash != meta.last_hash) return false;
  }
  auto digest = DigestDirectory(GenerationDir(dir, model.id, meta.generation));
  return digest.ok() && *digest == meta.digest;
}

std::unique_ptr<Xapian::Database> OpenVerified(const std::string& path, const Meta& meta) {
  try {
    auto db = std::make_unique<Xapian::Database>(path, Xapian::DB_BACKEND_GLASS);
    // Searches number lexical ids from document numbers: id i must be document i + 1.
    if (db->get_doccount() != meta.count || db->get_lastdocid() != meta.count ||
        db->get_metadata(std::string(kCountKey)) != std::to_string(meta.count) ||
        db->get_metadata(std::string(kFingerprintKey)) != meta.fingerprint) {
      return nullptr;
    }
    return db;
  } catch (const Xapian::Error&) {
    return nullptr;
  }
}

Status SyncTree(const std::string& path) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open '" + entry.path().string() + "'");
    int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0) return ErrnoStatus("sync '" + entry.path().string() + "'");
  }
  if (ec) return Status::IOError("list '" + path + "': " + ec.message());
  return SyncDirectory(path);
}

Status WriteGeneration(Store* store, const ModelRecord& model,
                       const std::string& dir, const std::optional<Meta>& base, uint64_t gen,
                       const ProgressFn& progress, const BuildStopFn& stop) {
  std::string path = GenerationDir(dir, model.id, gen);
  std::error_code ec;
  fs::remove_all(path, ec);  // a build that crashed before publishing
  if (base) {
    fs::copy(GenerationDir(dir, model.id, base->generation), path,
             fs::copy_options::overwrite_existing, ec);
    if (ec) return Status::IOError("copy lexical checkpoint to '" + path + "': " + ec.message());
  } else {
    VEXFS_RETURN_IF_ERROR(BuildLexicalDatabase(store, model, path, progress, stop));
  }
  try {
    Xapian::WritableDatabase db(path, Xapian::DB_BACKEND_GLASS | Xapian::DB_NO_SYNC |
                                          Xapian::DB_OPEN);
    if (base) {
      VEXFS_RETURN_IF_ERROR(AddLexicalRecords(store, model, base->count, &db, progress, stop));
    }
    db.set_metadata(std::string(kCountKey), std::to_string(model.next_vector));
    db.set_metadata(std::string(kFingerprintKey), model.info.fingerprint);
    db.commit();
    db.close();
  } catch (const Xapian::Error& e) {
    return Status::IOError("write lexical checkpoint '" + path + "': " + e.get_description());
  }
  fs::remove(path + "/" + std::string(kXapianLockFile), ec);
  return SyncTree(path);
}

void RemoveOldGenerations(const std::string& dir, uint32_t id, uint64_t keep_a, uint64_t keep_b) {
  std::error_code ec;
  std::string keep1 = "g" + std::to_string(keep_a), keep2 = "g" + std::to_string(keep_b);
  for (const auto& entry : fs::directory_iterator(ModelDir(dir, id), ec)) {
    std::string name = entry.path().filename().string();
    if (name != keep1 && name != keep2) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

Result<std::optional<LexicalCheckpoint>> LoadLexicalCheckpoint(Store* store,
                                                               const ModelRecord& model,
                                                               const std::string& dir) {
  using Out = std::optional<LexicalCheckpoint>;
  std::error_code ec;
  if (!fs::exists(MetaPath(dir, model.id), ec)) return Out();
  // A store on a read-only medium has no lock to take, and no writer either.
  DirLock lock;
  (void)lock.Acquire(LockPath(dir, model.id), LOCK_SH);
  std::optional<Meta> meta = ReadMeta(dir, model.id);
  if (!meta) return Out();
  VEXFS_ASSIGN_OR_RETURN(bool matches, MetaMatchesStore(store, model, dir, *meta));
  if (!matches) return Out();
  auto db = OpenVerified(GenerationDir(dir, model.id, meta->generation), *meta);
  if (!db) return Out();
  return Out(LexicalCheckpoint{meta->generation, meta->count, std::move(db)});
}

namespace {

// Both builds; `only_if_due` skips one that LexicalCheckpointDue does not ask for.
Status Build(Store* store, const ModelRecord& stale_model, const std::string& dir,
             const ProgressFn& progress, const BuildStopFn& stop, bool only_if_due) {
  std::error_code ec;
  fs::create_directories(ModelDir(dir, stale_model.id), ec);
  if (ec) return Status::IOError("create '" + ModelDir(dir, stale_model.id) + "': " + ec.message());
  DirLock lock;
  VEXFS_RETURN_IF_ERROR(lock.Acquire(LockPath(dir, stale_model.id), LOCK_EX));
  // The model as of now: the generation holds exactly the records the log has.
  ModelRecord model = stale_model;
  {
    VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store));
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store, false));
    VEXFS_ASSIGN_OR_RETURN(auto found, FindModel(txn, ix, model.info.name));
    if (!found) return Status::NotFound("model '" + model.info.name + "' is not registered");
    model = *found;
  }
  std::optional<Meta> base = ReadMeta(dir, model.id);
  uint64_t gen = base ? base->generation + 1 : 1;
  if (base) {
    VEXFS_ASSIGN_OR_RETURN(bool usable, MetaMatchesStore(store, model, dir, *base));
    if (usable && base->count == model.next_vector) return Status::Ok();
    if (!usable) base.reset();
  }
  if (only_if_due && !LexicalCheckpointDue(base ? base->count : 0, model.next_vector)) {
    return Status::Ok();
  }
  VEXFS_RETURN_IF_ERROR(WriteGeneration(store, model, dir, base, gen, progress, stop));
  Meta meta{model.id, model.info.fingerprint, gen, model.next_vector, ObjectId{}, ""};
  if (meta.count > 0) {
    VEXFS_ASSIGN_OR_RETURN(IndexTables ix, SearchTables(store));
    StoreTxn txn;
    VEXFS_RETURN_IF_ERROR(txn.Begin(store, false));
    VEXFS_ASSIGN_OR_RETURN(meta.last_hash,
                           LexicalRecordHash(txn, ix, model, meta.count - 1));
  }
  VEXFS_ASSIGN_OR_RETURN(meta.digest, DigestDirectory(GenerationDir(dir, model.id, gen)));
  VEXFS_RETURN_IF_ERROR(WriteFileAtomically(MetaPath(dir, model.id), EncodeMeta(meta)));
  // Keep the previous generation for readers that have it open.
  RemoveOldGenerations(dir, model.id, gen, base ? base->generation : gen);
  return Status::Ok();
}

}  // namespace

Status BuildLexicalCheckpoint(Store* store, const ModelRecord& model,
                              const std::string& dir, const ProgressFn& progress,
                              const BuildStopFn& stop) {
  return Build(store, model, dir, progress, stop, /*only_if_due=*/false);
}

Status BuildLexicalCheckpointIfDue(Store* store, const ModelRecord& model,
                                   const std::string& dir, const BuildStopFn& stop) {
  return Build(store, model, dir, nullptr, stop, /*only_if_due=*/true);
}

bool LexicalCheckpointDue(uint64_t checkpointed, uint64_t total) {
  return total > checkpointed &&
         total - checkpointed >= std::max(kMinCheckpointRecords, total / 4);
}

Status RemoveLexicalCheckpoint(const std::string& dir, uint32_t id) {
  DirLock lock;
  VEXFS_RETURN_IF_ERROR(lock.Acquire(LockPath(dir, id), LOCK_EX));
  std::error_code ec;
  fs::remove(MetaPath(dir, id), ec);
  fs::remove_all(ModelDir(dir, id), ec);
  if (ec) return Status::IOError("remove '" + ModelDir(dir, id) + "': " + ec.message());
  return Status::Ok();
}

}  // namespace vexfs::index
