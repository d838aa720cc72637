// Little-endian field access for USXF's fixed structures. Reads take a pointer the
// caller has bounds-checked; every USXF integer is little-endian on the wire.
#ifndef VEXFS_USXF_LE_H_
#define VEXFS_USXF_LE_H_

#include <cstdint>
#include <cstring>
#include <string>

namespace vexfs::usxf {

template <typename T>
inline T LoadLE(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // x86-64 and aarch64 are little-endian
  return v;
}

template <typename T>
inline void StoreLE(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
inline void AppendLE(std::string* out, T v) {
  char buf[sizeof(T)];
  StoreLE(buf, v);
  out->append(buf, sizeof(T));
}

}  // namespace vexfs::usxf

#endif  // VEXFS_USXF_LE_H_
