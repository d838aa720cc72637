// A GGUF file's weights fingerprint, remembered between processes: hashing a
// 1 GB model's tensors costs most of a second at every load, and a model file
// rarely changes. The digest is kept under the file's identity on disk
// (device, inode, size, and modification and change times to the
// nanosecond). Any write to the file moves its change time, which no
// unprivileged caller can set back, so a remembered digest stands for the
// bytes it was computed from while those are equal.
//
// Where: $VEXFS_CACHE_DIR, else $XDG_CACHE_HOME/vexfs, else $HOME/.cache/vexfs
// (gguf-weights/, one small file per model); nothing is remembered when none
// is set or the directory cannot be written.
//
// Thread-safety: free functions; files are written atomically.
#ifndef VEXFS_KV_FINGERPRINT_CACHE_H_
#define VEXFS_KV_FINGERPRINT_CACHE_H_

#include <sys/stat.h>

#include <optional>

#include "vexfs/usxf.h"

namespace vexfs::kv {

std::optional<usxf::Digest> RememberedWeights(const struct stat& st);
void RememberWeights(const struct stat& st, const usxf::Digest& weights);

}  // namespace vexfs::kv

#endif  // VEXFS_KV_FINGERPRINT_CACHE_H_
