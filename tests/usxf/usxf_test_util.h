// Shared support for the USXF tests: sample files with every section kind, typed
// byte packing, and the edits a hostile writer would make (re-checksumming a
// patched header, re-sealing a footer over swapped contents).
#ifndef VEXFS_TESTS_USXF_USXF_TEST_UTIL_H_
#define VEXFS_TESTS_USXF_USXF_TEST_UTIL_H_

#include <cstring>
#include <string>
#include <vector>

#include "vexfs/usxf.h"
#include "vexfs/usxf_keys.h"
#include "vexfs/usxf_kv.h"

namespace vexfs::usxf::test {

template <typename T>
std::string Pack(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <typename T>
std::vector<T> Unpack(std::string_view b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Normal values with a spread of magnitudes, from a seed.
std::vector<float> RandomFloats(size_t n, uint64_t seed, float stddev = 1.0f);

// A tensor section named `name` over `values` (which must outlive it).
SectionData TensorSection(const std::string& name, std::string_view values, DType dtype,
                          std::vector<uint64_t> shape, Encoding encoding = Encoding::kNone,
                          uint32_t group_size = 0, Compression compression = Compression::kNone);

// A small KV cache description: `layers` layers of 4 heads / 2 KV heads, head dim
// 8, `tokens` tokens, block size 4, block hashes filled in.
KvCacheInfo SmallKv(uint32_t layers, uint32_t tokens);

struct SampleOptions {
  uint32_t alignment = 64;
  bool seal = true;
  bool compress = false;
  std::vector<const SigningKey*> signers;
};
// Three sections: "notes" (blob), "weights" (f32 tensor carried as f16) and
// "kv" (kv_cache, f16), plus file metadata. Deterministic for equal options.
std::string SampleFile(const SampleOptions& options = {});

// After editing preamble fields or header bytes, recomputes the header and
// preamble checksums so that only the edit's meaning is tested.
void FixHeaderChecksums(std::string* file);
// Recomputes every checksum and digest of the footer (and the root) from the bytes
// as they are now, keeping the signatures: what an attacker without the signing
// key can do after changing contents.
void ResealFooter(std::string* file);

}  // namespace vexfs::usxf::test

#endif  // VEXFS_TESTS_USXF_USXF_TEST_UTIL_H_
