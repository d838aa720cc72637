// LMDB wrappers: environment setup, transactions, cursors, error mapping.
#include "store/lmdb.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>

#include "common/file_util.h"

namespace vexfs::internal {
namespace {

// Room for LMDB's lock table: its header and 1024 reader slots of 64 bytes.
constexpr off_t kLockFileReserve = 128 * 1024;
// Below this much free space a failed write is taken to be a full disk.
constexpr uint64_t kNearlyFullBytes = uint64_t{1} << 20;

// LMDB maps its lock file after growing it with ftruncate, i.e. as a sparse
// file; on a full disk the first store into that map kills the process with
// SIGBUS. Reserving the blocks first turns that into an ordinary ENOSPC. Only a
// lock file created here is reserved: closing a descriptor of a lock file some
// environment of this process has open would drop that environment's locks.
// KEEP_SIZE leaves the length to LMDB, which derives its reader slots from it.
int ReserveLockFile(const std::string& dir) {
  std::string path = dir + "/lock.mdb";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return 0;  // already there, or read-only media: LMDB decides
  int err = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, kLockFileReserve) == 0 ? 0 : errno;
  ::close(fd);
  if (err != ENOSPC && err != EDQUOT) return 0;  // e.g. unsupported: as before
  ::unlink(path.c_str());  // leave the directory as it was
  return err;
}

// LMDB allows an environment to be open only once per process (mdb_env_open's
// caveats). A second open takes the process's own fcntl lock on lock.mdb for an
// exclusive one, so it re-initialises the lock table under the first (whose
// readers then protect nothing), and closing either drops the locks the other
// relies on. The directories open in this process are therefore kept here, and
// a second open of one is refused rather than allowed to corrupt the store.
// fcntl locks are not inherited, so a forked child starts with an empty set.
// The set and its mutex are never destroyed: an environment may close during
// static destruction.
struct OpenDirs {
  std::mutex mu;
  std::set<std::pair<dev_t, ino_t>> dirs;  // guarded by mu
};

OpenDirs& TheOpenDirs() {
  static OpenDirs* open_dirs = [] {
    auto* dirs = new OpenDirs;
    // A fork while another thread holds the mutex must not leave the child
    // unable to take it: the fork waits for it, and the child starts empty.
    ::pthread_atfork([] { TheOpenDirs().mu.lock(); }, [] { TheOpenDirs().mu.unlock(); },
                     [] {
                       OpenDirs& d = TheOpenDirs();
                       d.dirs.clear();
                       d.mu.unlock();
                     });
    return dirs;
  }();
  return *open_dirs;
}

// Claims `dir` for this environment; kBusy when it is open already. A directory
// that cannot be examined is left to LMDB to report.
Result<std::optional<std::pair<dev_t, ino_t>>> ClaimDir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return std::optional<std::pair<dev_t, ino_t>>();
  std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
  OpenDirs& open = TheOpenDirs();
  std::lock_guard<std::mutex> lock(open.mu);
  if (!open.dirs.insert(id).second) {
    return Status::Busy("the store in '" + dir +
                        "' is open in this process already: LMDB allows one open per "
                        "process, so share that store (it is thread-safe) or close it first");
  }
  return std::optional<std::pair<dev_t, ino_t>>(id);
}

void ReleaseDir(const std::pair<dev_t, ino_t>& id) {
  OpenDirs& open = TheOpenDirs();
  std::lock_guard<std::mutex> lock(open.mu);
  open.dirs.erase(id);
}

// LMDB reports a write that came up short, which is how a file system that
// fills up in the middle of a write answers, as EIO. When the store's file
// system is indeed out of space, that is what the caller needs to hear.
int ClassifyShortWrite(int rc, const char* dir) {
  struct statvfs fs;
  if (rc != EIO || dir == nullptr || ::statvfs(dir, &fs) != 0) return rc;
  return uint64_t{fs.f_bavail} * fs.f_frsize < kNearlyFullBytes ? ENOSPC : rc;
}

struct NamedTable {
  const char* name;
  MDB_dbi* dbi;
};

// The store's own tables, by name, with where each handle goes.
std::array<NamedTable, 9> StoreTables(Databases* dbs) {
  return {{{"meta", &dbs->meta},
           {"objects", &dbs->objects},
           {"refs", &dbs->refs},
           {"inodes", &dbs->inodes},
           {"dirents", &dbs->dirents},
           {"chunks", &dbs->chunks},
           {"xattrs", &dbs->xattrs},
           {"feed", &dbs->feed},
           {"orphans", &dbs->orphans}}};
}

}  // namespace

