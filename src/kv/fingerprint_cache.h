// A GGUF file's weights fingerprint, remembered between processes: hashing a
// 1 GB model's tensors costs most of a second at every load, and a model file
// rarely changes. The digest is kept under the file's identity on disk
// (device, inode, size, and modification and change times to the
// nanosecond). Any write to the file moves its change time, which no
// unprivileged caller can set back, so a remembered digest stands for the
// bytes it was computed from while those are equal.
//
// Where: $VEXFS_CACHE_DIR, else $XDG_CACHE_HOME/vexfs, else $HOME/.cache/vexfs
// (gguf-weights/, mode 0700, one small file per model, read only when it and
// the directory are this user's and nobody else can write the directory);
// nothing is remembered when none is set or the directory cannot be used.
//
// Thread-safety: free functions; files are written atomically.
#ifndef VEXFS_KV_FINGERPRINT_CACHE_H_
#define VEXFS_KV_FINGERPRINT_CACHE_H_

#include <sys/stat.h>

#include <ctime>

#include <optional>

#include "vexfs/usxf.h"

namespace vexfs::kv {

// Whether a digest of the open file `fd` (whose fstat is `st`) hashed from
// `hashing_began` may be remembered or looked up: a regular file on a local
// file system, not changed within two seconds before the hashing began (a
// write in the same timestamp tick could go unseen).
bool Rememberable(int fd, const struct stat& st, const timespec& hashing_began);

// `st` is the fstat of the open file the digest is (or was) computed from.
std::optional<usxf::Digest> RememberedWeights(const struct stat& st);
void RememberWeights(const struct stat& st, const usxf::Digest& weights);

}  // namespace vexfs::kv

#endif  // VEXFS_KV_FINGERPRINT_CACHE_H_
