// LD_PRELOAD fault injector for the fault tests: fails the Nth write or sync
// call of one kind, on files inside one directory, with a chosen errno. The call
// that fails does nothing, as when a disk rejects a write before touching it.
//
// Environment (read once, at load):
//   VEXFS_FAULT_OP      pwrite | pwritev | write | writev | fdatasync | fsync |
//                       msync | ftruncate (the 64-bit and v2 variants count as
//                       their base kind)
//   VEXFS_FAULT_AFTER   N >= 1: the Nth call of that kind fails; unset or 0: none
//   VEXFS_FAULT_ERRNO   EIO (default) | ENOSPC | EDQUOT | EROFS | EINTR | a number
//   VEXFS_FAULT_STICKY  1: every call of that kind from the Nth on fails, like a
//                       disk that stays full
//   VEXFS_FAULT_DIR     count only calls on descriptors of this directory and
//                       of paths inside it (msync has no descriptor: always
//                       counted)
//   VEXFS_FAULT_REPORT  at exit, write "<kind> <calls>" lines and
//                       "injected <n>" to this file, so a test can prove that
//                       the calls it targets really pass through here
//
// Interposition works on every call that goes through the dynamic symbol table,
// which includes liblmdb.so's calls into libc; it does not see glibc's internal
// calls (stdio writes).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum Kind {
  kPwrite, kPwritev, kWrite, kWritev, kFdatasync, kFsync, kMsync, kFtruncate, kKinds
};

static const char* const kKindNames[kKinds] = {
    "pwrite", "pwritev", "write", "writev", "fdatasync", "fsync", "msync", "ftruncate"};

static struct {
  int kind;  // -1: inject nothing
  long after;
  int error;
  int sticky;
  char dir[4096];
  size_t dir_len;
  char report[4096];
} config = {-1, 0, EIO, 0, "", 0, ""};

static atomic_long calls[kKinds];
static atomic_long injected;

static int ParseErrno(const char* name) {
  static const struct {
    const char* name;
    int value;
  } kErrnos[] = {{"EIO", EIO}, {"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT},
                 {"EROFS", EROFS}, {"EINTR", EINTR}};
  for (size_t i = 0; i < sizeof(kErrnos) / sizeof(kErrnos[0]); ++i) {
    if (strcmp(name, kErrnos[i].name) == 0) return kErrnos[i].value;
  }
  int value = atoi(name);
  return value > 0 ? value : EIO;
}

static void CopyEnv(const char* name, char* out, size_t size) {
  const char* value = getenv(name);
  if (value != NULL) snprintf(out, size, "%s", value);
}

__attribute__((constructor)) static void LoadConfig(void) {
  const char* op = getenv("VEXFS_FAULT_OP");
  for (int k = 0; op != NULL && k < kKinds; ++k) {
    if (strcmp(op, kKindNames[k]) == 0) config.kind = k;
  }
  const char* after = getenv("VEXFS_FAULT_AFTER");
  config.after = after != NULL ? atol(after) : 0;
  const char* error = getenv("VEXFS_FAULT_ERRNO");
  if (error != NULL) config.error = ParseErrno(error);
  const char* sticky = getenv("VEXFS_FAULT_STICKY");
  config.sticky = sticky != NULL && strcmp(sticky, "1") == 0;
  CopyEnv("VEXFS_FAULT_DIR", config.dir, sizeof(config.dir));
  config.dir_len = strlen(config.dir);
  while (config.dir_len > 1 && config.dir[config.dir_len - 1] == '/') {
    config.dir[--config.dir_len] = '\0';
  }
  CopyEnv("VEXFS_FAULT_REPORT", config.report, sizeof(config.report));
}

static void* Next(const char* name) { return dlsym(RTLD_NEXT, name); }

// True if `fd` names VEXFS_FAULT_DIR or a path inside it (or no directory was
// given).
static int InDir(int fd) {
  if (config.dir_len == 0) return 1;
  if (fd < 0) return fd == -2;  // -2: a call without a descriptor (msync)
  char link[64];
  char path[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof(path) - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return strncmp(path, config.dir, config.dir_len) == 0 &&
         (path[config.dir_len] == '/' || path[config.dir_len] == '\0');
}

// Counts the call and decides whether it fails; sets errno when it does.
static int ShouldFail(int kind, int fd) {
  if (!InDir(fd)) return 0;
  long n = atomic_fetch_add(&calls[kind], 1) + 1;
  if (kind != config.kind || config.after <= 0) return 0;
  if (n != config.after && !(config.sticky && n > config.after)) return 0;
  atomic_fetch_add(&injected, 1);
  errno = config.error;
  return 1;
}

__attribute__((destructor)) static void WriteReport(void) {
  if (config.report[0] == '\0') return;
  char text[1024];
  size_t len = 0;
  for (int k = 0; k < kKinds; ++k) {
    len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %ld\n", kKindNames[k],
                            atomic_load(&calls[k]));
  }
  len += (size_t)snprintf(text + len, sizeof(text) - len, "injected %ld\n",
                          atomic_load(&injected));
  int fd = open(config.report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t (*real_write)(int, const void*, size_t) = Next("write");
  if (real_write != NULL) real_write(fd, text, len);
  close(fd);
}

// Defines an interposer `name` of kind `kind`: `fd_expr` picks the descriptor.
#define VEXFS_INTERPOSE(ret, name, kind, fd_expr, params, args)        \
  ret name params {                                                    \
    static ret(*real) params;                                          \
    if (real == NULL) real = (ret(*) params)Next(#name);               \
    if (ShouldFail(kind, fd_expr)) return -1;                          \
    return real args;                                                  \
  }

VEXFS_INTERPOSE(ssize_t, pwrite, kPwrite, fd,
                (int fd, const void* buf, size_t n, off_t off), (fd, buf, n, off))
VEXFS_INTERPOSE(ssize_t, pwrite64, kPwrite, fd,
                (int fd, const void* buf, size_t n, off64_t off), (fd, buf, n, off))
VEXFS_INTERPOSE(ssize_t, pwritev, kPwritev, fd,
                (int fd, const struct iovec* iov, int cnt, off_t off), (fd, iov, cnt, off))
VEXFS_INTERPOSE(ssize_t, pwritev64, kPwritev, fd,
                (int fd, const struct iovec* iov, int cnt, off64_t off),
                (fd, iov, cnt, off))
VEXFS_INTERPOSE(ssize_t, pwritev2, kPwritev, fd,
                (int fd, const struct iovec* iov, int cnt, off_t off, int flags),
                (fd, iov, cnt, off, flags))
VEXFS_INTERPOSE(ssize_t, write, kWrite, fd, (int fd, const void* buf, size_t n),
                (fd, buf, n))
VEXFS_INTERPOSE(ssize_t, writev, kWritev, fd, (int fd, const struct iovec* iov, int cnt),
                (fd, iov, cnt))
VEXFS_INTERPOSE(int, fdatasync, kFdatasync, fd, (int fd), (fd))
VEXFS_INTERPOSE(int, fsync, kFsync, fd, (int fd), (fd))
VEXFS_INTERPOSE(int, msync, kMsync, -2, (void* addr, size_t len, int flags),
                (addr, len, flags))
VEXFS_INTERPOSE(int, ftruncate, kFtruncate, fd, (int fd, off_t len), (fd, len))
VEXFS_INTERPOSE(int, ftruncate64, kFtruncate, fd, (int fd, off64_t len), (fd, len))