bool IsStoreTableName(std::string_view name) {
  Databases unused;
  for (const NamedTable& n : StoreTables(&unused)) {
    if (name == n.name) return true;
  }
  return false;
}

Status LmdbStatus(int rc, std::string_view what) {
  if (rc == MDB_SUCCESS) return Status::Ok();
  std::string msg = std::string(what) + ": " + mdb_strerror(rc);
  switch (rc) {
    case MDB_NOTFOUND: return Status::NotFound(msg);
    case MDB_MAP_FULL:
      return Status::NoSpace(std::string(what) +
                             ": the store is full (its map size, set by 'vexfs init "
                             "--map-size', is reached); 'vexfs gc' frees what no snapshot, "
                             "branch or file needs");
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH: return Status::Corruption(msg);
    case MDB_READERS_FULL: return Status::Busy(msg);
    case MDB_BAD_VALSIZE: return Status::InvalidArgument(msg);
    default:
      // LMDB's own codes are negative; the rest are errno values.
      return rc > 0 ? ErrnoToStatus(rc, what) : Status::IOError(msg);
  }
}

static Status AbsentTableWrite() {
  return Status::ReadOnly("write to a table that a read-only store does not have");
}

static MDB_val ToVal(std::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}

LmdbEnv::~LmdbEnv() { Close(); }

void LmdbEnv::Close() {
  // An environment a forked child inherited is left alone: closing it would close
  // the child's descriptor of lock.mdb, dropping the locks of the child's own
  // open of the store, and its claim is not in the child's set.
  if (env_ != nullptr && opened_by_ == ::getpid()) {
    mdb_env_close(env_);
    if (claimed_dir_) ReleaseDir(*claimed_dir_);
  }
  env_ = nullptr;
  claimed_dir_.reset();
}

Status LmdbEnv::Open(const std::string& dir, uint64_t map_size, bool sync, bool read_only,
                     bool no_lock) {
  Close();
  read_only_ = read_only;
  VEXFS_ASSIGN_OR_RETURN(claimed_dir_, ClaimDir(dir));
  opened_by_ = ::getpid();
  VEXFS_RETURN_IF_ERROR(LmdbStatus(mdb_env_create(&env_), "create LMDB environment"));
  VEXFS_RETURN_IF_ERROR(LmdbStatus(mdb_env_set_maxdbs(env_, 32), "set LMDB max dbs"));
  VEXFS_RETURN_IF_ERROR(LmdbStatus(mdb_env_set_maxreaders(env_, 1024), "set LMDB readers"));
  VEXFS_RETURN_IF_ERROR(
      LmdbStatus(mdb_env_set_mapsize(env_, map_size), "set LMDB map size"));
  // NOTLS: read transactions are not tied to threads, so a thread may hold a read
  // view while another commits, and Store objects can be shared across threads.
  unsigned flags = MDB_NOTLS;
  if (!sync) flags |= MDB_NOSYNC;
  if (read_only) flags |= MDB_RDONLY;
  if (no_lock) flags |= MDB_NOLOCK;
  std::string what = "open LMDB environment in '" + dir + "'";
  if (!no_lock) VEXFS_RETURN_IF_ERROR(LmdbStatus(ReserveLockFile(dir), what));
  int rc = mdb_env_open(env_, dir.c_str(), flags, 0644);
  Status st = LmdbStatus(ClassifyShortWrite(rc, dir.c_str()), what);
  if (!st.ok()) return st;
  int dead = 0;
  mdb_reader_check(env_, &dead);  // clears slots of readers killed mid-transaction
  return OpenDatabases();
}

Status LmdbEnv::OpenDatabases() {
  Txn txn;
  VEXFS_RETURN_IF_ERROR(txn.Begin(*this, !read_only_));
  unsigned create = read_only_ ? 0 : MDB_CREATE;
  for (const NamedTable& n : StoreTables(&dbs_)) {
    int rc = mdb_dbi_open(txn.raw(), n.name, create, n.dbi);
    // A format-1 store (no feed yet) stays readable on read-only media.
    if (rc == MDB_NOTFOUND && read_only_ && n.dbi == &dbs_.feed) continue;
    if (rc != MDB_SUCCESS) {
      return LmdbStatus(rc, std::string("open database '") + n.name + "'");
    }
  }
  return txn.Commit();
}

Txn::~Txn() { Abort(); }

Txn::Txn(Txn&& other) noexcept : txn_(other.txn_), write_(other.write_) {
  other.txn_ = nullptr;
}

