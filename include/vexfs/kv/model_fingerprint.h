// Model identity for KV-cache migration: three SHA-256 fingerprints of a GGUF file,
// so that a target refuses attention state made by other weights, other
// hyperparameters or another tokenizer (docs/kv.md, "Model identity").
//   weights    every tensor in name order: name, ggml type, shape, data bytes
//   hparams    general.architecture and every "<arch>." key, in key order
//   tokenizer  every "tokenizer." key, in key order
// Keys are hashed with their GGUF type and value, so a changed type is a change.
//
// Thread-safety: free functions over their arguments.
#ifndef VEXFS_KV_MODEL_FINGERPRINT_H_
#define VEXFS_KV_MODEL_FINGERPRINT_H_

#include <string>

#include "vexfs/status.h"
#include "vexfs/usxf.h"

// The public API: exported from libvexfs.so, which is built with hidden visibility.
#pragma GCC visibility push(default)

namespace vexfs::kv {

struct ModelFingerprints {
  std::string arch;
  usxf::Digest weights{};
  usxf::Digest hparams{};
  usxf::Digest tokenizer{};
};

// kNotFound for a missing file; kCorruption naming the file when it is not a
// readable GGUF (or a tensor lies outside it).
Result<ModelFingerprints> FingerprintGguf(const std::string& path);

}  // namespace vexfs::kv

#pragma GCC visibility pop

#endif  // VEXFS_KV_MODEL_FINGERPRINT_H_
