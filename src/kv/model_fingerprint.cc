// The three SHA-256 fingerprints of a GGUF file (see model_fingerprint.h), read
// through ggml's GGUF reader.
#include "vexfs/kv/model_fingerprint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <vector>

#include "common/sha256.h"
#include "kv/fingerprint_cache.h"
#include "kv/gguf_ptr.h"
#include "usxf/mapping.h"

namespace vexfs::kv {
namespace {

size_t ScalarSize(gguf_type t) {
  switch (t) {
    case GGUF_TYPE_UINT8: case GGUF_TYPE_INT8: case GGUF_TYPE_BOOL: return 1;
    case GGUF_TYPE_UINT16: case GGUF_TYPE_INT16: return 2;
    case GGUF_TYPE_UINT32: case GGUF_TYPE_INT32: case GGUF_TYPE_FLOAT32: return 4;
    case GGUF_TYPE_UINT64: case GGUF_TYPE_INT64: case GGUF_TYPE_FLOAT64: return 8;
    default: return 0;
  }
}

void HashU64(Sha256& h, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  h.Update({b, 8});
}

// Length-prefixed, so that no two different key lists hash the same bytes.
void HashString(Sha256& h, std::string_view s) {
  HashU64(h, s.size());
  h.Update(s);
}

void HashValue(Sha256& h, const gguf_context* g, int64_t k) {
  const gguf_type type = gguf_get_kv_type(g, k);
  HashU64(h, type);
  if (type == GGUF_TYPE_STRING) return HashString(h, gguf_get_val_str(g, k));
  if (type != GGUF_TYPE_ARRAY) {
    const auto* p = static_cast<const char*>(gguf_get_val_data(g, k));
    return h.Update({p, ScalarSize(type)});
  }
  const gguf_type elem = gguf_get_arr_type(g, k);
  const size_t n = gguf_get_arr_n(g, k);
  HashU64(h, elem);
  HashU64(h, n);
  if (elem == GGUF_TYPE_STRING) {
    for (size_t i = 0; i < n; ++i) HashString(h, gguf_get_arr_str(g, k, i));
    return;
  }
  const auto* p = static_cast<const char*>(gguf_get_arr_data(g, k));
  h.Update({p, n * ScalarSize(elem)});
}

usxf::Digest ToDigest(const ObjectId& id) { return id.bytes; }

// Keys selected by `wanted`, sorted, with their types and values.
template <typename Pred>
usxf::Digest HashKeys(const gguf_context* g, std::string_view domain, Pred wanted) {
  std::vector<std::pair<std::string, int64_t>> keys;
  for (int64_t k = 0; k < gguf_get_n_kv(g); ++k) {
    std::string key = gguf_get_key(g, k);
    if (wanted(key)) keys.emplace_back(std::move(key), k);
  }
  std::sort(keys.begin(), keys.end());
  Sha256 h;
  HashString(h, domain);
  for (const auto& [key, k] : keys) {
    HashString(h, key);
    HashValue(h, g, k);
  }
  return ToDigest(h.Finish());
}

Result<usxf::Digest> HashTensors(const gguf_context* g, std::string_view file,
                                 const std::string& path) {
  std::vector<std::pair<std::string, int64_t>> tensors;
  for (int64_t t = 0; t < gguf_get_n_tensors(g); ++t) {
    tensors.emplace_back(gguf_get_tensor_name(g, t), t);
  }
  std::sort(tensors.begin(), tensors.end());
  const size_t data_offset = gguf_get_data_offset(g);
  Sha256 h;
  HashString(h, "vexfs-gguf-weights-v1");
  for (const auto& [name, t] : tensors) {
    const size_t offset = data_offset + gguf_get_tensor_offset(g, t);
    const size_t size = gguf_get_tensor_size(g, t);
    if (offset > file.size() || size > file.size() - offset) {
      return Status::Corruption(path + ": tensor '" + name + "' lies outside the file");
    }
    HashString(h, name);
    HashU64(h, gguf_get_tensor_type(g, t));
    const int64_t* ne = gguf_get_tensor_ne(g, t);
    for (int d = 0; d < 4; ++d) HashU64(h, static_cast<uint64_t>(ne[d]));
    HashU64(h, size);
    h.Update(file.substr(offset, size));
  }
  return ToDigest(h.Finish());
}

}  // namespace

Result<ModelFingerprints> FingerprintGguf(const std::string& path) {
  // One open file for the identity, the lookup and the hashing.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::NotFound(path + ": no such model file");
  std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::NotFound(path + ": cannot stat the model file");
  timespec began;
  ::clock_gettime(CLOCK_REALTIME, &began);  // file times are of this clock
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  GgufPtr g(gguf_init_from_file(path.c_str(), params));
  if (!g) return Status::Corruption(path + ": not a readable GGUF model file");
  ModelFingerprints fp;
  const int64_t arch_key = gguf_find_key(g.get(), "general.architecture");
  if (arch_key < 0 || gguf_get_kv_type(g.get(), arch_key) != GGUF_TYPE_STRING) {
    return Status::Corruption(path + ": GGUF has no general.architecture string");
  }
  fp.arch = gguf_get_val_str(g.get(), arch_key);
  const std::string prefix = fp.arch + ".";
  fp.hparams = HashKeys(g.get(), "vexfs-gguf-hparams-v1", [&](const std::string& k) {
    return k == "general.architecture" || k.rfind(prefix, 0) == 0;
  });
  fp.tokenizer = HashKeys(g.get(), "vexfs-gguf-tokenizer-v1", [](const std::string& k) {
    return k.rfind("tokenizer.", 0) == 0;
  });
  const bool rememberable = Rememberable(fd, st, began);
  if (rememberable) {
    if (auto remembered = RememberedWeights(st)) {
      fp.weights = *remembered;
      return fp;
    }
  }
  VEXFS_ASSIGN_OR_RETURN(auto mapping, usxf::Mapping::FromFd(fd, path));
  VEXFS_ASSIGN_OR_RETURN(fp.weights, HashTensors(g.get(), mapping->bytes(), path));
  // Remembered only if the file did not change while it was hashed.
  struct stat after;
  if (rememberable && ::fstat(fd, &after) == 0 && after.st_dev == st.st_dev && after.st_ino == st.st_ino &&
      after.st_size == st.st_size && after.st_mtim.tv_sec == st.st_mtim.tv_sec &&
      after.st_mtim.tv_nsec == st.st_mtim.tv_nsec && after.st_ctim.tv_sec == st.st_ctim.tv_sec &&
      after.st_ctim.tv_nsec == st.st_ctim.tv_nsec) {
    RememberWeights(st, fp.weights);
  }
  return fp;
}

}  // namespace vexfs::kv