Status Txn::Begin(const LmdbEnv& env, bool write) {
  Abort();
  if (write && env.read_only()) {
    return Status::ReadOnly("the store is open read-only");
  }
  write_ = write;
  return LmdbStatus(
      mdb_txn_begin(env.env(), nullptr, write ? 0 : MDB_RDONLY, &txn_),
      write ? "begin write transaction" : "begin read transaction");
}

Status Txn::Commit() {
  if (txn_ == nullptr) return Status::InvalidArgument("commit without a transaction");
  const char* dir = nullptr;
  mdb_env_get_path(mdb_txn_env(txn_), &dir);
  int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;  // freed by LMDB whether or not the commit succeeded
  return LmdbStatus(ClassifyShortWrite(rc, dir), "commit transaction");
}

void Txn::Abort() {
  if (txn_ != nullptr) mdb_txn_abort(txn_);
  txn_ = nullptr;
}

Result<std::optional<std::string_view>> Txn::Get(MDB_dbi dbi, std::string_view key) const {
  if (dbi == kAbsentTable) return std::optional<std::string_view>();
  MDB_val k = ToVal(key);
  MDB_val v;
  int rc = mdb_get(txn_, dbi, &k, &v);
  if (rc == MDB_NOTFOUND) return std::optional<std::string_view>();
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "read");
  return std::optional<std::string_view>(
      std::string_view(static_cast<const char*>(v.mv_data), v.mv_size));
}

Status Txn::Put(MDB_dbi dbi, std::string_view key, std::string_view value) {
  if (dbi == kAbsentTable) return AbsentTableWrite();
  MDB_val k = ToVal(key);
  MDB_val v = ToVal(value);
  return LmdbStatus(mdb_put(txn_, dbi, &k, &v, 0), "write");
}

Status Txn::PutJoined(MDB_dbi dbi, std::string_view key,
                      std::initializer_list<std::string_view> parts) {
  if (dbi == kAbsentTable) return AbsentTableWrite();
  MDB_val k = ToVal(key);
  MDB_val v{0, nullptr};
  for (std::string_view part : parts) v.mv_size += part.size();
  VEXFS_RETURN_IF_ERROR(LmdbStatus(mdb_put(txn_, dbi, &k, &v, MDB_RESERVE), "write"));
  char* out = static_cast<char*>(v.mv_data);
  for (std::string_view part : parts) {
    if (part.empty()) continue;  // an empty view may have no data pointer
    std::memcpy(out, part.data(), part.size());
    out += part.size();
  }
  return Status::Ok();
}

Result<bool> Txn::PutIfAbsent(MDB_dbi dbi, std::string_view key, std::string_view value) {
  if (dbi == kAbsentTable) return AbsentTableWrite();
  MDB_val k = ToVal(key);
  MDB_val v = ToVal(value);
  int rc = mdb_put(txn_, dbi, &k, &v, MDB_NOOVERWRITE);
  if (rc == MDB_KEYEXIST) return false;
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "write");
  return true;
}

Result<bool> Txn::Delete(MDB_dbi dbi, std::string_view key) {
  if (dbi == kAbsentTable) return false;
  MDB_val k = ToVal(key);
  int rc = mdb_del(txn_, dbi, &k, nullptr);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "delete");
  return true;
}

Cursor::~Cursor() {
  if (cursor_ != nullptr) mdb_cursor_close(cursor_);
}

Status Cursor::Open(const Txn& txn, MDB_dbi dbi) {
  if (dbi == kAbsentTable) return Status::Ok();  // iterates nothing
  return LmdbStatus(mdb_cursor_open(txn.raw(), dbi, &cursor_), "open cursor");
}

Result<bool> Cursor::Move(MDB_cursor_op op) {
  if (cursor_ == nullptr) return false;  // a cursor over an absent table
  int rc = mdb_cursor_get(cursor_, &key_, &value_, op);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != MDB_SUCCESS) return LmdbStatus(rc, "iterate");
  return true;
}

Result<bool> Cursor::Seek(std::string_view key) {
  if (key.empty()) return First();  // LMDB rejects zero-length keys
  key_ = ToVal(key);
  return Move(MDB_SET_RANGE);
}

Result<bool> Cursor::First() { return Move(MDB_FIRST); }
Result<bool> Cursor::Next() { return Move(MDB_NEXT); }

Status Cursor::DeleteCurrent() {
  return LmdbStatus(mdb_cursor_del(cursor_, 0), "delete");
}

}  // namespace vexfs::internal
