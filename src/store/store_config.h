// The store's marker file, `<store>/VEXFS`: a few "key value" text lines written
// once at init (format version, map size). Its presence is what makes a
// directory a VexFS store; it is read before LMDB is opened because the map size
// must be known first.
#ifndef VEXFS_STORE_STORE_CONFIG_H_
#define VEXFS_STORE_STORE_CONFIG_H_

#include <cstdint>
#include <string>

#include "vexfs/status.h"

namespace vexfs::internal {

inline constexpr char kConfigFileName[] = "VEXFS";

struct StoreConfig {
  uint32_t format = 1;
  uint64_t map_size = 0;
};

// kNotFound if the file is absent; kCorruption if it does not parse.
Result<StoreConfig> ReadStoreConfig(const std::string& dir);
// Written to a temporary file, fsynced, then renamed into place.
Status WriteStoreConfig(const std::string& dir, const StoreConfig& config);

}  // namespace vexfs::internal

#endif  // VEXFS_STORE_STORE_CONFIG_H_
